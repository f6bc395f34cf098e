/**
 * What an alert destination's medium (Slack, e-mail) gives the alert core: its messages for a change and
 * for a digest, how it posts one to a target, and how it finds an owner's target from the owner's e-mail.
 */
import type { AttemptResult } from '../destination-type.js';
import type { AlertChange } from './alert-change.js';
import type { AlertRoute } from './alert-routes.js';

/** An owner's target, or why there is none (the route's fallback then takes the message). */
export type OwnerTarget =
  | { readonly target: string }
  | { readonly unknown: string }
  /** Trouble asking (a rate limit, a refused token): the event's result. */
  | { readonly trouble: AttemptResult };

/** A medium: messages of type `M`. */
export interface AlertMedium<M> {
  /** The message of one change on `route` (its template, when it has one). */
  changeMessage(change: AlertChange, route: AlertRoute): M;
  /** A digest's messages for its changes: one, unless the medium's length limit forces more. */
  digestMessages(changes: readonly AlertChange[], route: AlertRoute): M[];
  /** Posts `message` to `target`; never throws. */
  post(target: string, message: M, signal: AbortSignal): Promise<AttemptResult>;
  /** The target of the owner whose e-mail is `email` (Slack: a user id). */
  ownerTarget(email: string, signal: AbortSignal): Promise<OwnerTarget>;
  /** A message as `replay --dry-run` prints it: one line of what it says. */
  describe(message: M): string;
}
