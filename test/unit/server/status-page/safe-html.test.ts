/**
 * The html tag escapes by default: no string, however hostile, can become markup.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, html, SafeHtml, trustedHtml } from '../../../../src/server/status-page/safe-html.js';

function unescapeHtml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

describe('escapeHtml', () => {
  it('escapes the five characters that matter in text and quoted attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('refuses a non-string (a caller bug)', () => {
    expect(() => escapeHtml(42 as unknown as string)).toThrow(TypeError);
  });
});

describe('html', () => {
  it('escapes interpolated strings and numbers, keeps SafeHtml, flattens arrays, drops null/undefined/false', () => {
    const inner = html`<b>${'<i>'}</b>`;
    const out = html`<p title="${'"x"'}">${inner}${[1, '<', [trustedHtml('<br>')]]}${null}${undefined}${false}</p>`;
    expect(out).toBeInstanceOf(SafeHtml);
    expect(out.toString()).toBe('<p title="&quot;x&quot;"><b>&lt;i&gt;</b>1&lt;<br></p>');
  });

  it('a plain object posing as markup is escaped, not trusted', () => {
    const fake = { toString: () => '<script>1</script>' } as unknown as string;
    expect(html`${fake}`.toString()).toBe('&lt;script&gt;1&lt;/script&gt;');
  });

  it('for any string: no markup character survives, and unescaping gives the string back', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: fc.constantFrom(...'<>"\'&;=/ a\u00e9') }),
          fc.string({ unit: 'grapheme' }),
        ),
        (s) => {
          const out = html`<td title="${s}">${s}</td>`.toString();
          const attr = out.slice('<td title="'.length, out.indexOf('">'));
          const text = out.slice(out.indexOf('">') + 2, -'</td>'.length);
          return (
            !/[<>"']/.test(attr) &&
            !/[<>"']/.test(text) &&
            unescapeHtml(attr) === s &&
            unescapeHtml(text) === s
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});
