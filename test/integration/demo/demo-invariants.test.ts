/**
 * The demo's own checks: a run as it must be passes, and each way a run can go wrong is named.
 */
import { describe, expect, it } from 'vitest';
import { checkDemoInvariants, type DemoObservations } from '../../../src/demo/check-demo-invariants.js';
import type { ReconcileReport } from '../../../src/reconcile/reconcile-report.js';
import type { DeliveryRecord } from '../../../src/simulator/webhook-dispatcher.js';

const REVEAL = '11111111-1111-4111-8111-111111111111';
const SEARCH = '22222222-2222-4222-8222-222222222222';
const CHANGE = '33333333-3333-4333-8333-333333333333';
const LOST = '44444444-4444-4444-8444-444444444444';

function delivery(
  job_id: string,
  fault: DeliveryRecord['fault'],
  status?: number,
  kid = 'k1',
): DeliveryRecord {
  return {
    job_id,
    url: 'http://127.0.0.1/webhooks',
    copy: 1,
    attempt: fault === 'drop' ? 0 : 1,
    jti: null,
    kid,
    fault,
    at: '2026-03-04T10:00:00.000000+00:00',
    ...(status === undefined ? {} : { status }),
  };
}

/** A run as it must be: each fault once, the two lost jobs recovered. */
function goodRun(): DemoObservations {
  const texts = new Map([REVEAL, SEARCH, CHANGE, LOST].map((id) => [id, `{"job_id":"${id}"}`]));
  return {
    launched: [
      { job_id: REVEAL, kind: 'company_reveal' },
      { job_id: SEARCH, kind: 'search_contact' },
      { job_id: CHANGE, kind: 'job_change' },
      { job_id: LOST, kind: 'job_change' },
    ],
    stored: new Map([...texts].map(([id, envelope]) => [id, { status: 'SUCCEEDED', envelope }])),
    simulatorText: (id) => texts.get(id),
    deliveries: [
      delivery(REVEAL, 'drop'),
      delivery(SEARCH, 'tamper', 400),
      delivery(CHANGE, 'duplicate', 200, 'k2'),
      delivery(CHANGE, 'duplicate', 200, 'k2'),
      delivery(LOST, 'unsigned', 401, 'k2'),
    ],
    refused: [
      { reason: 'BODY_HASH_MISMATCH', count: 1 },
      { reason: 'SIGNATURE_MISSING', count: 1 },
    ],
    reconcile: { status: 'completed', recovered: 2 } as ReconcileReport,
    pendingLedger: 0,
    acceptedWithNewKey: 2,
  };
}

describe('the demo checks its own invariants', () => {
  it('a run as it must be breaks none', () => {
    expect(checkDemoInvariants(goodRun())).toEqual([]);
  });

  it.each<[string, (o: DemoObservations) => DemoObservations, RegExp]>([
    [
      'a job stored differently',
      (o) => ({ ...o, simulatorText: (id) => (id === SEARCH ? '{"other":1}' : o.simulatorText(id)) }),
      /search_contact job 2222.* is stored differently/,
    ],
    [
      'a job never stored',
      (o) => ({ ...o, stored: new Map([...o.stored].filter(([id]) => id !== CHANGE)) }),
      /3 jobs are stored for 4 launched[\s\S]*job_change job 3333.* was never stored/,
    ],
    [
      'a job left RUNNING',
      (o) => ({
        ...o,
        stored: new Map([...o.stored].map(([id, row]) => [id, { ...row, status: 'RUNNING' }])),
      }),
      /is stored RUNNING/,
    ],
    [
      'a fault that never happened',
      (o) => ({ ...o, deliveries: o.deliveries.filter((d) => d.fault !== 'drop') }),
      /never injected a drop fault/,
    ],
    [
      'a tampered body not refused as such',
      (o) => ({ ...o, refused: o.refused.slice(1) }),
      /BODY_HASH_MISMATCH/,
    ],
    [
      'a recovery count that does not match the lost callbacks',
      (o) => ({ ...o, reconcile: { ...o.reconcile, recovered: 1 } }),
      /recovered 1 jobs, but 2 callbacks never arrived/,
    ],
    [
      'reconcile not completing',
      (o) => ({ ...o, reconcile: { ...o.reconcile, status: 'failed', error: 'disk full' } }),
      /reconcile ended failed: disk full/,
    ],
    ['entries left pending', (o) => ({ ...o, pendingLedger: 2 }), /2 ledger entries are still pending/],
    ['no callback accepted after rotation', (o) => ({ ...o, acceptedWithNewKey: 0 }), /rotated key/],
  ])('%s is named', (_, spoil, message) => {
    const problems = checkDemoInvariants(spoil(goodRun()));
    expect(problems.join('\n')).toMatch(message);
  });
});
