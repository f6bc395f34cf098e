/**
 * Sending one e-mail over SMTP with nodemailer, and what its answer means: accepted is delivered; a 4xx
 * reply (421, 450, 451, 452) is retried; a 5xx reply fails the event with the server's line; refused
 * credentials or TLS pause the destination, naming the variable; a connection that fails or times out
 * before any reply is retried. Nodemailer never retries by itself; the lane does. A reply lost after the
 * message's data may mean it was delivered: the lane's retry may then send it twice (at most once more).
 */
import { createTransport, type Transporter } from 'nodemailer';
import { z } from 'zod';
import { parseAnswer } from '../../contract/answer-shape.js';
import { boundOutsideText } from '../../contract/outside-text.js';
import type { AttemptResult } from '../destination-type.js';
import type { SmtpSettings } from './email-config.js';
import type { EmailMessage } from './email-messages.js';

/** SMTP timeouts: far under nodemailer's defaults (2 min to connect, 10 min idle). */
const CONNECTION_TIMEOUT_MS = 15_000;
const GREETING_TIMEOUT_MS = 15_000;
const SOCKET_TIMEOUT_MS = 60_000;

/** A transport for `settings` (a connection per message). */
export function createMailTransport(settings: SmtpSettings): Transporter {
  return createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    requireTLS: settings.requireTLS,
    ...(settings.user !== undefined ? { auth: { user: settings.user, pass: settings.pass ?? '' } } : {}),
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
  });
}

/** Recipients an answer lists at most: a message goes to one. */
const MAX_RECIPIENTS_READ = 100;

/** What is read of nodemailer's answer (built from the server's replies): who was accepted, the last reply. */
const sentInfoSchema = z.looseObject({
  accepted: z.array(z.union([z.string(), z.looseObject({ address: z.string() })])).optional(),
  response: z.string().optional(),
});

/** One line of the server's reply, cut short, with no control characters. */
const line = (text: unknown) =>
  typeof text === 'string'
    ? text
        .replace(/[\r\n\t]+/g, ' ')
        .trim()
        .slice(0, 300)
    : '';

/** What a nodemailer error means; `variable` names where the URL came from. */
export function classifySmtpError(error: unknown, variable: string, destination: string): AttemptResult {
  const failure = error as { code?: unknown; responseCode?: unknown; response?: unknown; message?: unknown };
  const code = typeof failure.code === 'string' ? failure.code : undefined;
  const status = typeof failure.responseCode === 'number' ? failure.responseCode : null;
  const said = line(failure.response) || line(failure.message) || 'SMTP error';
  if (code === 'EAUTH' || code === 'ETLS' || code === 'EREQUIRETLS' || code === 'ENOAUTH') {
    return {
      outcome: 'pause',
      status: status ?? 535,
      error: `the SMTP server refused the settings in ${variable} (${code}: ${said}): fix them, then run hooksync destinations resume ${destination}`,
    };
  }
  if (status !== null && status >= 500) return { outcome: 'fail', status, error: `SMTP ${said}` };
  return { outcome: 'retry', status, error: `SMTP ${said}${code === undefined ? '' : ` (${code})`}` };
}

/** Sends `message` from `from` to `to`; never throws. */
export async function sendMail(
  transport: Transporter,
  options: { readonly from: string; readonly variable: string; readonly destination: string },
  to: string,
  message: EmailMessage,
): Promise<AttemptResult> {
  try {
    const info = await transport.sendMail({
      from: options.from,
      to,
      subject: message.subject,
      text: message.text,
      html: message.html,
    });
    // The bounded shape check first (contract/answer-shape.ts), as for every answer from outside.
    const read = parseAnswer(sentInfoSchema, info, MAX_RECIPIENTS_READ);
    // Sent, but not readable: failed (replayable), never retried blindly into a second copy.
    if (!read.ok)
      return {
        outcome: 'fail',
        status: null,
        error: `SMTP: an answer hooksync cannot read (${boundOutsideText(read.problem, 200)})`,
      };
    if ((read.data.accepted ?? []).length === 0) {
      return {
        outcome: 'fail',
        status: null,
        error: `SMTP: the server accepted no recipient (${line(read.data.response)})`,
      };
    }
    return { outcome: 'delivered', status: 250 };
  } catch (error) {
    return classifySmtpError(error, options.variable, options.destination);
  }
}
