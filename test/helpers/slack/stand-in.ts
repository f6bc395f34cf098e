/**
 * A Slack stand-in over real HTTP on 127.0.0.1, port 0, written from Slack's public reference
 * (shared/docs/alerts-and-plays-api.md §1-2): the Web API's `chat.postMessage` and `users.lookupByEmail`
 * (Bearer or `token` field; JSON or form bodies; errors as HTTP 200 `"ok": false`; 429 + Retry-After past
 * one message a second per channel after a short burst), and incoming webhooks (`/services/T…/B…/…`,
 * plain-text answers with real statuses). Tests read what was posted and inject Slack's faults.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../stand-in-http.js';

/** A channel the workspace has. */
export interface StandInChannel {
  readonly id: string;
  readonly name: string;
  /** Archived: posting answers `is_archived` (a webhook's: 410 `channel_is_archived`). */
  archived?: boolean;
  /** The bot is not a member (private, or public without chat:write.public): `not_in_channel`. */
  notMember?: boolean;
}

/** A user of the workspace. */
export interface StandInUser {
  readonly id: string;
  readonly email: string;
  readonly deleted?: boolean;
}

/** A message as posted. */
export interface PostedMessage {
  /** The conversation it landed in (a DM's is `D` + the user id). */
  readonly channel: string;
  readonly text: string | undefined;
  readonly blocks: unknown;
  readonly ts: string;
  readonly via: 'api' | 'webhook';
}

/** A fault: the next matching call answered this way instead (`times`, default 1). */
export interface SlackFault {
  method: 'chat.postMessage' | 'users.lookupByEmail' | 'webhook';
  /** `ok: false` with this error (Web API), or this text (webhook). */
  error?: string;
  /** HTTP status (default 200 for the Web API; 400 for a webhook). */
  status?: number;
  retryAfter?: number;
  /** Post the message for real, then close the connection without an answer (a lost answer). */
  dropAnswer?: boolean;
  /** Post the message for real, then never answer (until `close`): a post in flight. */
  hold?: boolean;
  /** Matching calls answered for real before this fault applies (default 0). */
  skip?: number;
  times?: number;
}

/** Options of the stand-in. */
export interface SlackStandInOptions {
  token?: string;
  channels?: StandInChannel[];
  users?: StandInUser[];
  /** Messages a channel takes at once before 429s (default 3); then one a second. */
  burst?: number;
  now?: () => number;
}

const WEBHOOK_PATH = '/services/T0000000001/B0000000001/webhooksecret0000000000';

/** Starts the stand-in. */
export async function startSlackStandIn(options: SlackStandInOptions = {}) {
  const token = options.token ?? 'xoxb-test-token';
  const now = options.now ?? Date.now;
  const channels = options.channels ?? [{ id: 'C0000000001', name: 'general' }];
  const users = options.users ?? [];
  const posted: PostedMessage[] = [];
  const faults: SlackFault[] = [];
  const calls: Array<{ method: string; body: Record<string, unknown> }> = [];
  const pace = new Map<string, number[]>();
  let revoked: string | undefined;
  let held = 0;
  let sequence = 0;
  const burst = options.burst ?? 3;

  /** 429 seconds when `channel` is over one a second past its burst; else undefined (and counted). */
  const limited = (channel: string): number | undefined => {
    const t = now();
    const recent = (pace.get(channel) ?? []).filter((at) => t - at < 1000 * burst);
    if (recent.length >= burst && t - recent[recent.length - 1]! < 1000) return 1;
    recent.push(t);
    pace.set(channel, recent);
    return undefined;
  };
  const takeFault = (method: SlackFault['method']) => {
    const index = faults.findIndex((fault) => fault.method === method);
    if (index < 0) return undefined;
    const fault = faults[index]!;
    if ((fault.skip ?? 0) > 0) {
      fault.skip! -= 1;
      return undefined;
    }
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) faults.splice(index, 1);
    return fault;
  };
  const findChannel = (value: string) =>
    channels.find(
      (channel) => channel.id === value || `#${channel.name}` === value || channel.name === value,
    );
  const post = (channel: string, body: Record<string, unknown>, via: 'api' | 'webhook') => {
    const ts = `${Math.floor(now() / 1000)}.${String(++sequence).padStart(6, '0')}`;
    posted.push({
      channel,
      text: typeof body.text === 'string' ? body.text : undefined,
      blocks: body.blocks,
      ts,
      via,
    });
    return ts;
  };
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  };
  const text = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'text/plain', ...headers });
    res.end(body);
  };

  const parseBody = (req: IncomingMessage, raw: string): Record<string, unknown> | undefined => {
    const type = req.headers['content-type'] ?? '';
    if (type.includes('application/json')) {
      try {
        const value = JSON.parse(raw) as unknown;
        return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
      } catch {
        return undefined;
      }
    }
    const form = Object.fromEntries(new URLSearchParams(raw)) as Record<string, unknown>;
    if (typeof form.blocks === 'string') {
      try {
        form.blocks = JSON.parse(form.blocks);
      } catch {
        // Left as text: invalid_blocks below.
      }
    }
    return form;
  };

  /** Why a message is refused (Slack's error), or undefined. */
  const messageProblem = (body: Record<string, unknown>): string | undefined => {
    const hasText = typeof body.text === 'string' && body.text !== '';
    const blocks = body.blocks;
    if (!hasText && (blocks === undefined || (Array.isArray(blocks) && blocks.length === 0)))
      return 'no_text';
    if (typeof body.text === 'string' && body.text.length > 40_000) return 'msg_too_long';
    if (blocks !== undefined) {
      if (!Array.isArray(blocks) || blocks.length > 50) return 'invalid_blocks';
      let chars = 0;
      for (const block of blocks as Array<Record<string, unknown>>) {
        const sectionText = (block.text as { text?: unknown } | undefined)?.text;
        if (typeof sectionText === 'string') {
          if (sectionText.length > 3000 || sectionText.length === 0) return 'invalid_blocks';
          chars += sectionText.length;
        }
      }
      if (chars > 13_000) return 'msg_blocks_too_long';
    }
    return undefined;
  };

  const webApi = (
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    body: Record<string, unknown>,
  ) => {
    calls.push({ method, body });
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? body.token;
    if (bearer === undefined) return json(res, 200, { ok: false, error: 'not_authed' });
    if (bearer !== token) return json(res, 200, { ok: false, error: 'invalid_auth' });
    if (revoked !== undefined) return json(res, 200, { ok: false, error: revoked });
    if (method === 'users.lookupByEmail') {
      const fault = takeFault('users.lookupByEmail');
      if (fault !== undefined) return answerFault(res, fault);
      const email = String(body.email ?? '').toLowerCase();
      const user = users.find((candidate) => candidate.email.toLowerCase() === email);
      if (user === undefined) return json(res, 200, { ok: false, error: 'users_not_found' });
      return json(res, 200, {
        ok: true,
        user: { id: user.id, deleted: user.deleted ?? false, is_bot: false, profile: { email: user.email } },
      });
    }
    if (method !== 'chat.postMessage') return json(res, 200, { ok: false, error: 'unknown_method' });
    const fault = takeFault('chat.postMessage');
    if (fault !== undefined && !fault.dropAnswer && !fault.hold) return answerFault(res, fault);
    const target = String(body.channel ?? '');
    if (target === '') return json(res, 200, { ok: false, error: 'channel_not_found' });
    const user = users.find((candidate) => candidate.id === target);
    const channel = user === undefined ? findChannel(target) : undefined;
    if (user === undefined && channel === undefined)
      return json(res, 200, { ok: false, error: 'channel_not_found' });
    if (channel?.archived) return json(res, 200, { ok: false, error: 'is_archived' });
    if (channel?.notMember) return json(res, 200, { ok: false, error: 'not_in_channel' });
    const problem = messageProblem(body);
    if (problem !== undefined) return json(res, 200, { ok: false, error: problem });
    const conversation = user !== undefined ? `D${user.id.slice(1)}` : channel!.id;
    const wait = limited(conversation);
    if (wait !== undefined)
      return json(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(wait) });
    const ts = post(conversation, body, 'api');
    if (fault?.dropAnswer) return res.destroy();
    if (fault?.hold) {
      held += 1;
      return undefined;
    }
    return json(res, 200, { ok: true, channel: conversation, ts, message: { text: body.text, ts } });
  };

  const answerFault = (res: ServerResponse, fault: SlackFault) => {
    const headers: Record<string, string> =
      fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) };
    if (fault.method === 'webhook')
      return text(res, fault.status ?? 400, fault.error ?? 'invalid_payload', headers);
    return json(res, fault.status ?? 200, { ok: false, error: fault.error ?? 'internal_error' }, headers);
  };

  const webhook = (res: ServerResponse, body: Record<string, unknown> | undefined) => {
    calls.push({ method: 'webhook', body: body ?? {} });
    const fault = takeFault('webhook');
    if (fault !== undefined && !fault.dropAnswer) return answerFault(res, fault);
    if (body === undefined) return text(res, 400, 'invalid_payload');
    const channel = channels[0]!;
    if (channel.archived) return text(res, 410, 'channel_is_archived');
    const problem = messageProblem(body);
    if (problem !== undefined) return text(res, 400, problem === 'no_text' ? 'no_text' : 'invalid_payload');
    if (limited(channel.id) !== undefined) return text(res, 429, 'rate_limited', { 'retry-after': '1' });
    post(channel.id, body, 'webhook');
    if (fault?.dropAnswer) return res.destroy();
    return text(res, 200, 'ok');
  };

  const server = createServer((req, res) => {
    void readBody(req, 1024 * 1024).then((raw) => {
      const path = (req.url ?? '/').split('?')[0]!;
      if (raw === undefined) return text(res, 413, 'too large');
      if (req.method !== 'POST') return text(res, 405, 'method not allowed');
      if (path.startsWith('/api/')) {
        const body = parseBody(req, raw);
        if (body === undefined) return json(res, 200, { ok: false, error: 'invalid_json' });
        return webApi(req, res, path.slice('/api/'.length), body);
      }
      if (path === WEBHOOK_PATH) return webhook(res, parseBody(req, raw));
      return text(res, 404, 'no_service');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    token,
    apiUrl: `${base}/api`,
    webhookUrl: `${base}${WEBHOOK_PATH}`,
    posted,
    calls,
    channels,
    users,
    /** Posts held without an answer so far (`hold` faults). */
    held: () => held,
    /** Answers the next matching call with a fault. */
    fail(fault: SlackFault) {
      faults.push({ ...fault });
    },
    /** Every Web API call answers `error` (token_revoked, account_inactive) until `restore`. */
    revoke(error = 'token_revoked') {
      revoked = error;
    },
    restore() {
      revoked = undefined;
    },
    /** Messages posted to `channel` (an id, or a user id for their DM). */
    in(channel: string) {
      const id = /^[UW]/.test(channel) ? `D${channel.slice(1)}` : (findChannel(channel)?.id ?? channel);
      return posted.filter((message) => message.channel === id);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A running Slack stand-in. */
export type SlackStandIn = Awaited<ReturnType<typeof startSlackStandIn>>;
