/**
 * The storage suite, run on SQLite and on Postgres: the same schema and the same guarantees on both
 * (verbatim storage, exactly once, upgrades, ledger, group commit, queries, deferred normalization).
 */
import { defineExactlyOnceTests } from './exactly-once.suite.js';
import { defineLedgerAndBatchingTests } from './ledger-and-batching.suite.js';
import { defineMigrationTests } from './migrations.suite.js';
import { defineNormalizationTests } from './normalization.suite.js';
import { defineQuarantineAndQueryTests } from './quarantine-and-queries.suite.js';
import { createSuiteContext, type StorageSuiteSetup } from './suite-context.js';
import { defineVerbatimTests } from './verbatim.suite.js';

export type { ProvisionedDatabase, StorageSuiteSetup } from './suite-context.js';

/** Registers the whole suite in the current describe block. */
export function defineStorageSuite(setup: StorageSuiteSetup): void {
  const ctx = createSuiteContext(setup);
  defineMigrationTests(ctx);
  defineVerbatimTests(ctx);
  defineExactlyOnceTests(ctx);
  defineLedgerAndBatchingTests(ctx);
  defineQuarantineAndQueryTests(ctx);
  defineNormalizationTests(ctx);
}
