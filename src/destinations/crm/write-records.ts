/**
 * One object's records written to a CRM: read first when a field is fill-empty (or for a dry run), plan
 * each record under its policy, write in batches of the CRM's size (or, above its bulk line, all in one
 * write the adapter runs as a bulk job), and say what each record came to. A
 * batch refused whole (HubSpot's e-mail-keyed batch with one bad input) is split in halves until the record
 * at fault stands alone. Nothing is retried unchanged.
 */
import { CrmError } from '../../errors.js';
import { type CheckedValues, checkValues, type FieldDefinition } from './check-values.js';
import type { CrmAdapter, CrmObject, HeldRecord, WriteRequest } from './crm-adapter.js';
import { chunksOf } from './in-chunks.js';
import { type FieldChange, type FieldPolicy, planWrite } from './plan-writes.js';

/** A record to write (a company or a contact). */
export interface WriteInput {
  readonly idProperty: string;
  readonly key: string;
  readonly properties: Readonly<Record<string, string>>;
  readonly policyOf: (property: string) => FieldPolicy;
  /** Its company, for a CRM that links in the contact's own write. */
  readonly company?: WriteRequest['company'];
  /** The CRM record it is (carried, or adopted): written by this id, never created. */
  readonly id?: string | undefined;
  /** Written only where the CRM holds it (a watch's job change): read by key first, failed when absent. */
  readonly updateOnly?: boolean | undefined;
  /** `id` is a record a sales team typed, found by search now: counted as adopted. */
  readonly adopted?: boolean | undefined;
}

/** Why an update-only record (a watch's job change) is not written. */
export function notHeldError(crm: string): string {
  return `${crm} holds no record for it (found neither by a carried id, nor by key, nor by search); a watch change never creates one: replay once it exists`;
}

/** What became of one record. */
export interface WriteOutcome {
  readonly action: 'create' | 'update' | 'skip' | 'failed';
  /** Its CRM record id (undefined when failed, or not known in a dry run of a create). */
  readonly id: string | undefined;
  readonly changes: readonly FieldChange[];
  readonly warnings: readonly string[];
  readonly error?: string;
  /** Found by search and made hooksync's (key stamped, id recorded): counted `adopted`. */
  readonly adopted?: boolean;
}

async function readHeld(
  adapter: CrmAdapter,
  object: CrmObject,
  idProperty: string | undefined,
  keys: readonly string[],
  properties: readonly string[],
  signal: AbortSignal,
): Promise<Map<string, HeldRecord>> {
  const held = new Map<string, HeldRecord>();
  for (const chunk of chunksOf(keys, adapter.limits.readBatch)) {
    for (const [key, record] of await adapter.read(object, idProperty, chunk, properties, signal))
      held.set(key, record);
  }
  return held;
}

/**
 * Writes `inputs` (one object, one idProperty, keys unique); outcomes in input order, and the calls the
 * write makes (in a dry run: the calls the real run would make).
 */
export async function writeRecords(options: {
  readonly adapter: CrmAdapter;
  readonly object: CrmObject;
  readonly inputs: readonly WriteInput[];
  readonly definitions: ReadonlyMap<string, FieldDefinition> | undefined;
  readonly dryRun: boolean;
  readonly signal: AbortSignal;
  /**
   * Called after each write call with what it created (key → record id), before the next call goes: the
   * ids are kept as soon as the CRM tells them, not once every record of the object is written.
   */
  readonly created?: ((ids: ReadonlyMap<string, string>) => Promise<void>) | undefined;
}): Promise<{ outcomes: WriteOutcome[]; calls: number }> {
  const { adapter, object, inputs, signal } = options;
  if (inputs.length === 0) return { outcomes: [], calls: 0 };
  const { readBatch, writeBatch } = adapter.limits;
  const idProperty = inputs[0]!.idProperty;
  const checked: CheckedValues[] = inputs.map((input) =>
    checkValues(input.properties, options.definitions, adapter.name),
  );
  const wanted = [...new Set(checked.flatMap((values) => Object.keys(values.properties)))];
  const mustRead = inputs.some((input, index) =>
    Object.keys(checked[index]!.properties).some(
      (name) => name !== idProperty && input.policyOf(name) === 'fill-empty',
    ),
  );
  // An update-only record found by nothing better than its key is read by key: absent, it is not created.
  const mustFind = inputs.some((input) => input.updateOnly === true && input.id === undefined);
  const byKey = inputs.filter((input) => input.id === undefined).map((input) => input.key);
  const byId = inputs.flatMap((input) => (input.id === undefined ? [] : [input.id]));
  const reads = mustRead || mustFind || options.dryRun;
  let calls =
    mustRead || mustFind ? Math.ceil(byKey.length / readBatch) + Math.ceil(byId.length / readBatch) : 0;
  const held = reads ? await readHeld(adapter, object, idProperty, byKey, wanted, signal) : undefined;
  const heldById = reads ? await readHeld(adapter, object, undefined, byId, wanted, signal) : undefined;
  const outcomes: WriteOutcome[] = [];
  const pending: Array<{ index: number; request: WriteRequest }> = [];
  inputs.forEach((input, index) => {
    const current = input.id === undefined ? held?.get(input.key) : heldById?.get(input.id);
    if (input.updateOnly === true && input.id === undefined && current === undefined) {
      const { warnings } = checked[index]!;
      outcomes[index] = {
        action: 'failed',
        id: undefined,
        changes: [],
        warnings,
        error: notHeldError(adapter.name),
      };
      return;
    }
    const plan = planWrite({
      desired: checked[index]!.properties,
      current: current?.properties,
      // A record found by its id is there: updated, never created (a stale id fails the write).
      exists: current !== undefined || input.id !== undefined,
      keyProperty: idProperty,
      policyOf: input.policyOf,
      stampKey: input.id !== undefined,
    });
    const warnings = checked[index]!.warnings;
    outcomes[index] = {
      action: plan.action,
      id: current?.id ?? input.id,
      changes: plan.changes,
      warnings,
      ...(input.adopted === true ? { adopted: true } : {}),
    };
    if (plan.action !== 'skip')
      pending.push({
        index,
        request: {
          idProperty,
          key: input.key,
          id: input.id,
          properties: plan.properties,
          ...(input.company !== undefined ? { company: input.company } : {}),
          // What was read is handed on: the adapter never reads the record again.
          ...(reads ? { current: current ?? null } : {}),
        },
      });
  });
  const write = async (batch: typeof pending): Promise<void> => {
    if (batch.length === 0) return;
    calls += 1;
    let results: Awaited<ReturnType<CrmAdapter['write']>>;
    try {
      results = await adapter.write(
        object,
        batch.map(({ request }) => request),
        signal,
      );
    } catch (error) {
      if (!(error instanceof CrmError) || error.trouble.kind !== 'fail') throw error;
      if (batch.length === 1) {
        const { index } = batch[0]!;
        outcomes[index] = { ...outcomes[index]!, action: 'failed', error: error.message };
        return;
      }
      // Refused whole: isolate the record at fault, never resend the same batch unchanged.
      const half = Math.ceil(batch.length / 2);
      await write(batch.slice(0, half));
      await write(batch.slice(half));
      return;
    }
    batch.forEach(({ index }, at) => {
      const result = results[at];
      const outcome = outcomes[index]!;
      if (result?.ok === true)
        outcomes[index] =
          result.unchanged === true
            ? { ...outcome, action: 'skip', id: result.id, changes: [] }
            : { ...outcome, action: result.created ? 'create' : 'update', id: result.id };
      else
        outcomes[index] = {
          ...outcome,
          action: 'failed',
          error: result?.error ?? `${adapter.name} did not return the record`,
        };
    });
    const created = new Map<string, string>();
    for (const { index, request } of batch) {
      const outcome = outcomes[index]!;
      if (outcome.action === 'create' && outcome.id !== undefined) created.set(request.key, outcome.id);
    }
    if (created.size > 0) await options.created?.(created);
  };
  // Above a bulk line, the records go to one write whole (the adapter runs its bulk job).
  const bulkCalls = adapter.bulkCalls?.(pending.length);
  const whole = bulkCalls !== undefined;
  if (options.dryRun) calls += bulkCalls ?? Math.ceil(pending.length / writeBatch);
  else for (const chunk of chunksOf(pending, whole ? pending.length : writeBatch)) await write(chunk);
  return { outcomes, calls };
}
