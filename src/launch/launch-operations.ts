/**
 * The three operations `hooksync launch` starts: their request fields (typed from the contract's schemas),
 * the contract parser that checks a request exactly as the service (and the simulator) would, and whether
 * the interface's rate limit applies (Limits part: Search and Job Change, not Company Reveal).
 */
import {
  companyRevealRequestSchema,
  jobChangeRequestSchema,
  parseCompanyRevealRequest,
  parseJobChangeRequest,
  parseSearchContactRequest,
  searchContactRequestSchema,
} from '../contract/requests.js';
import { type CellType, fieldTypesOf } from './field-types.js';

/** The operations, as the command names them. */
export const LAUNCH_OPERATIONS = ['search', 'job-change', 'reveal'] as const;
/** One of {@link LAUNCH_OPERATIONS}. */
export type LaunchOperation = (typeof LAUNCH_OPERATIONS)[number];

/** What hooksync knows of one operation. */
export interface OperationSpec {
  readonly name: LaunchOperation;
  /** The job kind its launches create. */
  readonly kind: 'search_contact' | 'job_change' | 'company_reveal';
  /** Request fields and how a cell fills each. */
  readonly fields: ReadonlyMap<string, CellType>;
  /** The contract's parser: throws ValidationError with the service's code and `field: rule` issues. */
  readonly validate: (request: Record<string, unknown>) => unknown;
  /** True when its launches spend the client's pacing budget (the interface's rate-limited APIs). */
  readonly paced: boolean;
}

/** Every operation by name. */
export const OPERATIONS: Readonly<Record<LaunchOperation, OperationSpec>> = Object.freeze({
  search: {
    name: 'search',
    kind: 'search_contact',
    fields: fieldTypesOf(searchContactRequestSchema.shape),
    validate: parseSearchContactRequest,
    paced: true,
  },
  'job-change': {
    name: 'job-change',
    kind: 'job_change',
    fields: fieldTypesOf(jobChangeRequestSchema.shape),
    validate: parseJobChangeRequest,
    paced: true,
  },
  reveal: {
    name: 'reveal',
    kind: 'company_reveal',
    fields: fieldTypesOf(companyRevealRequestSchema.shape),
    validate: parseCompanyRevealRequest,
    paced: false,
  },
});

/** True for a name of {@link LAUNCH_OPERATIONS}. */
export function isLaunchOperation(value: string): value is LaunchOperation {
  return (LAUNCH_OPERATIONS as readonly string[]).includes(value);
}
