/**
 * HubSpot's error bodies, as its public reference and captured live answers show them
 * (shared/docs/hubspot-api.md §4, §5, §6). Every body carries `status: "error"`, a message, a correlationId and a
 * category; the rest depends on the case.
 */
import { randomUUID } from 'node:crypto';

/** The generic envelope of §6. */
export interface HubSpotErrorBody {
  status: 'error';
  message: string;
  correlationId: string;
  category?: string;
  subCategory?: string;
  errors?: Array<{ message: string; code?: string; in?: string; context?: Record<string, unknown> }>;
  context?: Record<string, unknown>;
  links?: Record<string, string>;
  [extra: string]: unknown;
}

/** One item of a "Property values were not valid" list (§6). */
export interface PropertyValueError {
  isValid: false;
  message: string;
  error: string;
  name: string;
  localizedErrorMessage?: string;
  portalId?: number;
}

export type RateLimitPolicy = 'TEN_SECONDLY_ROLLING' | 'DAILY' | 'SECONDLY';

/** An error body with a fresh correlationId. */
export function hubSpotError(
  message: string,
  category: string,
  extra: Partial<Omit<HubSpotErrorBody, 'status' | 'message' | 'correlationId'>> = {},
): HubSpotErrorBody {
  return { status: 'error', message, correlationId: randomUUID(), category, ...extra };
}

/** 401: no token, or a token the portal does not know (§4, captured). */
export function unauthorizedBody(): HubSpotErrorBody {
  return hubSpotError(
    'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
    'INVALID_AUTHENTICATION',
  );
}

/** 403: the token lacks a scope; `anyOf` lists the scopes of which one would do (§4). */
export function missingScopesBody(anyOf: readonly string[]): HubSpotErrorBody {
  return hubSpotError(
    "This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.",
    'MISSING_SCOPES',
    {
      errors: [
        {
          message: 'One or more of the following scopes are required.',
          context: { requiredGranularScopes: [...anyOf] },
        },
      ],
      links: { scopes: 'https://developers.hubspot.com/scopes' },
    },
  );
}

const RATE_LIMIT_MESSAGES: Record<RateLimitPolicy, string> = {
  TEN_SECONDLY_ROLLING: 'You have reached your ten_secondly_rolling limit.',
  DAILY: 'You have reached your daily limit.',
  // The SDK keys its 1 s search back-off on exactly this text (§2).
  SECONDLY: 'You have reached your secondly limit.',
};

/** 429 body of §5: `errorType: "RATE_LIMIT"` and the policy that was hit; no category. */
export function rateLimitBody(policy: RateLimitPolicy): Record<string, unknown> {
  return {
    status: 'error',
    message: RATE_LIMIT_MESSAGES[policy],
    errorType: 'RATE_LIMIT',
    correlationId: randomUUID(),
    policyName: policy,
    requestId: randomUUID(),
  };
}

/** 400 `VALIDATION_ERROR` with HubSpot's "Property values were not valid" message for a list of items (§6). */
export function invalidPropertiesBody(items: readonly PropertyValueError[]): HubSpotErrorBody {
  return hubSpotError(`Property values were not valid: ${JSON.stringify(items)}`, 'VALIDATION_ERROR', {
    errors: items.map((item) => ({
      message: item.message,
      code: item.error,
      context: { propertyName: [item.name] },
    })),
  });
}

/** 400 for more than 100 inputs (§1, captured). */
export function tooManyInputsBody(max: number): HubSpotErrorBody {
  return hubSpotError(
    `The maximum number of inputs supported in a batch is ${max}. Please reduce the number of items and try again`,
    'VALIDATION_ERROR',
  );
}

/** 400 for the same id twice in one batch (§1, captured): Java's list formatting, `[a, b]`. */
export function duplicateIdsBody(ids: readonly string[]): HubSpotErrorBody {
  return hubSpotError(
    `Duplicate IDs found in batch input: [${ids.join(', ')}]. IDs must be unique`,
    'VALIDATION_ERROR',
    { context: { ids: [...ids] } },
  );
}

/** 400 for an idProperty that is not a unique property (§1.1, captured with the portal suffix). */
export function nonUniqueIdPropertyBody(
  objectTypeId: string,
  property: string,
  portalId: number,
): HubSpotErrorBody {
  return hubSpotError(
    `Unable to perform update/upsert by non-unique ${objectTypeId} property ${property} in portal ID ${portalId}`,
    'VALIDATION_ERROR',
  );
}

/** 400 for a body that is not the JSON the endpoint takes. */
export function invalidInputBody(detail: string): HubSpotErrorBody {
  return hubSpotError(`Invalid input JSON: ${detail}`, 'VALIDATION_ERROR');
}

/** Default bodies for `failNext` by status, so an injected fault looks like HubSpot's own. */
export function defaultBodyForStatus(status: number): unknown {
  if (status === 401) return unauthorizedBody();
  if (status === 403) return missingScopesBody(['crm.objects.contacts.write']);
  if (status === 429) return rateLimitBody('TEN_SECONDLY_ROLLING');
  if (status === 423) {
    // §1: "upserting thousands of company records in a very short period of time"; wait ≥ 2 s.
    return hubSpotError('The resource you are trying to access is locked. Please try again later.', 'LOCKED');
  }
  if (status === 477) return hubSpotError('Migration in progress.', 'MIGRATION_IN_PROGRESS');
  if (status >= 500) return hubSpotError('internal error', 'INTERNAL_ERROR');
  return hubSpotError(`Injected error ${status}`, 'VALIDATION_ERROR');
}
