import { describe, expect, it } from 'vitest';
import {
  COMPANY_REVEAL_TYPES,
  CONFIDENCE_SCORES,
  DEPARTMENTS,
  EMPLOYEE_RANGES,
  isTerminalStatus,
  JOB_CHANGE_STATUSES,
  JOB_STATUSES,
  SENIORITIES,
  TERMINAL_STATUSES,
} from '../../../src/contract/enums.js';
import { interfaceText } from '../../helpers/interface-text.js';

/** The comma-separated list that follows `label` in the interface text, up to a '.', '|' or line end. */
function listAfter(label: string): string[] {
  const start = interfaceText.indexOf(label);
  expect(start).toBeGreaterThanOrEqual(0);
  const rest = interfaceText.slice(start + label.length);
  return rest
    .slice(0, rest.search(/[.|\n]/))
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== 'or null');
}

describe('enums', () => {
  it('match the lists of the interface', () => {
    expect([...JOB_STATUSES]).toEqual(listAfter('Job status values: '));
    expect([...DEPARTMENTS]).toEqual(listAfter('Department values: '));
    expect([...SENIORITIES]).toEqual(listAfter('Seniority values: '));
    expect([...EMPLOYEE_RANGES]).toEqual(listAfter('at most 8; values '));
    expect([...COMPANY_REVEAL_TYPES]).toEqual(listAfter('| type | string or null | enum: '));
    expect([...CONFIDENCE_SCORES]).toEqual(listAfter('| confidence_score | string or null | enum: '));
    for (const status of JOB_CHANGE_STATUSES) expect(interfaceText).toMatch(new RegExp(`[ ;]${status}: `));
  });

  it('count every status but RUNNING as terminal', () => {
    expect([...TERMINAL_STATUSES]).toEqual(JOB_STATUSES.filter((s) => s !== 'RUNNING'));
    for (const status of TERMINAL_STATUSES) expect(isTerminalStatus(status)).toBe(true);
    expect(isTerminalStatus('RUNNING')).toBe(false);
    expect(isTerminalStatus('succeeded')).toBe(false);
    expect(isTerminalStatus(undefined)).toBe(false);
  });
});
