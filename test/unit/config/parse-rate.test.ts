import { describe, expect, it } from 'vitest';
import { parseRate } from '../../../src/config/parse-rate.js';
import { rateSchema } from '../../../src/destinations/config-fields.js';

describe('parseRate', () => {
  it('reads <requests>/<duration>', () => {
    expect(parseRate('90/10s')).toEqual({ requests: 90, perMs: 10_000 });
    expect(parseRate(' 600/1m ')).toEqual({ requests: 600, perMs: 60_000 });
    expect(parseRate('5/1h30m')).toEqual({ requests: 5, perMs: 5_400_000 });
  });

  it.each(['90', '90/', '/10s', '0/10s', '1.5/10s', '90/0s', '90/10', '-1/1s', 'ninety/10s'])(
    'refuses %s, naming it and the syntax',
    (text) => {
      expect(() => parseRate(text)).toThrow(`"${text}" is not a rate (<requests>/<duration>, e.g. 90/10s)`);
    },
  );
});

describe('rateSchema', () => {
  it('takes the one syntax and the earlier object form to the same rate', () => {
    expect(rateSchema.parse('10/1s')).toEqual({ requests: 10, perMs: 1000 });
    expect(rateSchema.parse({ requests: 10, per: '1s' })).toEqual({ requests: 10, perMs: 1000 });
  });

  it('says what is wrong in either form', () => {
    const messages = (value: unknown) =>
      rateSchema.safeParse(value).error?.issues.map((issue) => [issue.path.join('.'), issue.message]);
    expect(messages('ten per second')).toEqual([['', 'must be <requests>/<duration>, e.g. 90/10s']]);
    expect(messages(10)).toEqual([['', 'must be <requests>/<duration>, e.g. 90/10s']]);
    expect(messages({ requests: 10, per: '0s' })).toEqual([['per', 'must be longer than 0s']]);
    expect(messages({ requests: 10, per: '1s', burst: 2 })?.length).toBe(1);
  });
});
