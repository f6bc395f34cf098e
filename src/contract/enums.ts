/**
 * The closed value sets of the service interface (Resources and Search Contact request parts), each as a
 * const array, a zod enum and a type.
 */
import { z } from 'zod';

/** Job status values (States and transitions). */
export const JOB_STATUSES = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const jobStatusSchema = z.enum(JOB_STATUSES);

/** Every status but RUNNING: a job in one of these is finished and never goes back to RUNNING. */
export const TERMINAL_STATUSES = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'] as const;
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];
export const terminalStatusSchema = z.enum(TERMINAL_STATUSES);

const TERMINAL_SET: ReadonlySet<unknown> = new Set(TERMINAL_STATUSES);

/** True when `status` is a finished job's status (anything listed but RUNNING). */
export function isTerminalStatus(status: unknown): status is TerminalStatus {
  return TERMINAL_SET.has(status);
}

/** Department values (Resources, Search Contact output). */
export const DEPARTMENTS = [
  'Leadership',
  'Engineering',
  'Product Management',
  'Sales',
  'Marketing',
  'Customer Success',
  'Finance',
  'Accounting',
  'Legal',
  'Human Resources',
  'Information Technology',
  'Operations',
  'Education',
  'Other',
] as const;
export type Department = (typeof DEPARTMENTS)[number];
export const departmentSchema = z.enum(DEPARTMENTS);

/** Seniority values (Resources, Search Contact output). */
export const SENIORITIES = [
  'Owner',
  'CXO',
  'Partner',
  'Vice President',
  'Director',
  'Manager',
  'Senior',
  'Entry',
  'Other',
] as const;
export type Seniority = (typeof SENIORITIES)[number];
export const senioritySchema = z.enum(SENIORITIES);

/** company_employee_ranges values of the Search Contact request. */
export const EMPLOYEE_RANGES = [
  '1-10',
  '11-50',
  '51-200',
  '201-500',
  '501-1000',
  '1001-5000',
  '5001-10000',
  '10001+',
] as const;
export type EmployeeRange = (typeof EMPLOYEE_RANGES)[number];
export const employeeRangeSchema = z.enum(EMPLOYEE_RANGES);

/** job_change_status values of the Job Change output. */
export const JOB_CHANGE_STATUSES = ['moved', 'left', 'no_change', 'unknown'] as const;
export type JobChangeStatus = (typeof JOB_CHANGE_STATUSES)[number];
export const jobChangeStatusSchema = z.enum(JOB_CHANGE_STATUSES);

/** Company Reveal output `type` values (null is also allowed there). */
export const COMPANY_REVEAL_TYPES = ['company', 'education', 'government', 'isp'] as const;
export type CompanyRevealType = (typeof COMPANY_REVEAL_TYPES)[number];
export const companyRevealTypeSchema = z.enum(COMPANY_REVEAL_TYPES);

/** Company Reveal output `confidence_score` values (null is also allowed there). */
export const CONFIDENCE_SCORES = ['very_high', 'high', 'medium', 'low'] as const;
export type ConfidenceScore = (typeof CONFIDENCE_SCORES)[number];
export const confidenceScoreSchema = z.enum(CONFIDENCE_SCORES);

/** What a stored envelope is; `unknown` for a kind this version does not recognise (kept, not refused). */
export const JOB_KINDS = ['company_reveal', 'job_change', 'search_contact', 'unknown'] as const;
export type JobKind = (typeof JOB_KINDS)[number];
export const jobKindSchema = z.enum(JOB_KINDS);
