/**
 * Calls the stand-in the way a client does: real HTTP with fetch, Bearer token, JSON both ways.
 */
import { afterEach } from 'vitest';
import {
  type HubSpotStandIn,
  type HubSpotStandInOptions,
  startHubSpotStandIn,
} from '../../helpers/hubspot/stand-in.js';

/** An answer as a client sees it. */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read HubSpot's JSON answers field by field.
  body: any;
}

/** `method path` with an optional JSON body; `token` defaults to the stand-in's own. */
export async function call(
  standIn: Pick<HubSpotStandIn, 'url' | 'token'>,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = standIn.token,
): Promise<HttpAnswer> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${standIn.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? undefined : JSON.parse(text),
  };
}

/** A fake clock for the windows: starts at noon UTC on a fixed day, moved by `advance`. */
export function fakeClock(start = Date.UTC(2026, 10, 25, 12, 0, 0)): {
  now: () => number;
  advance(ms: number): void;
} {
  let at = start;
  return {
    now: () => at,
    advance: (ms) => {
      at += ms;
    },
  };
}

/** A starter for one test file: every stand-in it starts is closed after the test. */
export function standInsClosedAfterEach(): (options?: HubSpotStandInOptions) => Promise<HubSpotStandIn> {
  const open: HubSpotStandIn[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((standIn) => standIn.close()));
  });
  return async (options) => {
    const standIn = await startHubSpotStandIn(options);
    open.push(standIn);
    return standIn;
  };
}
