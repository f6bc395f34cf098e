/**
 * Salesforce's search, as adoption uses it (at sync time and in `setup`), by SOQL: an Account by the domain
 * typed into its Website (any spelling, matched loosely, then by its host) or by its exact Name; a Contact
 * (or Lead) by its Email; a Contact by its LinkedIn field (when the org has it) or by its LastName, its
 * FirstName then compared, with its Account (AccountId, Account.Website) to tell the company. Each query's
 * URI stays under 2,000 characters (soql.ts).
 */
import { CrmError } from '../../errors.js';
import type { CrmAdapter, SearchCandidate } from '../crm/crm-adapter.js';
import {
  normalizeDomain,
  normalizeEmail,
  normalizeLinkedinUrl,
  normalizeName,
} from '../crm/normalize-keys.js';
import type { SalesforceClient } from './salesforce-client.js';
import { containsQueries, keyQueries, queryAll } from './soql.js';

/** The fields search reads besides the keys. */
export interface SearchOrgFields {
  readonly accountKey: string;
  readonly personKey: string;
  /** The Contact field holding a LinkedIn profile URL (a custom field: searched only where the org has it). */
  readonly linkedin: string | undefined;
}

function keyOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim().toLowerCase() : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** How an org commonly spells a profile URL that normalizes to `url` (https://www.linkedin.com/in/slug). */
function linkedinSpellings(url: string): string[] {
  const bare = url.replace(/^https:\/\/www\./, '');
  return [url, `${url}/`, `https://${bare}`, `http://www.${bare}`, `www.${bare}`, bare];
}

/** Creates the search of an org (CrmAdapter.search). */
export function searchOrg(
  client: SalesforceClient,
  fields: SearchOrgFields,
): NonNullable<CrmAdapter['search']> {
  const { accountKey, personKey, linkedin } = fields;
  return async (object, field, values, _keyProperty, signal) => {
    const found = new Map<string, SearchCandidate[]>();
    const add = (value: string, candidate: SearchCandidate) => {
      const list = found.get(value) ?? [];
      if (!list.some((c) => c.id === candidate.id)) list.push(candidate);
      found.set(value, list);
    };
    const rows = async (queries: readonly string[]) => {
      const all: Array<Record<string, unknown>> = [];
      for (const soql of queries) all.push(...(await queryAll(client, soql, signal)));
      return all;
    };
    const contactOf = (row: Record<string, unknown>): SearchCandidate => {
      const account = row.Account as Record<string, unknown> | null | undefined;
      const companyDomain = normalizeDomain(text(account?.Website));
      const email = normalizeEmail(text(row.Email));
      return {
        id: String(row.Id),
        key: keyOf(row[personKey]),
        ...(typeof row.AccountId === 'string' ? { companyId: row.AccountId } : {}),
        ...(email !== undefined ? { email } : {}),
        ...(companyDomain !== undefined ? { companyDomain } : {}),
      };
    };
    const base = client.base;
    if (object === 'companies' && field === 'domain') {
      // A Website is typed in any spelling (https://www.acme.com/): matched loosely, then by its domain.
      const wanted = new Set(values);
      for (const row of await rows(
        containsQueries({ base, object: 'Account', fields: [accountKey], field: 'Website', values }),
      )) {
        const domain = normalizeDomain(text(row.Website));
        if (domain !== undefined && wanted.has(domain))
          add(domain, { id: String(row.Id), key: keyOf(row[accountKey]) });
      }
    } else if (object === 'companies' && field === 'name') {
      const wanted = new Map(values.map((value) => [normalizeName(value), value]));
      const query = keyQueries({
        base,
        object: 'Account',
        fields: [accountKey, 'Website'],
        keyField: 'Name',
        keys: values,
      });
      for (const row of await rows(query)) {
        const value = wanted.get(normalizeName(text(row.Name)));
        const domain = normalizeDomain(text(row.Website));
        if (value !== undefined)
          add(value, {
            id: String(row.Id),
            key: keyOf(row[accountKey]),
            ...(domain !== undefined ? { domain } : {}),
          });
      }
    } else if (object === 'contacts' && field === 'email') {
      const wanted = new Set(values);
      for (const sobject of ['Contact', 'Lead'])
        for (const row of await rows(
          keyQueries({ base, object: sobject, fields: [personKey], keyField: 'Email', keys: values }),
        )) {
          const email = normalizeEmail(text(row.Email));
          if (email !== undefined && wanted.has(email))
            add(email, { id: String(row.Id), key: keyOf(row[personKey]) });
        }
    } else if (object === 'contacts' && field === 'linkedinUrl' && linkedin !== undefined) {
      const wanted = new Set(values);
      const query = keyQueries({
        base,
        object: 'Contact',
        fields: [personKey, 'AccountId'],
        keyField: linkedin,
        keys: values.flatMap(linkedinSpellings),
      });
      let held: Array<Record<string, unknown>>;
      try {
        held = await rows(query);
      } catch (error) {
        // An org without the field: nothing to find by it (setup reports the missing field).
        if (error instanceof CrmError && error.status === 400) return found;
        throw error;
      }
      for (const row of held) {
        const url = normalizeLinkedinUrl(text(row[linkedin]));
        if (url !== undefined && wanted.has(url)) add(url, contactOf(row));
      }
    } else if (object === 'contacts' && field === 'fullName') {
      // By LastName as the service spells it and without its accents; FirstName compared after.
      const wanted = new Map<string, string>();
      const lastNames = new Set<string>();
      for (const value of values) {
        const [first, last] = value.split('\t');
        wanted.set(`${normalizeName(first)}\t${normalizeName(last)}`, value);
        lastNames.add(last ?? '');
        lastNames.add((last ?? '').normalize('NFKD').replace(/\p{M}/gu, ''));
      }
      const query = keyQueries({
        base,
        object: 'Contact',
        fields: [personKey, 'FirstName', 'Email', 'AccountId', 'Account.Website'],
        keyField: 'LastName',
        keys: [...lastNames].filter((name) => name !== ''),
      });
      for (const row of await rows(query)) {
        const value = wanted.get(
          `${normalizeName(text(row.FirstName))}\t${normalizeName(text(row.LastName))}`,
        );
        if (value !== undefined) add(value, contactOf(row));
      }
    }
    return found;
  };
}
