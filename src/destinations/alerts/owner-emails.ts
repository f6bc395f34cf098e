/**
 * The e-mail of a change's owner, asked once per contact and kept for an hour (about a watch cycle's
 * pass): the carried `owner_email` first; else, when the destination names a CRM destination in
 * `owner_crm`, that CRM's owner of the contact the watch carried (HubSpot `hubspot_owner_id` → owners API;
 * Salesforce `Owner.Email`; Pipedrive `owner_id` → user), through the CRM adapter's owner role.
 */
import { CrmError } from '../../errors.js';
import { crmTroubleResult } from '../crm/crm-trouble.js';
import type { AttemptResult, OwnerLookup } from '../destination-type.js';
import type { AlertChange } from './alert-change.js';

/** How long an owner found (or not found) is kept. */
export const OWNER_CACHE_MS = 3_600_000;
/** Contacts whose owner is kept at most (the oldest are forgotten first). */
export const OWNER_CACHE_SIZE = 10_000;

/** An owner's e-mail, why there is none, or trouble asking. */
export type OwnerEmail =
  | { readonly email: string }
  | { readonly unknown: string }
  | { readonly trouble: AttemptResult };

/** Finds owners' e-mails. */
export interface OwnerEmails {
  ownerEmail(change: AlertChange, signal: AbortSignal): Promise<OwnerEmail>;
}

/** What a CRM's trouble means for the event (a lookup that failed otherwise is retried). */
export function troubleOf(error: unknown): AttemptResult {
  if (error instanceof CrmError) return crmTroubleResult(error);
  return { outcome: 'retry', status: null, error: `owner lookup failed: ${(error as Error).message}` };
}

/** Owners from carried fields and, when given, a CRM (`crm` names it in messages). */
export function createOwnerEmails(options: {
  readonly lookup: OwnerLookup | undefined;
  readonly crm: string | undefined;
  readonly now: () => number;
}): OwnerEmails {
  // Answers by contact, kept as promises so that changes of one contact delivered at once ask once.
  const cache = new Map<string, { readonly at: number; readonly email: Promise<string | undefined> }>();
  return {
    async ownerEmail(change, signal) {
      const carried = change.fields.owner_email?.trim();
      if (carried?.includes('@')) return { email: carried };
      const lookup = options.lookup;
      if (lookup === undefined) {
        return { unknown: 'the change carries no owner_email (and no owner_crm is set)' };
      }
      const key = `${change.watch}\u0000${JSON.stringify(change.fields)}`;
      let held = cache.get(key);
      if (held === undefined || options.now() - held.at >= OWNER_CACHE_MS) {
        held = { at: options.now(), email: lookup(change.fields, signal) };
        cache.delete(key);
        cache.set(key, held);
        if (cache.size > OWNER_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      let email: string | undefined;
      try {
        email = await held.email;
      } catch (error) {
        // Trouble is not an answer: the next delivery asks again.
        if (cache.get(key) === held) cache.delete(key);
        return { trouble: troubleOf(error) };
      }
      return email === undefined
        ? { unknown: `${options.crm ?? 'the CRM'} names no owner (with an e-mail) for the contact` }
        : { email };
    },
  };
}
