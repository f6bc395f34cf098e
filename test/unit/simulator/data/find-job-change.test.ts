import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJobChangeRequest } from '../../../../src/contract/requests.js';
import { type JobChangePerson, jobChangeOutputSchema } from '../../../../src/contract/resources.js';
import { createSyntheticWorld } from '../../../../src/simulator/data/create-synthetic-world.js';
import { JOB_CHANGE_STATUS_WEIGHTS } from '../../../../src/simulator/data/find-job-change.js';
import { searchRequest, USAGE } from './world-fixtures.js';

const world = createSyntheticWorld({ seed: 'job-change-test', companyCount: 150 });
const emails = Array.from({ length: 600 }, (_, i) => `contact.${i}@example${i % 7}.com`);
const answers = emails.map((professional_email) => world.jobChange({ professional_email }));
const withStatus = (status: string) => answers.filter((a) => a.job_change_status === status);

describe('world.jobChange', () => {
  it('yields all four statuses in the documented proportions (± 6 points over 600 contacts)', () => {
    const total = JOB_CHANGE_STATUS_WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [status, weight] of JOB_CHANGE_STATUS_WEIGHTS) {
      expect(Math.abs(withStatus(status).length / answers.length - weight / total), status).toBeLessThan(
        0.06,
      );
    }
  });

  it('answers a Job Change output the contract accepts, for any request the contract accepts', () => {
    const text = fc.option(fc.string({ minLength: 1, maxLength: 40 }), { nil: null });
    const email = fc.option(fc.emailAddress(), { nil: null });
    const request = fc
      .record({
        company_domain: fc.option(fc.domain(), { nil: null }),
        company_linkedin: text,
        professional_email: email,
        personal_email: email,
        contact_linkedin: text,
        contact_full_name: fc.option(fc.string({ minLength: 4, maxLength: 60 }), { nil: null }),
      })
      .filter(
        (r) =>
          r.contact_linkedin !== null ||
          r.professional_email !== null ||
          r.personal_email !== null ||
          r.contact_full_name !== null,
      );
    fc.assert(
      fc.property(request, (input) => {
        const answer = world.jobChange(parseJobChangeRequest(input));
        const parsed = jobChangeOutputSchema.safeParse({ ...answer, usage: USAGE });
        expect(parsed.error?.issues ?? []).toEqual([]);
        expect(world.jobChange(input)).toEqual(answer);
      }),
      { seed: 5, numRuns: 150 },
    );
  });

  it('is deterministic per contact, in this world and in a twin', () => {
    const twin = createSyntheticWorld({ seed: 'job-change-test', companyCount: 150 });
    expect(JSON.stringify(emails.map((professional_email) => twin.jobChange({ professional_email })))).toBe(
      JSON.stringify(answers),
    );
    // The status follows the person, not the spelling of the request.
    expect(world.jobChange({ professional_email: ' Contact.5@EXAMPLE5.com ' })).toEqual(answers[5]);
  });

  it('moved: a new current role at another company, the previous one ended before it began', () => {
    const moved = withStatus('moved');
    expect(moved.length).toBeGreaterThan(0);
    for (const { person } of moved) {
      const p = person as JobChangePerson;
      const [current, previous, ...older] = p.experiences;
      expect(current!.is_current).toBe(true);
      expect(current!.end_date).toBeUndefined();
      expect(p.company_name).toBe(current!.company_name);
      expect(p.title).toBe(current!.title);
      expect(p.seniority).not.toBeNull();
      expect(previous!.is_current).toBe(false);
      expect(previous!.company_domain).not.toBe(current!.company_domain);
      expect(previous!.end_date! <= current!.start_date!).toBe(true);
      expect(current!.start_date! <= world.referenceDate).toBe(true);
      for (const role of older) expect(role.is_current).toBe(false);
    }
  });

  it('left: no current role, employer fields null, every experience ended', () => {
    const left = withStatus('left');
    expect(left.length).toBeGreaterThan(0);
    for (const { person } of left) {
      const p = person as JobChangePerson;
      expect([
        p.company_name,
        p.company_domain,
        p.company_linkedin_id,
        p.title,
        p.seniority,
        p.department,
      ]).toEqual([null, null, null, null, null, null]);
      expect(p.experiences.length).toBeGreaterThan(0);
      for (const role of p.experiences) {
        expect(role.is_current).toBe(false);
        expect(role.end_date! >= role.start_date!).toBe(true);
      }
    }
  });

  it('no_change and unknown: person {}', () => {
    for (const status of ['no_change', 'unknown']) {
      expect(withStatus(status).length).toBeGreaterThan(0);
      for (const answer of withStatus(status)) expect(answer.person).toEqual({});
    }
  });

  it('keeps the identity of a known profile, and leaves the company it was at', () => {
    const people = world.companies
      .flatMap((c) => world.searchContacts(searchRequest({ domain: c.domain, page_size: 250 })).persons)
      .slice(0, 300);
    let changed = 0;
    for (const before of people) {
      const answer = world.jobChange({ contact_linkedin: before.linkedin_url! });
      if (answer.job_change_status !== 'moved' && answer.job_change_status !== 'left') continue;
      changed += 1;
      expect(answer.person.id).toBe(before.id);
      expect(answer.person.linkedin_id).toBe(before.linkedin_id);
      expect(`${answer.person.first_name} ${answer.person.last_name}`).toBe(
        `${before.first_name} ${before.last_name}`,
      );
      const ended = answer.person.experiences[answer.job_change_status === 'moved' ? 1 : 0]!;
      expect(ended.company_domain).toBe(before.company_domain);
      expect(ended.start_date).toBe(before.experiences[0]!.start_date);
      if (answer.job_change_status === 'moved')
        expect(answer.person.company_domain).not.toBe(before.company_domain);
    }
    expect(changed).toBeGreaterThan(50);
  });

  it('uses the full name and company a request gives', () => {
    const names = Array.from({ length: 40 }, (_, i) => `Renée O'Brien-${i} Łukasiewicz`);
    const changed = names
      .map((contact_full_name) =>
        world.jobChange({ contact_full_name, company_domain: 'old-employer.example' }),
      )
      .filter((a) => a.job_change_status === 'moved' || a.job_change_status === 'left');
    expect(changed.length).toBeGreaterThan(5);
    for (const answer of changed) {
      const p = answer.person as JobChangePerson;
      expect(p.first_name).toBe('Renée');
      expect(p.last_name).toMatch(/^O'Brien-\d+ Łukasiewicz$/);
      const ended = p.experiences[answer.job_change_status === 'moved' ? 1 : 0]!;
      expect(ended.company_domain).toBe('old-employer.example');
    }
  });

  it('describes the contact asked about: their name and LinkedIn URL, with the new or missing role', () => {
    const people = world.companies
      .flatMap((c) => world.searchContacts(searchRequest({ domain: c.domain, page_size: 50 })).persons)
      .slice(0, 200);
    let changed = 0;
    people.forEach((before, i) => {
      // A CRM row: someone's name with a LinkedIn URL that the world knows under another name.
      const contact_full_name = `Kofi Doe-${i}`;
      const answer = world.jobChange({ contact_full_name, contact_linkedin: before.linkedin_url! });
      if (answer.job_change_status !== 'moved' && answer.job_change_status !== 'left') return;
      changed += 1;
      expect([answer.person.first_name, answer.person.last_name]).toEqual(['Kofi', `Doe-${i}`]);
      expect(answer.person.linkedin_url).toBe(before.linkedin_url);
      expect(answer.person.title === null).toBe(answer.job_change_status === 'left');
    });
    expect(changed).toBeGreaterThan(20);
  });

  it('puts no null in Job Change experiences (the interface allows them in Search Contact ones only)', () => {
    const experiences = answers.flatMap((a) => ('experiences' in a.person ? a.person.experiences : []));
    expect(experiences.length).toBeGreaterThan(100);
    const nulls = experiences.flatMap((e) =>
      Object.entries(e)
        .filter(([, value]) => value === null)
        .map(([key]) => key),
    );
    expect(nulls).toEqual([]);
  });

  it('answers unknown when nothing identifies the person', () => {
    expect(world.jobChange({})).toEqual({ job_change_status: 'unknown', person: {} });
    expect(world.jobChange({ company_domain: 'acme.com', contact_linkedin: '  ' })).toEqual({
      job_change_status: 'unknown',
      person: {},
    });
  });
});
