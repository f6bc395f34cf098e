import { describe, expect, it } from 'vitest';
import { parseCompanyRevealRequest, parseJobChangeRequest } from '../../../src/contract/requests.js';
import type { ValidationCode } from '../../../src/errors.js';
import { refusal } from './refusal.js';

const BAD = 'VALIDATION_BAD_REQUEST';

describe('parseCompanyRevealRequest', () => {
  it('fills webhook_url and custom_fields and keeps unknown fields', () => {
    expect(parseCompanyRevealRequest({ ip: '8.8.8.8' })).toEqual({
      ip: '8.8.8.8',
      webhook_url: null,
      custom_fields: {},
    });
    const extra = { a: [1] };
    const body = {
      ip: '203.0.113.42',
      webhook_url: 'https://hooks.example.com/cb?x=1',
      custom_fields: { visit: 'v1' },
      x_new: extra,
    };
    const parsed = parseCompanyRevealRequest(body);
    expect(parsed).toEqual(body);
    expect(parsed.x_new).toBe(extra);
  });

  it.each(['0.0.0.0', '255.255.255.255', '10.0.0.1', '192.168.100.200'])('accepts ip %s', (ip) => {
    expect(parseCompanyRevealRequest({ ip }).ip).toBe(ip);
  });

  it.each([
    ['256.0.0.1', '256.0.0.1'],
    ['a leading zero', '01.2.3.4'],
    ['three parts', '1.2.3'],
    ['five parts', '1.2.3.4.5'],
    ['spaces', ' 1.2.3.4'],
    ['IPv6', '::1'],
    ['a hostname', 'example.com'],
    ['a number', 16909060],
    ['null', null],
    ['nothing', undefined],
  ])('refuses ip as %s', (_label, ip) => {
    const error = refusal(parseCompanyRevealRequest, { ip });
    expect(error.code).toBe(BAD);
    expect(error.issues[0]).toMatch(/^ip: /);
  });

  it.each([
    ['null', null, null],
    ['omitted', undefined, null],
    ['http', 'http://127.0.0.1:8080/hook', 'http://127.0.0.1:8080/hook'],
    ['2083 characters', `https://h.example/${'a'.repeat(2065)}`, `https://h.example/${'a'.repeat(2065)}`],
  ])('accepts webhook_url %s', (_label, webhook_url, expected) => {
    expect(parseCompanyRevealRequest({ ip: '1.2.3.4', webhook_url }).webhook_url).toBe(expected);
  });

  it.each([
    ['2084 characters', `https://h.example/${'a'.repeat(2066)}`],
    ['ftp', 'ftp://h.example/x'],
    ['relative', '/webhooks'],
    ['empty', ''],
    ['a number', 5],
    ['an object', { url: 'https://h.example' }],
  ])('refuses webhook_url %s', (_label, webhook_url) => {
    const error = refusal(parseCompanyRevealRequest, { ip: '1.2.3.4', webhook_url });
    expect(error.code).toBe(BAD);
    expect(error.issues[0]).toMatch(/^webhook_url: /);
  });

  it.each([
    ['""', '', 'custom_fields: '],
    ['an array', [], 'custom_fields: '],
    ['a nested value', { a: { b: 1 } }, 'custom_fields.a: '],
  ])('refuses custom_fields %s', (_label, custom_fields, issue) => {
    const error = refusal(parseCompanyRevealRequest, { ip: '1.2.3.4', custom_fields });
    expect(error.code).toBe(BAD);
    expect(error.issues[0]?.startsWith(issue)).toBe(true);
  });

  it.each([undefined, null])('refuses a %s body with VALIDATION_MISSING_BODY', (body) => {
    expect(refusal(parseCompanyRevealRequest, body).code).toBe('VALIDATION_MISSING_BODY');
  });

  it.each([[[]], ['ip=1.2.3.4'], [{}]])('refuses body %j with VALIDATION_BAD_REQUEST', (body) => {
    expect(refusal(parseCompanyRevealRequest, body).code).toBe(BAD);
  });
});

describe('parseJobChangeRequest', () => {
  const NULLS = {
    company_domain: null,
    company_linkedin: null,
    professional_email: null,
    personal_email: null,
    contact_linkedin: null,
    contact_full_name: null,
    webhook_url: null,
    custom_fields: {},
  };

  it.each([
    ['contact_linkedin', { contact_linkedin: 'https://www.linkedin.com/in/maria-keller' }],
    ['professional_email', { professional_email: 'maria.keller@globex.com' }],
    ['personal_email', { personal_email: 'maria+jobs@example.co.uk' }],
    ['contact_full_name', { contact_full_name: 'Maria Keller', company_domain: 'globex.com' }],
  ])('accepts a person identified by %s, every task field present', (_label, body) => {
    expect(parseJobChangeRequest(body)).toEqual({ ...NULLS, ...body });
  });

  it('keeps unknown fields', () => {
    const body = { contact_linkedin: 'maria-keller', x_future: { a: 1 } };
    expect(parseJobChangeRequest(body).x_future).toBe(body.x_future);
  });

  const bad: [string, Record<string, unknown>, ValidationCode, string][] = [
    ['nobody to check', {}, BAD, 'person'],
    ['only the company', { company_domain: 'globex.com', company_linkedin: 'globex' }, BAD, 'person'],
    ['only empty identifiers', { contact_linkedin: '', contact_full_name: null }, BAD, 'person'],
    [
      'an email without @',
      { professional_email: 'maria.globex.com' },
      'VALIDATION_BAD_EMAIL_INVALID',
      'professional_email',
    ],
    [
      'an email without a dot',
      { professional_email: 'maria@globex' },
      'VALIDATION_BAD_EMAIL_INVALID',
      'professional_email',
    ],
    [
      'an email with a space',
      { personal_email: 'maria keller@example.com' },
      'VALIDATION_BAD_EMAIL_INVALID',
      'personal_email',
    ],
    [
      'an email with two @',
      { personal_email: 'a@b@example.com' },
      'VALIDATION_BAD_EMAIL_INVALID',
      'personal_email',
    ],
    [
      'an empty email',
      { personal_email: '', contact_linkedin: 'maria' },
      'VALIDATION_BAD_EMAIL_INVALID',
      'personal_email',
    ],
    [
      'an email of 255 characters',
      { personal_email: `${'a'.repeat(64)}@${'b'.repeat(186)}.com` },
      'VALIDATION_BAD_EMAIL_TOO_LONG',
      'personal_email',
    ],
    ['an email that is a number', { personal_email: 42, contact_linkedin: 'maria' }, BAD, 'personal_email'],
    [
      'a full name of 3 characters',
      { contact_full_name: 'Bob' },
      'VALIDATION_BAD_NAME_INVALID',
      'contact_full_name',
    ],
    [
      'a full name of 251 characters',
      { contact_full_name: 'a'.repeat(251) },
      'VALIDATION_BAD_NAME_INVALID',
      'contact_full_name',
    ],
    ['company_domain a number', { company_domain: 5, contact_linkedin: 'maria' }, BAD, 'company_domain'],
    ['a bad webhook_url', { contact_linkedin: 'maria', webhook_url: 'mailto:x@y.z' }, BAD, 'webhook_url'],
    ['custom_fields ""', { contact_linkedin: 'maria', custom_fields: '' }, BAD, 'custom_fields'],
  ];
  it.each(bad)('refuses %s with %s', (_label, body, code, path) => {
    const error = refusal(parseJobChangeRequest, body);
    expect(error.code).toBe(code);
    expect(error.issues.some((issue) => issue.startsWith(`${path}: `))).toBe(true);
  });

  it('accepts full names of 4 and 250 characters and an email of 254', () => {
    expect(() => parseJobChangeRequest({ contact_full_name: 'Bo L' })).not.toThrow();
    expect(() => parseJobChangeRequest({ contact_full_name: 'a'.repeat(250) })).not.toThrow();
    expect(() =>
      parseJobChangeRequest({ personal_email: `${'a'.repeat(64)}@${'b'.repeat(185)}.com` }),
    ).not.toThrow();
  });

  it.each([undefined, null])('refuses a %s body with VALIDATION_MISSING_BODY', (body) => {
    expect(refusal(parseJobChangeRequest, body).code).toBe('VALIDATION_MISSING_BODY');
  });
});
