/**
 * E-mail messages: a subject, a plain-text part and a simple HTML part (names and companies in bold,
 * every value escaped). One change: its sentence, the watch and links. A digest: a count line, then the
 * changes grouped by watch and kind; e-mail has no length limit that forces a split, so one message.
 */
import type { AlertChange } from '../alerts/alert-change.js';
import type { AlertRoute } from '../alerts/alert-routes.js';
import {
  changePieces,
  changeSentence,
  countLine,
  fillTemplate,
  groupChanges,
  joinPieces,
  kindLabel,
} from '../alerts/alert-words.js';
import { recordUrl } from '../slack/slack-blocks.js';

/** An e-mail as sent. */
export interface EmailMessage {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** HTML's escaping for text from data. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** A subject on one line, at most 200 characters. */
const subjectOf = (text: string) => {
  const line = text.replace(/[\r\n]+/g, ' ').trim();
  return line.length <= 200 ? line : `${line.slice(0, 199)}…`;
};

const htmlPieces = (change: AlertChange) =>
  joinPieces(changePieces(change), (value) => `<strong>${escapeHtml(value)}</strong>`, escapeHtml);

/** The e-mail of one change. */
export function emailChangeMessage(
  change: AlertChange,
  route: AlertRoute | undefined,
  options: { readonly subject?: string | undefined; readonly recordUrl?: string | undefined },
): EmailMessage {
  const plain = route?.template === undefined ? changeSentence(change) : fillTemplate(route.template, change);
  const html =
    route?.template === undefined ? htmlPieces(change) : fillTemplate(route.template, change, escapeHtml);
  const record = recordUrl(options.recordUrl, change);
  const links: Array<[string, string]> = [];
  if (change.linkedin !== undefined && /^https?:\/\//i.test(change.linkedin))
    links.push(['LinkedIn', change.linkedin]);
  if (record !== undefined) links.push(['CRM record', record]);
  const text = [plain, '', `Watch: ${change.watch}`, ...links.map(([label, url]) => `${label}: ${url}`)].join(
    '\n',
  );
  const linkHtml = links.map(([label, url]) => `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>`);
  return {
    subject: subjectOf(
      options.subject === undefined ? changeSentence(change) : fillTemplate(options.subject, change),
    ),
    text: `${text}\n`,
    html:
      `<p>${html}</p>\n<p style="color:#666">Watch <strong>${escapeHtml(change.watch)}</strong>` +
      `${linkHtml.length === 0 ? '' : ` · ${linkHtml.join(' · ')}`}</p>\n`,
  };
}

/** The e-mail of a digest. */
export function emailDigestMessage(changes: readonly AlertChange[]): EmailMessage {
  const count = countLine(changes);
  const text: string[] = [`Digest: ${count}`];
  const html: string[] = [`<p><strong>Digest: ${escapeHtml(count)}</strong></p>`];
  for (const [watch, byKind] of groupChanges(changes)) {
    text.push('', `Watch ${watch}`);
    html.push(`<h3>Watch ${escapeHtml(watch)}</h3>`);
    for (const [kind, list] of byKind) {
      const heading = `${kindLabel(kind, list.length)} (${list.length})`;
      text.push(`${heading}:`, ...list.map((change) => `- ${changeSentence(change)}`));
      html.push(`<p><em>${escapeHtml(heading)}</em></p>`, '<ul>');
      html.push(...list.map((change) => `<li>${htmlPieces(change)}</li>`), '</ul>');
    }
  }
  return {
    subject: subjectOf(`Digest: ${count}`),
    text: `${text.join('\n')}\n`,
    html: `${html.join('\n')}\n`,
  };
}
