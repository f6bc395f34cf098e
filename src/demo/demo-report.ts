/**
 * What `runDemo` returns: what was launched, which faults the simulator injected, how the receiver
 * answered, what reconcile recovered, what was exported, and any invariant the run broke.
 */
import type { ReconcileReport } from '../reconcile/reconcile-report.js';
import type { DeliveryFault } from '../simulator/delivery-faults.js';

/** Kinds the demo launches. */
export type DemoJobKind = 'company_reveal' | 'search_contact' | 'job_change';

/** One file written by the export phase. */
export interface DemoExport {
  readonly template: string;
  /** Absolute path of the file. */
  readonly file: string;
  readonly rows: number;
}

/** One refusal reason and how many callbacks it refused (from the quarantine). */
export interface DemoRefusal {
  readonly reason: string;
  readonly count: number;
}

/** The report of one demo run. */
export interface DemoReport {
  /** The simulator's seed (chosen so that every fault happens). */
  readonly seed: string;
  /** The SQLite file the receiver stored into. */
  readonly databasePath: string;
  /** False when the temporary folder holding it was removed at the end. */
  readonly databaseKept: boolean;
  /** Absolute path of the folder the exports went to. */
  readonly outDir: string;
  readonly durationMs: number;
  /** Jobs launched per kind. */
  readonly launched: Readonly<Record<DemoJobKind, number>>;
  /** Deliveries the simulator spoiled on purpose, per fault. */
  readonly faults: Readonly<Record<DeliveryFault, number>>;
  /** The signing key rotated midway, and how many callbacks signed with the new key were stored or recognised. */
  readonly rotation: {
    readonly previousKid: string;
    readonly kid: string;
    readonly acceptedWithNewKey: number;
  };
  /** Delivery attempts that reached the receiver. */
  readonly received: number;
  /** Those attempts by the receiver's outcome (stored, duplicate, refused, ...). */
  readonly outcomes: Readonly<Record<string, number>>;
  /** Callbacks answered 200 without writing anything: the job was already stored (duplicate or replay). */
  readonly duplicatesIgnored: number;
  /** Refused callbacks per reason, from the quarantine. */
  readonly refused: readonly DemoRefusal[];
  readonly reconcile: ReconcileReport;
  readonly exports: readonly DemoExport[];
  /** Jobs in the database at the end. */
  readonly jobsStored: number;
  /** The demo's webhook destination, and how many of the stored jobs it received, signed. */
  readonly destination: { readonly name: string; readonly jobs: number };
  /** Broken invariants, one sentence each; empty when the run was as it must be. */
  readonly problems: readonly string[];
}
