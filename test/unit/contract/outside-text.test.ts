/** Issue 43 part 2: one rule for text from outside before it is logged or stored. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  boundOutsideText,
  CONTROL_CHARACTERS,
  MAX_OUTSIDE_TEXT_CHARS,
} from '../../../src/contract/outside-text.js';

describe('boundOutsideText', () => {
  it('keeps a short, clean message as it is', () => {
    expect(boundOutsideText('HTTP 429: You have reached your ten secondly limit.')).toBe(
      'HTTP 429: You have reached your ten secondly limit.',
    );
  });

  it('turns control characters and bidirectional overrides into spaces', () => {
    expect(boundOutsideText('a\r\nINFO forged line\u0000\u001b[31mred\u202eevil\u0085')).toBe(
      'a INFO forged line [31mred evil ',
    );
  });

  it('cuts a 7 MiB policy name to the bound, with an ellipsis', () => {
    const huge = 'TEN_SECONDLY_ROLLING'.repeat((7 * 1024 * 1024) / 20);
    const bounded = boundOutsideText(huge);
    expect(bounded).toHaveLength(MAX_OUTSIDE_TEXT_CHARS);
    expect(bounded.endsWith('…')).toBe(true);
  });

  it('never leaves half of a surrogate pair at the cut', () => {
    const bounded = boundOutsideText(`${'a'.repeat(8)}😀😀😀`, 10);
    expect(bounded).toBe(`${'a'.repeat(8)}…`);
  });

  it('holds for any string: bounded, no control characters', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 3000 }),
        fc.integer({ min: 1, max: 600 }),
        (text, max) => {
          const bounded = boundOutsideText(text, max);
          expect(bounded.length).toBeLessThanOrEqual(max);
          expect(bounded).not.toMatch(CONTROL_CHARACTERS);
          if (text.length <= max && !CONTROL_CHARACTERS.test(text)) expect(bounded).toBe(text);
        },
      ),
    );
  });
});
