/** The /metrics counter of refused admin sign-ins, registered on the receiver's own registry. */
import { Counter, type Registry } from 'prom-client';
import type { AuthRefusal, AuthSurface } from './create-auth-throttle.js';

/** Registers `hooksync_admin_auth_refusals_total{surface,refusal}` and returns the function that counts one. */
export function countAuthRefusals(registry: Registry): (surface: AuthSurface, refusal: AuthRefusal) => void {
  const counter = new Counter({
    name: 'hooksync_admin_auth_refusals_total',
    help: 'Refused admin API and status page sign-ins: a wrong token, or refused unchecked while throttled',
    labelNames: ['surface', 'refusal'],
    registers: [registry],
  });
  return (surface, refusal) => counter.inc({ surface, refusal });
}
