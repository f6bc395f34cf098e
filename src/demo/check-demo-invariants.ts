/**
 * The demo checks what it demonstrates: every launched job stored exactly once and byte for byte as the
 * simulator holds it, every fault injected and handled, reconcile recovering exactly the jobs whose
 * callbacks never made it, nothing left expected, and callbacks signed with the rotated key accepted.
 */
import { isTerminalStatus } from '../contract/enums.js';
import type { ReconcileReport } from '../reconcile/reconcile-report.js';
import type { DeliveryFault } from '../simulator/delivery-faults.js';
import type { DeliveryRecord } from '../simulator/webhook-dispatcher.js';
import type { DemoJobKind, DemoRefusal } from './demo-report.js';

/** Faults the demo injects, each with the refusal reason it must leave in the quarantine, if any. */
export const DEMO_FAULTS: ReadonlyArray<readonly [DeliveryFault, string | undefined]> = [
  ['drop', undefined],
  ['duplicate', undefined],
  ['tamper', 'BODY_HASH_MISMATCH'],
  ['unsigned', 'SIGNATURE_MISSING'],
];

/** What the run observed, read back from the database and the simulator. */
export interface DemoObservations {
  readonly launched: readonly { readonly job_id: string; readonly kind: DemoJobKind }[];
  /** The jobs table: job_id → status and envelope text. */
  readonly stored: ReadonlyMap<string, { readonly status: string; readonly envelope: string }>;
  /** The exact text the simulator's finder answers for a job. */
  readonly simulatorText: (jobId: string) => string | undefined;
  readonly deliveries: readonly DeliveryRecord[];
  readonly refused: readonly DemoRefusal[];
  readonly reconcile: ReconcileReport;
  /** Ledger entries still pending. */
  readonly pendingLedger: number;
  /** Callbacks signed with the key made current midway that the receiver accepted (200). */
  readonly acceptedWithNewKey: number;
}

/** The broken invariants, one sentence each; empty when all hold. */
export function checkDemoInvariants(o: DemoObservations): string[] {
  const problems: string[] = [];
  if (o.stored.size !== o.launched.length) {
    problems.push(`${o.stored.size} jobs are stored for ${o.launched.length} launched`);
  }
  for (const { job_id, kind } of o.launched) {
    const row = o.stored.get(job_id);
    const expected = o.simulatorText(job_id);
    if (row === undefined) problems.push(`${kind} job ${job_id} was never stored`);
    else if (!isTerminalStatus(row.status)) problems.push(`${kind} job ${job_id} is stored ${row.status}`);
    else if (row.envelope !== expected) {
      problems.push(`${kind} job ${job_id} is stored differently from the service's copy`);
    }
  }
  for (const [fault, reason] of DEMO_FAULTS) {
    if (!o.deliveries.some((d) => d.fault === fault)) {
      problems.push(`the simulator never injected a ${fault} fault`);
    } else if (reason !== undefined && !o.refused.some((r) => r.reason === reason)) {
      problems.push(`a ${fault} fault was not refused with ${reason}`);
    }
  }
  if (o.reconcile.status !== 'completed') {
    problems.push(
      `reconcile ended ${o.reconcile.status}${o.reconcile.error ? `: ${o.reconcile.error}` : ''}`,
    );
  }
  // A job launched RUNNING arrives by its callback or not at all: reconcile must recover exactly those
  // whose callbacks were never accepted.
  const accepted = new Set(o.deliveries.filter((d) => d.status === 200).map((d) => d.job_id));
  const lost = o.launched.filter((job) => job.kind !== 'company_reveal' && !accepted.has(job.job_id)).length;
  if (o.reconcile.recovered !== lost) {
    problems.push(`reconcile recovered ${o.reconcile.recovered} jobs, but ${lost} callbacks never arrived`);
  }
  if (o.pendingLedger > 0) problems.push(`${o.pendingLedger} ledger entries are still pending`);
  if (o.acceptedWithNewKey === 0) problems.push('no callback signed with the rotated key was accepted');
  return problems;
}
