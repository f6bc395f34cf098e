/** Slack's messages (escaping, templates, digests split only where Slack's limits force it) and the per-channel pace. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AlertChange } from '../../../../src/destinations/alerts/alert-change.js';
import { createChannelPace } from '../../../../src/destinations/alerts/channel-pace.js';
import {
  BLOCK_LIMIT,
  changeMessage,
  digestMessages,
  MESSAGE_CHARS_LIMIT,
  SECTION_LIMIT,
} from '../../../../src/destinations/slack/slack-blocks.js';

const change = (overrides: Partial<AlertChange> = {}): AlertChange => ({
  id: '1',
  watch: 'champions',
  kind: 'moved',
  name: 'Jane Doe',
  company: 'Globex',
  previousCompany: 'Acme',
  title: 'CRO',
  linkedin: 'https://www.linkedin.com/in/jane',
  fields: { hs_object_id: '51', region: 'EMEA' },
  ...overrides,
});

describe('slack messages', () => {
  it('escapes what comes from data, fills templates and the record link', () => {
    const message = changeMessage(
      change({ name: '<!channel> & co' }),
      undefined,
      'https://crm.example/c/{{hs_object_id}}',
    );
    expect(message.text).toBe('&lt;!channel&gt; &amp; co moved from Acme to Globex, now CRO');
    expect(JSON.stringify(message.blocks)).not.toContain('<!channel>');
    expect(JSON.stringify(message.blocks)).toContain('<https://crm.example/c/51|CRM record>');
    const route = {
      index: 0,
      watches: undefined,
      changes: undefined,
      digest: undefined,
      template: '{{name}} ({{region}}, {{change}}) {{missing}}!',
      targets: { owner: false, fixed: [] },
    };
    expect(changeMessage(change(), route, undefined).text).toBe('Jane Doe (EMEA, moved) !');
    // A record link with a field the change does not carry is left out.
    expect(
      JSON.stringify(
        changeMessage(change({ fields: {} }), undefined, 'https://crm.example/c/{{hs_object_id}}').blocks,
      ),
    ).not.toContain('CRM record');
  });

  it('posts one digest message, split only past Slack’s limits, every change listed once', () => {
    const few = [
      change(),
      change({ id: '2', kind: 'left', name: 'Bo Ray' }),
      change({ id: '3', watch: 'new-vps', kind: 'new_person' }),
    ];
    const one = digestMessages(few);
    expect(one).toHaveLength(1);
    expect(one[0]!.text).toBe('Digest: 3 changes: 1 moved, 1 left, 1 new person');

    const many = Array.from({ length: 600 }, (_, i) =>
      change({ id: String(i), name: `Person ${i}`, watch: `w${i % 7}` }),
    );
    const split = digestMessages(many);
    expect(split.length).toBeGreaterThan(1);
    const all = split
      .flatMap((message) => message.blocks.map((block) => (block.text as { text: string }).text))
      .join('\n');
    for (let i = 0; i < 600; i += 1) expect(all).toContain(`*Person ${i}* moved`);
    for (const message of split) {
      expect(message.blocks.length).toBeLessThanOrEqual(BLOCK_LIMIT);
      const texts = message.blocks.map((block) => (block.text as { text: string }).text);
      expect(texts.every((text) => text.length <= SECTION_LIMIT)).toBe(true);
      expect(texts.join('').length).toBeLessThanOrEqual(MESSAGE_CHARS_LIMIT);
    }
    expect(split[1]!.text).toContain(`(part 2 of ${split.length})`);
  });
});

describe('the per-channel pace', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets one message a channel through per interval, other channels at once', async () => {
    vi.useFakeTimers();
    let nowMs = 0;
    const pace = createChannelPace(1_000, () => nowMs);
    const signal = new AbortController().signal;
    await pace.turn('C1', signal);
    let second = false;
    const waiting = pace.turn('C1', signal).then(() => {
      second = true;
    });
    await pace.turn('C2', signal);
    await vi.advanceTimersByTimeAsync(999);
    expect(second).toBe(false);
    nowMs = 1_000;
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(second).toBe(true);
  });
});
