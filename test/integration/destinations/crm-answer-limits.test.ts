/**
 * Issue 43 part 1: a CRM's answers are read within serve's memory plan. The plan's one answer budget (the
 * service's client's too) and its cap on one answer, derived from HOOKSYNC_MEMORY_MB, reach the CRM's client:
 * under a 256 MiB ceiling an answer over the cap is refused unread as a failed attempt, and every answer
 * read holds its bytes in the shared budget until parsed. Without a ceiling the client's own constant holds.
 * Against the HubSpot stand-in, on a real socket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerBudget, type AnswerLimits } from '../../../src/client/answer-budget.js';
import { UNCOUNTED } from '../../../src/destinations/crm/crm-counters.js';
import { createHubSpotClient } from '../../../src/destinations/hubspot/hubspot-client.js';
import { RollingWindow } from '../../../src/destinations/hubspot/rolling-window.js';
import { CrmError } from '../../../src/errors.js';
import { planAnswerLimits, planMemory } from '../../../src/server/memory-plan.js';
import { type HubSpotStandIn, startHubSpotStandIn } from '../../helpers/hubspot/stand-in.js';

const MIB = 1024 * 1024;

let hs: HubSpotStandIn;
beforeAll(async () => {
  hs = await startHubSpotStandIn();
});
afterAll(async () => {
  await hs?.close();
});

const clientWith = (answers: AnswerLimits | undefined) => {
  const pace = new RollingWindow({ requests: 1000, perMs: 1000 }, Date.now);
  return createHubSpotClient({
    baseUrl: hs.url,
    token: hs.token,
    tokenEnv: undefined,
    fetch: globalThis.fetch,
    pace,
    searchPace: pace,
    now: Date.now,
    counter: UNCOUNTED,
    answers,
  });
};

/** A 200 of ~`bytes` holding objects HubSpot could send (properties of a portal with many options). */
const largeAnswer = (bytes: number) => ({
  results: Array.from({ length: Math.ceil(bytes / 1000) }, (_, i) => ({
    name: `property_${i}`,
    label: 'x'.repeat(960),
  })),
});

describe('the answer limits of serve’s memory plan', () => {
  it('without a ceiling: one budget of the service client’s size, no cap of its own', () => {
    const limits = planAnswerLimits(planMemory(undefined), {});
    expect(limits.maxBytes).toBeUndefined();
    expect(limits.budget.limitBytes).toBe(16 * MIB);
  });

  it('under 256 MiB: the cap on one answer is the planned budget (1 MiB), the one the heap holds parsed', () => {
    const plan = planMemory(256 * MIB);
    const limits = planAnswerLimits(plan, plan.clientLimits);
    expect(limits.budget.limitBytes).toBe(plan.clientLimits.answerBudgetBytes);
    expect(limits.maxBytes).toBe(MIB);
  });

  it('the config’s answer budget (HOOKSYNC_ANSWER_BUDGET_BYTES) wins over the plan, and raises the cap with it', () => {
    const plan = planMemory(256 * MIB);
    const limits = planAnswerLimits(plan, { ...plan.clientLimits, answerBudgetBytes: 3 * MIB });
    expect(limits.budget.limitBytes).toBe(3 * MIB);
    expect(limits.maxBytes).toBe(3 * MIB);
  });
});

describe('a CRM client under the plan’s answer limits', () => {
  it('refuses an answer over the planned cap unread, as a failed attempt, and holds no bytes after', async () => {
    const plan = planMemory(256 * MIB);
    const answers = planAnswerLimits(plan, plan.clientLimits);
    hs.failNext({ status: 200, body: largeAnswer(2 * MIB), match: { pathIncludes: '/properties/' } });
    const error = await clientWith(answers)
      .request('GET', '/crm/v3/properties/contacts', undefined, AbortSignal.timeout(30_000))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CrmError);
    expect((error as CrmError).message).toMatch(/larger than 1048576 bytes/);
    expect(answers.budget.inUse).toBe(0);
  });

  it('without a ceiling reads the same answer under its own cap (8 MiB)', async () => {
    const answers = planAnswerLimits(planMemory(undefined), {});
    hs.failNext({ status: 200, body: largeAnswer(2 * MIB), match: { pathIncludes: '/properties/' } });
    const answer = await clientWith(answers).request(
      'GET',
      '/crm/v3/properties/contacts',
      undefined,
      AbortSignal.timeout(30_000),
    );
    expect((answer.body as { results: unknown[] }).results.length).toBeGreaterThan(2000);
    // Read through the one budget: its bytes were held while read and parsed, and given back.
    expect(answers.budget.peak).toBeGreaterThan(MIB * 1.9);
    expect(answers.budget.inUse).toBe(0);
  });

  it('waits for the budget a service answer holds before reading', async () => {
    const budget = new AnswerBudget(MIB);
    const held = await budget.acquire(MIB);
    const call = clientWith({ budget, maxBytes: MIB }).request(
      'GET',
      '/crm/v3/properties/contacts',
      undefined,
      AbortSignal.timeout(30_000),
    );
    let done = false;
    void call.then(() => {
      done = true;
    });
    // The request was sent and answered; its body is not read while the budget is full.
    await expect.poll(() => hs.calls().some((c) => c.path.includes('/properties/contacts'))).toBe(true);
    expect(done).toBe(false);
    held();
    await call;
    expect(budget.inUse).toBe(0);
  });
});
