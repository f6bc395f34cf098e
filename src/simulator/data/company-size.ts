/**
 * Employee-size buckets (Company.size, company_employee_ranges) with the share of companies in each and
 * the head-count range a company of that bucket has.
 */
import type { EmployeeRange } from '../../contract/enums.js';
import type { SeededRandom, Weighted } from './seeded-random.js';

/** Head-count bounds of each bucket; 10001+ is capped at a large but plausible 300 000. */
export const EMPLOYEE_RANGE_BOUNDS: Readonly<Record<EmployeeRange, readonly [min: number, max: number]>> = {
  '1-10': [1, 10],
  '11-50': [11, 50],
  '51-200': [51, 200],
  '201-500': [201, 500],
  '501-1000': [501, 1000],
  '1001-5000': [1001, 5000],
  '5001-10000': [5001, 10000],
  '10001+': [10001, 300000],
};

/** Share of synthetic companies per bucket: mostly small and mid-sized, as in any B2B data set. */
export const EMPLOYEE_RANGE_WEIGHTS: readonly Weighted<EmployeeRange>[] = [
  ['1-10', 12],
  ['11-50', 24],
  ['51-200', 25],
  ['201-500', 14],
  ['501-1000', 9],
  ['1001-5000', 9],
  ['5001-10000', 4],
  ['10001+', 3],
];

/**
 * A bucket and a head count inside it, skewed towards the bucket's low end as real head counts are. Only
 * exact arithmetic (no exp/log, whose last bits may vary by platform), so worlds match byte for byte.
 */
export function drawCompanySize(random: SeededRandom): { size: EmployeeRange; employees: number } {
  const size = random.weighted(EMPLOYEE_RANGE_WEIGHTS);
  const [min, max] = EMPLOYEE_RANGE_BOUNDS[size];
  const u = random.next();
  return { size, employees: Math.min(max, min + Math.floor((max - min + 1) * u * u * u)) };
}

/** The position of a bucket among the eight, 0 for 1-10 up to 7 for 10001+. */
export function sizeRank(size: EmployeeRange): number {
  return EMPLOYEE_RANGE_WEIGHTS.findIndex(([range]) => range === size);
}
