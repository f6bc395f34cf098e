/**
 * Month arithmetic for synthetic careers and funding histories. Roles start and end on a month (the
 * date written as its first day, YYYY-MM-01), as profile data usually has month precision.
 */
import { isIsoDate } from '../../contract/formats.js';

/** Months since year 0: year × 12 + (month − 1). Differences are durations in months. */
export type MonthIndex = number;

/** The default "today" of a synthetic world: fixed, so the same seed gives the same world on any day. */
export const DEFAULT_REFERENCE_DATE = '2025-06-30';

/** The month index of a calendar year and month (1-12). */
export function toMonthIndex(year: number, month: number): MonthIndex {
  return year * 12 + (month - 1);
}

/** The calendar year of a month index. */
export function yearOf(index: MonthIndex): number {
  return Math.floor(index / 12);
}

/** The calendar month (1-12) of a month index. */
export function monthOf(index: MonthIndex): number {
  return (index % 12) + 1;
}

/** `YYYY-MM-DD` from its parts (the caller guarantees a real date). */
export function formatIsoDate(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The first day of a month index, `YYYY-MM-01`. */
export function formatMonthStart(index: MonthIndex): string {
  return formatIsoDate(yearOf(index), monthOf(index), 1);
}

/** The month index of a `YYYY-MM-DD` date; TypeError for anything else. */
export function monthIndexOfDate(date: string): MonthIndex {
  if (!isIsoDate(date)) throw new TypeError(`expected a date YYYY-MM-DD, got ${JSON.stringify(date)}`);
  return toMonthIndex(Number(date.slice(0, 4)), Number(date.slice(5, 7)));
}
