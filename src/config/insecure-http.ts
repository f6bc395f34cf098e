/**
 * The one rule for URLs that carry a secret (the service's API key, a destination's token or signature):
 * https only, unless the host is loopback (the traffic never leaves this host) or is named in
 * HOOKSYNC_ALLOW_INSECURE_HTTP (a trusted network, e.g. `sim` on a compose network; `1` allows any host).
 */
import { ConfigError } from '../errors.js';

/** The variable that names the hosts plain http may reach. */
export const ALLOW_INSECURE_HTTP_VARIABLE = 'HOOKSYNC_ALLOW_INSECURE_HTTP';

/** Plain http allowed to any host (`true`), to none (`false`), or to the host names listed. */
export type InsecureHttpAllowance = boolean | readonly string[];

/** True when `hostname` (as URL.hostname gives it) names this host (loopback, or the unspecified address): traffic never leaves it. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    // The unspecified address, as `hooksync sim --host 0.0.0.0` prints it: a connection to it stays on this host.
    host === '0.0.0.0' ||
    host === '[::]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}

/** HOOKSYNC_ALLOW_INSECURE_HTTP's value: 1 (any host), 0 (none), or the host names allowed, comma-separated. */
export function parseInsecureHttpAllowance(value: string | undefined): InsecureHttpAllowance {
  if (value === undefined || value.trim() === '') return false;
  const v = value.trim().toLowerCase();
  if (v === '1' || v === 'true' || v === 'yes') return true;
  if (v === '0' || v === 'false' || v === 'no') return false;
  const hosts = v.split(',').map((host) => host.trim());
  if (hosts.some((host) => !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(host))) {
    throw new ConfigError(
      `${ALLOW_INSECURE_HTTP_VARIABLE} must be 1, 0 or a comma-separated list of host names (got "${value}")`,
    );
  }
  return Object.freeze(hosts);
}

/** The allowance an environment sets (throws ConfigError on a malformed value). */
export function insecureHttpAllowanceOf(
  env: Readonly<Record<string, string | undefined>>,
): InsecureHttpAllowance {
  return parseInsecureHttpAllowance(env[ALLOW_INSECURE_HTTP_VARIABLE]);
}

/**
 * Why `url` may not carry a secret, or undefined when it may: the words that follow the field's name in a
 * one-line message (`must be https:// unless …; set HOOKSYNC_ALLOW_INSECURE_HTTP=host …`).
 */
export function insecureHttpProblem(url: URL, allowance: InsecureHttpAllowance): string | undefined {
  if (url.protocol !== 'http:') return undefined;
  const allowed = allowance === true || (allowance !== false && allowance.includes(url.hostname));
  if (allowed || isLoopbackHost(url.hostname)) return undefined;
  return (
    `must be https:// unless its host is loopback (got "${url.protocol}//${url.host}${url.pathname}"); set ` +
    `${ALLOW_INSECURE_HTTP_VARIABLE}=${url.hostname} (or 1, any host) to accept plain http on a trusted network`
  );
}
