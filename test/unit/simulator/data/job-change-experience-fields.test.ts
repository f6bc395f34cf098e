/**
 * The simulator's Job Change experiences carry every field the interface lists for them, none null (the
 * interface allows nulls in Search Contact experiences only): company_linkedin_id and company_linkedin_url
 * were missing on experiences at companies without a LinkedIn page. The list is read from the interface.
 */
import { describe, expect, it } from 'vitest';
import { createSyntheticWorld } from '../../../../src/simulator/data/create-synthetic-world.js';
import { interfaceText } from '../../../helpers/interface-text.js';

/** "Experience fields: a, b (integer), c …" → the field names, in order. */
function experienceFields(): string[] {
  const line = /^Experience fields: (.*)$/m.exec(interfaceText)?.[1] ?? '';
  const list = line.split('.')[0] ?? '';
  return list.split(',').map((part) => part.trim().split(/\s+/)[0] ?? '');
}

const PAST_ONLY = ['end_year', 'end_month', 'end_date'];

describe('Job Change experiences', () => {
  const fields = experienceFields();
  const world = createSyntheticWorld({ seed: 'experience-fields', companyCount: 300 });
  const experiences = Array.from({ length: 800 }, (_, i) =>
    world.jobChange({ professional_email: `person.${i}@company${i % 11}.example` }),
  ).flatMap((answer) => {
    const person = answer.person as { experiences?: Array<Record<string, unknown>> };
    return person.experiences ?? [];
  });

  it('reads the field list from the interface', () => {
    expect(fields).toEqual(
      expect.arrayContaining(['company_linkedin_id', 'company_linkedin_url', 'is_current']),
    );
    expect(fields).toHaveLength(13);
  });

  it('carry every listed field on every experience, none null; end_* exactly on past roles', () => {
    expect(experiences.length).toBeGreaterThan(1000);
    for (const experience of experiences) {
      const expected = fields.filter((f) => !PAST_ONLY.includes(f) || experience.is_current === false);
      expect(Object.keys(experience).sort()).toEqual([...expected].sort());
      for (const field of expected) expect(experience[field], field).not.toBeNull();
    }
  });

  it('name each world company by the LinkedIn page of its own record, and every company has one', () => {
    const byDomain = new Map(world.companies.map((company) => [company.domain, company]));
    expect(world.companies.every((c) => c.linkedin_id !== null && c.linkedin_url !== null)).toBe(true);
    let checked = 0;
    for (const experience of experiences) {
      const company = byDomain.get(String(experience.company_domain));
      if (company === undefined) continue;
      checked += 1;
      expect([experience.company_linkedin_id, experience.company_linkedin_url]).toEqual([
        company.linkedin_id,
        company.linkedin_url,
      ]);
    }
    expect(checked).toBeGreaterThan(100);
  });
});
