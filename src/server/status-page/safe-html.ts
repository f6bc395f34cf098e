/**
 * HTML built so that escaping is the default: the `html` tag escapes every interpolated value unless it is
 * already {@link SafeHtml}. Quarantined bodies and reasons come from whoever can reach POST /webhooks, so no
 * value may ever reach the page unescaped; the only way to skip escaping is `trustedHtml`, kept for constants.
 */

/** A fragment of markup that is already safe to emit. */
export class SafeHtml {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  /** The markup. */
  toString(): string {
    return this.#text;
  }
}

/** What the `html` tag accepts: null, undefined and false render as nothing; arrays render each item. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Readonly<Record<string, string>> = Object.freeze({
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
});

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  if (typeof text !== 'string') throw new TypeError('escapeHtml needs a string');
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  return escapeHtml(String(value));
}

/** Tagged template: the literal parts are markup, every interpolation is escaped unless it is SafeHtml. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/** Marks a constant of this module's code (CSS, script) as markup. Never pass it data. */
export function trustedHtml(constant: string): SafeHtml {
  return new SafeHtml(constant);
}
