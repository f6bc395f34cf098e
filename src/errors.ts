/**
 * hooksync's error model: one base class with a code from a closed union, a subclass per family.
 * A caller's misuse of a function throws TypeError; bad external data or a failing service throws these.
 */
import type { ErrorCategory, ErrorCode, ValidationCode } from './contract/error-codes.js';

/** Why a webhook callback was refused or could not be verified. */
export const SIGNATURE_REASONS = [
  'SIGNATURE_MISSING',
  'SIGNATURE_MALFORMED',
  'SIGNATURE_BAD_ALG',
  'SIGNATURE_BAD_TYP',
  'SIGNATURE_UNKNOWN_KID',
  'SIGNATURE_INVALID',
  'SIGNATURE_CLAIM_MISSING',
  'SIGNATURE_EXPIRED',
  'SIGNATURE_NOT_YET_VALID',
  'SIGNATURE_LIFETIME_TOO_LONG',
  'BODY_HASH_ALG_UNSUPPORTED',
  'BODY_HASH_MISMATCH',
  'BODY_MALFORMED_JSON',
  'JOB_ID_MISMATCH',
  'KEYSET_UNAVAILABLE',
] as const;
export type SignatureReason = (typeof SIGNATURE_REASONS)[number];

/** hooksync's own codes, beside the service's. */
export const HOOKSYNC_CODES = [
  'CONFIG_INVALID',
  'STORAGE_UNAVAILABLE',
  'STORAGE_FAILED',
  'TEMPLATE_INVALID',
  'TEMPLATE_NOT_FOUND',
  'NOT_IMPLEMENTED',
  'NETWORK_ERROR',
  'TIMEOUT',
  'RESPONSE_MALFORMED',
  'RESPONSE_TOO_LARGE',
  'INPUT_INVALID',
] as const;
export type HooksyncCode = (typeof HOOKSYNC_CODES)[number];

/** Every code a {@link HooksyncError} can carry. */
export type AnyErrorCode = HooksyncCode | SignatureReason | ErrorCode;

/** Base class of every error hooksync throws on purpose. */
export class HooksyncError extends Error {
  readonly code: AnyErrorCode;
  constructor(code: AnyErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
  override get name(): string {
    return this.constructor.name;
  }
}

/** An error answer from the service (or the simulator), or a network failure talking to it. */
export class ServiceError extends HooksyncError {
  /** HTTP status; 0 when no answer came (network error or timeout). */
  readonly status: number;
  readonly category: ErrorCategory | undefined;
  /** `error` detail of the error object, if any. */
  readonly detail: string | readonly string[] | undefined;
  /** Seconds to wait before retrying, from `Retry-After` or the 429 message. */
  readonly retryAfterSeconds: number | undefined;
  constructor(init: {
    status: number;
    code: ErrorCode | 'NETWORK_ERROR' | 'TIMEOUT' | 'RESPONSE_MALFORMED' | 'RESPONSE_TOO_LARGE';
    category?: ErrorCategory | undefined;
    message: string;
    detail?: string | readonly string[] | undefined;
    retryAfterSeconds?: number | undefined;
    cause?: unknown;
  }) {
    super(init.code, init.message, { cause: init.cause });
    this.status = init.status;
    this.category = init.category;
    this.detail = init.detail;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/**
 * An answer from elsewhere (the service, a key set, a destination) that could not be read within its
 * bounds: over the size cap, past the deadline, or cut off by the network.
 */
export class ResponseReadError extends HooksyncError {
  declare readonly code: 'RESPONSE_TOO_LARGE' | 'TIMEOUT' | 'NETWORK_ERROR';
  /** The cap in force, in bytes. */
  readonly maxBytes: number;
  constructor(
    code: 'RESPONSE_TOO_LARGE' | 'TIMEOUT' | 'NETWORK_ERROR',
    message: string,
    options: { maxBytes: number; cause?: unknown },
  ) {
    super(code, message, options);
    this.maxBytes = options.maxBytes;
  }
}

/** A request refused by local validation, with the code the service would answer. */
export class ValidationError extends HooksyncError {
  declare readonly code: ValidationCode;
  /** Human-readable problems, one per rule broken (at most 10, as in the error object). */
  readonly issues: readonly string[];
  constructor(
    code: ValidationCode,
    message: string,
    issues: readonly string[] = [],
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.issues = issues.slice(0, 10);
  }
}

/** A webhook callback that failed verification. */
export class SignatureError extends HooksyncError {
  declare readonly code: SignatureReason;
  /** True when a retry could succeed (key set unreachable, cooldown on an unknown kid). */
  readonly transient: boolean;
  constructor(code: SignatureReason, message: string, options?: { cause?: unknown; transient?: boolean }) {
    super(code, message, options);
    this.transient = options?.transient ?? false;
  }
}

/** A bad configuration value: the message names the variable or flag and what it accepts. */
export class ConfigError extends HooksyncError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONFIG_INVALID', message, options);
  }
}

/** A database failure; `transient` when a retry could succeed (busy, connection lost). */
export class StorageError extends HooksyncError {
  readonly transient: boolean;
  constructor(message: string, options: { cause?: unknown; transient: boolean }) {
    super(options.transient ? 'STORAGE_UNAVAILABLE' : 'STORAGE_FAILED', message, options);
    this.transient = options.transient;
  }
}

/** A bad export template: names the file, the column and what is wrong. */
export class TemplateError extends HooksyncError {
  constructor(
    code: 'TEMPLATE_INVALID' | 'TEMPLATE_NOT_FOUND',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** An input file that cannot be read as rows (`hooksync launch`): names the file and the line. */
export class InputError extends HooksyncError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INPUT_INVALID', message, options);
  }
}
