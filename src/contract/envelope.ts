/**
 * The job envelope (Resources, Job envelope): status, start_date, stop_date, input.task, output.
 * A generic schema that any well-formed envelope passes, and one per kind that the receiver uses to
 * flag (never refuse) an envelope that does not fit its kind.
 */
import { z } from 'zod';
import { JOB_STATUSES, type JobKind, jobStatusSchema } from './enums.js';
import { isoDateTimeSchema, typeError } from './formats.js';
import {
  companyRevealOutputSchema,
  jobChangeOutputSchema,
  partialCompanyRevealOutputSchema,
  partialJobChangeOutputSchema,
  partialSearchContactOutputSchema,
  searchContactOutputSchema,
} from './resources.js';
import { companyRevealTaskSchema, jobChangeTaskSchema, searchContactTaskSchema } from './tasks.js';
import { contractErrorMap, formatZodIssues, parseOrThrow } from './validation.js';

export { ISO_DATE_TIME_PATTERN } from './formats.js';

/**
 * Any job envelope: a known status, start_date with offset, an input holding a task object, and an
 * optional output object. stop_date and output may be absent, or null (tolerated while a job runs).
 */
export const jobEnvelopeSchema = z.looseObject({
  status: jobStatusSchema,
  start_date: isoDateTimeSchema,
  stop_date: isoDateTimeSchema.nullish(),
  input: z.looseObject({ task: z.looseObject({}, typeError('must be a task object')) }),
  output: z.looseObject({}, typeError('must be an object')).nullish(),
});
export type JobEnvelope = z.output<typeof jobEnvelopeSchema>;

const NOT_SUCCEEDED = ['RUNNING', 'FAILED', 'TIMED_OUT', 'ABORTED'] as const;

/**
 * The envelope of one kind. A SUCCEEDED job has stop_date and a complete output (a finished launcher
 * response shows both); any other status may lack output or carry a partial one.
 */
function kindEnvelopeSchema<T extends z.ZodType, O extends z.ZodType, P extends z.ZodType>(
  task: T,
  output: O,
  partialOutput: P,
) {
  const common = { start_date: isoDateTimeSchema, input: z.looseObject({ task }) };
  return z.discriminatedUnion('status', [
    z.looseObject({ ...common, status: z.literal('SUCCEEDED'), stop_date: isoDateTimeSchema, output }),
    z.looseObject({
      ...common,
      status: z.enum(NOT_SUCCEEDED),
      stop_date: isoDateTimeSchema.nullish(),
      output: partialOutput.nullish(),
    }),
  ]);
}

/** A Company Reveal job envelope. */
export const companyRevealEnvelopeSchema = kindEnvelopeSchema(
  companyRevealTaskSchema,
  companyRevealOutputSchema,
  partialCompanyRevealOutputSchema,
);
export type CompanyRevealEnvelope = z.output<typeof companyRevealEnvelopeSchema>;

/** A Job Change job envelope. */
export const jobChangeEnvelopeSchema = kindEnvelopeSchema(
  jobChangeTaskSchema,
  jobChangeOutputSchema,
  partialJobChangeOutputSchema,
);
export type JobChangeEnvelope = z.output<typeof jobChangeEnvelopeSchema>;

/** A Search Contact job envelope. */
export const searchContactEnvelopeSchema = kindEnvelopeSchema(
  searchContactTaskSchema,
  searchContactOutputSchema,
  partialSearchContactOutputSchema,
);
export type SearchContactEnvelope = z.output<typeof searchContactEnvelopeSchema>;

/** Parses any job envelope; throws ValidationError VALIDATION_BAD_REQUEST naming each broken rule. */
export function parseJobEnvelope(value: unknown): JobEnvelope {
  return parseOrThrow(jobEnvelopeSchema, value, 'Invalid job envelope');
}

/** The most issues {@link checkEnvelopeForKind} lists (a page of 250 persons can break one rule 250 times). */
export const MAX_ENVELOPE_ISSUES = 20;

const KIND_SCHEMAS: Readonly<Record<JobKind, z.ZodType>> = {
  company_reveal: companyRevealEnvelopeSchema,
  job_change: jobChangeEnvelopeSchema,
  search_contact: searchContactEnvelopeSchema,
  unknown: jobEnvelopeSchema,
};

/** Whether a value passes a schema: zod's compiled validator, which builds no parsed value and no issues. */
type FastAccept = (value: unknown) => boolean;

/** Any of the per-kind envelope schemas: a union of branches discriminated by status. */
type KindEnvelopeSchema = ReturnType<typeof kindEnvelopeSchema>;

/**
 * A zod-compiled (`z.compile`) acceptance check for a kind's envelopes: each branch compiled on its
 * own and picked by status. zod compiles a union into code that builds the parsed value, but a lone
 * object into a pure check, and checkEnvelopeForKind needs no value. A branch only accepts envelopes
 * of its own statuses, so what a branch accepts the union accepts too.
 */
function compileKindAccept(union: KindEnvelopeSchema): FastAccept {
  const compiled = new Map<z.ZodType, z.ZodType>();
  const byStatus = new Map<unknown, z.ZodType>();
  for (const status of JOB_STATUSES) {
    const option: z.ZodType = z.getDiscriminatedOption(union, status);
    let branch = compiled.get(option);
    if (branch === undefined) {
      branch = z.compile(option);
      compiled.set(option, branch);
    }
    byStatus.set(status, branch);
  }
  return (value) => {
    const status =
      typeof value === 'object' && value !== null ? (value as { status?: unknown }).status : undefined;
    return byStatus.get(status)?.validate(value) === true;
  };
}

/** The generic envelope schema compiled whole: it is a single object, which zod compiles into a pure check. */
function compileGenericAccept(): FastAccept {
  const compiled = z.compile(jobEnvelopeSchema);
  return (value) => compiled.validate(value);
}

const COMPILE_ACCEPT: Readonly<Record<JobKind, () => FastAccept>> = {
  company_reveal: () => compileKindAccept(companyRevealEnvelopeSchema),
  job_change: () => compileKindAccept(jobChangeEnvelopeSchema),
  search_contact: () => compileKindAccept(searchContactEnvelopeSchema),
  unknown: compileGenericAccept,
};

/** Compiled on first use per kind: compiling costs milliseconds, which most processes never need. */
const fastAccepts = new Map<JobKind, FastAccept>();

function fastAcceptOf(kind: JobKind): FastAccept {
  let accept = fastAccepts.get(kind);
  if (accept === undefined) {
    accept = COMPILE_ACCEPT[kind]();
    fastAccepts.set(kind, accept);
  }
  return accept;
}

/** The result of {@link checkEnvelopeForKind}. */
export type EnvelopeCheck = { ok: true } | { ok: false; issues: string[] };

/**
 * Whether an envelope fits the schema of its kind (the generic schema for `unknown`), with each
 * broken rule as `path: message` (at most {@link MAX_ENVELOPE_ISSUES}). For flagging, not refusing.
 *
 * A fitting envelope is answered by zod's compiled validator (several times faster than the
 * interpreted parse on a large page); anything else by zod's ordinary parse, which has the last word on
 * fit and words the issues. On an envelope that does not fit, the validator itself re-runs the
 * interpreted parse up to the first issue before answering, so that rare path costs up to two parses.
 */
export function checkEnvelopeForKind(value: unknown, kind: JobKind): EnvelopeCheck {
  const schema = KIND_SCHEMAS[kind];
  if (schema === undefined) throw new TypeError(`checkEnvelopeForKind: unknown kind ${String(kind)}`);
  if (fastAcceptOf(kind)(value)) return { ok: true };
  const result = schema.safeParse(value, { error: contractErrorMap });
  if (result.success) return { ok: true };
  const issues = formatZodIssues(result.error);
  if (issues.length <= MAX_ENVELOPE_ISSUES) return { ok: false, issues };
  const shown = issues.slice(0, MAX_ENVELOPE_ISSUES - 1);
  shown.push(`... and ${issues.length - shown.length} more`);
  return { ok: false, issues: shown };
}
