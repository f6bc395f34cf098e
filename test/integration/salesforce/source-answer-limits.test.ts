/**
 * Issue 43 part 1: a watch's Salesforce source reads its pages within serve's memory plan. A query page of
 * ~1.5 MB (1,999 wide contacts, a size Salesforce may send) is read whole without a ceiling, and under a
 * 256 MiB ceiling, whose answer budget is 1 MiB, refused unread as the source's failure; the budget holds
 * nothing after either. Real sockets: a token endpoint and a query endpoint written here from the REST API's
 * shapes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerLimits } from '../../../src/client/answer-budget.js';
import { CrmError } from '../../../src/errors.js';
import { planAnswerLimits, planMemory } from '../../../src/server/memory-plan.js';
import { type QueryEndpoint, readAllContacts, startQueryEndpoint } from './query-endpoint.js';

const MIB = 1024 * 1024;
let endpoint: QueryEndpoint;

beforeAll(async () => {
  endpoint = await startQueryEndpoint(() => ({
    totalSize: 1_999,
    done: true,
    records: Array.from({ length: 1_999 }, (_, k) => ({
      attributes: { type: 'Contact' },
      Id: `003${String(k).padStart(12, '0')}`,
      Email: `c${k}@acme.com`,
      LastName: `L${'n'.repeat(700)}`,
    })),
  }));
});
afterAll(async () => {
  await endpoint?.close();
});

const readAll = (answers: AnswerLimits) => readAllContacts(endpoint.url, ['LastName'], answers);

describe('a Salesforce source under serve’s answer limits', () => {
  it('without a ceiling reads a 1.5 MB page whole, through the one budget', async () => {
    const answers = planAnswerLimits(planMemory(undefined), {});
    const { rows, error } = await readAll(answers);
    expect(error).toBeUndefined();
    expect(rows).toBe(1_999);
    expect(answers.budget.peak).toBeGreaterThan(MIB);
    expect(answers.budget.inUse).toBe(0);
  });

  it('under 256 MiB refuses the same page unread: the source fails, naming the cap', async () => {
    const plan = planMemory(256 * MIB);
    const answers = planAnswerLimits(plan, plan.clientLimits);
    endpoint.queries = 0;
    const { rows, error } = await readAll(answers);
    expect(error).toBeInstanceOf(CrmError);
    expect((error as CrmError).message).toMatch(/larger than 1048576 bytes/);
    expect(rows).toBe(0);
    expect(endpoint.queries).toBeGreaterThanOrEqual(1);
    expect(answers.budget.inUse).toBe(0);
  });
});
