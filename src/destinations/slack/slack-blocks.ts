/**
 * Slack messages: a `text` fallback (notifications, screen readers) and Block Kit blocks. Everything
 * taken from data is escaped as Slack asks (`&`, `<`, `>` only), so a name can never mention a channel.
 * One change: a section with the sentence (names and companies in bold), and a context line with the
 * watch and links (LinkedIn, the CRM record when `record_link` can be filled). A digest: a count line, then
 * the changes grouped by watch and kind, in sections of at most 3,000 characters, split across messages
 * only where Slack's limits force it (50 blocks; about 12,000 characters of blocks in all).
 */
import type { AlertChange } from '../alerts/alert-change.js';
import type { AlertRoute } from '../alerts/alert-routes.js';
import {
  changePieces,
  countLine,
  fillTemplate,
  groupChanges,
  joinPieces,
  kindLabel,
  templateValues,
} from '../alerts/alert-words.js';

/** A Block Kit block, as sent. */
export type SlackBlock = Readonly<Record<string, unknown>>;

/** A message, as chat.postMessage (with a channel) or an incoming webhook takes it. */
export interface SlackMessage {
  readonly text: string;
  readonly blocks: readonly SlackBlock[];
}

/** A section's text at most (Slack: 3,000). */
export const SECTION_LIMIT = 2_900;
/** Blocks of one message at most (Slack: 50). */
export const BLOCK_LIMIT = 45;
/** Characters of one message's blocks at most (Slack refused ~13,000 with msg_blocks_too_long). */
export const MESSAGE_CHARS_LIMIT = 11_000;

/** Slack's escaping for text built from data. */
export function escapeSlack(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

const cut = (text: string, limit: number) => (text.length <= limit ? text : `${text.slice(0, limit - 1)}…`);

/** A link `<url|label>` when `url` is an http(s) URL safe inside one; else nothing. */
function link(url: string | undefined, label: string): string | undefined {
  if (url === undefined || !/^https?:\/\/[^\s|<>]+$/i.test(url)) return undefined;
  return `<${escapeSlack(url)}|${label}>`;
}

/** `record_link` filled in from the change's carried fields (URL-encoded); undefined when one is missing. */
export function recordUrl(template: string | undefined, change: AlertChange): string | undefined {
  if (template === undefined) return undefined;
  const values = templateValues(change);
  let missing = false;
  const url = template.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_all, key: string) => {
    const value = values[key] ?? '';
    if (value === '') missing = true;
    return encodeURIComponent(value);
  });
  return missing ? undefined : url;
}

/** The sentence of a change in mrkdwn (values bold), and as plain text for the fallback. */
function sentence(change: AlertChange, route: AlertRoute | undefined): { mrkdwn: string; plain: string } {
  if (route?.template !== undefined) {
    const plain = fillTemplate(route.template, change);
    return { mrkdwn: fillTemplate(route.template, change, escapeSlack), plain };
  }
  const pieces = changePieces(change);
  return {
    mrkdwn: joinPieces(pieces, (value) => `*${escapeSlack(value)}*`, escapeSlack),
    plain: joinPieces(
      pieces,
      (value) => value,
      (value) => value,
    ),
  };
}

/** The message of one change. */
export function changeMessage(
  change: AlertChange,
  route: AlertRoute | undefined,
  recordUrlTemplate: string | undefined,
): SlackMessage {
  const { mrkdwn, plain } = sentence(change, route);
  const context = [
    `Watch *${escapeSlack(change.watch)}*`,
    link(change.linkedin, 'LinkedIn'),
    link(recordUrl(recordUrlTemplate, change), 'CRM record'),
  ].filter((part): part is string => part !== undefined);
  return {
    text: cut(escapeSlack(plain), 3_000),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: cut(mrkdwn, SECTION_LIMIT) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: cut(context.join(' · '), SECTION_LIMIT) }] },
    ],
  };
}

const section = (text: string): SlackBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });

/** A digest's messages: one, unless Slack's limits force more. */
export function digestMessages(changes: readonly AlertChange[]): SlackMessage[] {
  const count = countLine(changes);
  // Each section's text: a heading, then lines, never over SECTION_LIMIT.
  const sections: string[] = [`*Digest: ${escapeSlack(count)}*`];
  for (const [watch, byKind] of groupChanges(changes)) {
    sections.push(`*Watch ${escapeSlack(watch)}*`);
    for (const [kind, list] of byKind) {
      let current = `_${kindLabel(kind, list.length)} (${list.length})_`;
      for (const change of list) {
        const pieces = changePieces(change);
        const line = `• ${cut(
          joinPieces(pieces, (value) => `*${escapeSlack(value)}*`, escapeSlack),
          1_000,
        )}`;
        if (current.length + 1 + line.length > SECTION_LIMIT) {
          sections.push(current);
          current = line;
        } else current = `${current}\n${line}`;
      }
      sections.push(current);
    }
  }
  const messages: SlackBlock[][] = [[]];
  let chars = 0;
  for (const text of sections) {
    const last = messages[messages.length - 1]!;
    if (last.length > 0 && (last.length >= BLOCK_LIMIT || chars + text.length > MESSAGE_CHARS_LIMIT)) {
      messages.push([]);
      chars = 0;
    }
    messages[messages.length - 1]!.push(section(text));
    chars += text.length;
  }
  return messages.map((blocks, index) => ({
    text: escapeSlack(
      messages.length === 1
        ? `Digest: ${count}`
        : `Digest: ${count} (part ${index + 1} of ${messages.length})`,
    ),
    blocks,
  }));
}

/** A message in one line, for `replay --dry-run`. */
export function describeSlackMessage(message: SlackMessage): string {
  return message.text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}
