/**
 * One object's records written to HubSpot: read first when a property is fill-empty (or for a dry run),
 * plan each record under its policy, upsert in batches of 100, and read what each record came to. A 207
 * names the failed inputs by objectWriteTraceId; a batch refused whole (an e-mail-keyed batch with one bad
 * input) is split in halves until the record at fault stands alone. Nothing is retried unchanged.
 */
import { type CheckedValues, checkValues, type PropertyDefinition } from './check-values.js';
import { HUBSPOT_BATCH_LIMIT, type HubSpotClient, HubSpotError } from './hubspot-client.js';
import { type FieldChange, type FieldPolicy, planWrite } from './plan-writes.js';

/** A record to write (a company or a contact). */
export interface WriteInput {
  readonly idProperty: string;
  readonly key: string;
  readonly properties: Readonly<Record<string, string>>;
  readonly policyOf: (property: string) => FieldPolicy;
}

/** What became of one record. */
export interface WriteOutcome {
  readonly action: 'create' | 'update' | 'skip' | 'failed';
  /** Its HubSpot record id (undefined when failed, or not known in a dry run of a create). */
  readonly id: string | undefined;
  readonly changes: readonly FieldChange[];
  readonly warnings: readonly string[];
  readonly error?: string;
}

interface UpsertResult {
  readonly id: string;
  readonly new?: boolean;
  readonly properties?: Readonly<Record<string, string | null>>;
  readonly objectWriteTraceId?: string;
}

interface BatchBody {
  readonly results?: readonly UpsertResult[];
  readonly errors?: ReadonlyArray<{
    readonly message?: string;
    readonly context?: Readonly<Record<string, readonly string[] | undefined>>;
  }>;
}

const chunks = <T>(items: readonly T[]): T[][] => {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += HUBSPOT_BATCH_LIMIT)
    out.push(items.slice(at, at + HUBSPOT_BATCH_LIMIT));
  return out;
};

/** HubSpot compares e-mails and our normalized keys case-insensitively. */
const sameKey = (a: string | null | undefined, b: string) => (a ?? '').trim().toLowerCase() === b;

/** Reads the records of `keys` by `idProperty`: key → { id, properties } for those HubSpot holds. */
async function readByKey(
  client: HubSpotClient,
  object: string,
  idProperty: string,
  keys: readonly string[],
  properties: readonly string[],
  signal: AbortSignal,
) {
  const found = new Map<string, { id: string; properties: Readonly<Record<string, string | null>> }>();
  for (const chunk of chunks(keys)) {
    const answer = await client.request(
      'POST',
      `/crm/v3/objects/${object}/batch/read`,
      {
        idProperty,
        inputs: chunk.map((id) => ({ id })),
        properties: [...properties],
        propertiesWithHistory: [],
      },
      signal,
    );
    for (const result of (answer.body as BatchBody | null)?.results ?? []) {
      const key = chunk.find((candidate) => sameKey(result.properties?.[idProperty], candidate));
      if (key !== undefined) found.set(key, { id: result.id, properties: result.properties ?? {} });
    }
  }
  return found;
}

/**
 * Writes `inputs` (one object, one idProperty, keys unique); outcomes in input order, and the calls the
 * write makes (in a dry run: the calls the real run would make).
 */
export async function writeRecords(options: {
  readonly client: HubSpotClient;
  readonly object: 'companies' | 'contacts';
  readonly inputs: readonly WriteInput[];
  readonly definitions: ReadonlyMap<string, PropertyDefinition> | undefined;
  readonly dryRun: boolean;
  readonly signal: AbortSignal;
}): Promise<{ outcomes: WriteOutcome[]; calls: number }> {
  const { client, object, inputs, signal } = options;
  if (inputs.length === 0) return { outcomes: [], calls: 0 };
  const idProperty = inputs[0]!.idProperty;
  const checked: CheckedValues[] = inputs.map((input) => checkValues(input.properties, options.definitions));
  const wanted = [...new Set(checked.flatMap((values) => Object.keys(values.properties)))];
  const mustRead = inputs.some((input, index) =>
    Object.keys(checked[index]!.properties).some(
      (name) => name !== idProperty && input.policyOf(name) === 'fill-empty',
    ),
  );
  const reads = mustRead || options.dryRun;
  let calls = mustRead ? Math.ceil(inputs.length / HUBSPOT_BATCH_LIMIT) : 0;
  const held = reads
    ? await readByKey(
        client,
        object,
        idProperty,
        inputs.map((input) => input.key),
        wanted,
        signal,
      )
    : undefined;
  const outcomes: Array<WriteOutcome | undefined> = [];
  const pending: Array<{ index: number; properties: Record<string, string> }> = [];
  inputs.forEach((input, index) => {
    const current = held?.get(input.key);
    const plan = planWrite({
      desired: checked[index]!.properties,
      current: current?.properties,
      exists: current !== undefined,
      keyProperty: idProperty,
      policyOf: input.policyOf,
    });
    const warnings = checked[index]!.warnings;
    outcomes[index] = { action: plan.action, id: current?.id, changes: plan.changes, warnings };
    if (plan.action !== 'skip') pending.push({ index, properties: plan.properties });
  });
  // Trace ids make a custom-key batch answer 207 naming the bad inputs (an e-mail-keyed one cannot).
  const traced = idProperty !== 'email';
  const upsert = async (batch: typeof pending): Promise<void> => {
    if (batch.length === 0) return;
    calls += 1;
    let body: BatchBody | null;
    try {
      const answer = await client.request(
        'POST',
        `/crm/v3/objects/${object}/batch/upsert`,
        {
          inputs: batch.map(({ index, properties }) => ({
            idProperty,
            id: inputs[index]!.key,
            properties,
            ...(traced ? { objectWriteTraceId: String(index) } : {}),
          })),
        },
        signal,
      );
      body = answer.body as BatchBody | null;
    } catch (error) {
      if (!(error instanceof HubSpotError) || error.trouble.kind !== 'fail') throw error;
      if (batch.length === 1) {
        const { index } = batch[0]!;
        outcomes[index] = { ...outcomes[index]!, action: 'failed', error: error.message };
        return;
      }
      // Refused whole: isolate the record at fault, never resend the same batch unchanged.
      const half = Math.ceil(batch.length / 2);
      await upsert(batch.slice(0, half));
      await upsert(batch.slice(half));
      return;
    }
    const failedTraces = new Map<string, string>();
    for (const item of body?.errors ?? []) {
      for (const trace of item.context?.objectWriteTraceId ?? [])
        failedTraces.set(trace, item.message ?? 'refused by HubSpot');
    }
    for (const { index } of batch) {
      const result = (body?.results ?? []).find((candidate) =>
        traced
          ? candidate.objectWriteTraceId === String(index)
          : sameKey(candidate.properties?.[idProperty], inputs[index]!.key),
      );
      const outcome = outcomes[index]!;
      if (result !== undefined) {
        outcomes[index] = { ...outcome, action: result.new === false ? 'update' : 'create', id: result.id };
      } else {
        const error = failedTraces.get(String(index)) ?? 'HubSpot did not return the record';
        outcomes[index] = { ...outcome, action: 'failed', error };
      }
    }
  };
  if (options.dryRun) calls += Math.ceil(pending.length / HUBSPOT_BATCH_LIMIT);
  else for (const chunk of chunks(pending)) await upsert(chunk);
  return { outcomes: outcomes.map((outcome) => outcome!), calls };
}
