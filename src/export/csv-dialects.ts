/**
 * The two CSV dialects. Both are UTF-8, comma-separated, quoted by csv-stringify only where RFC 4180 needs
 * it, and formula-guarded.
 * - excel: a byte order mark (without it Excel reads UTF-8 as the local code page) and CRLF line ends.
 * - crm-import: no BOM (Salesforce would read it as part of the first header) and LF line ends (the
 *   Bulk API 2.0 default `lineEnding`; HubSpot and Pipedrive accept either).
 */

/** Dialect names, as templates and --dialect spell them. */
export const CSV_DIALECT_NAMES = ['excel', 'crm-import'] as const;
/** One of {@link CSV_DIALECT_NAMES}. */
export type CsvDialectName = (typeof CSV_DIALECT_NAMES)[number];

/** What a dialect changes in the bytes written. */
export interface CsvDialect {
  readonly name: CsvDialectName;
  readonly bom: boolean;
  readonly recordDelimiter: '\r\n' | '\n';
}

/** The dialects by name. */
export const CSV_DIALECTS: Readonly<Record<CsvDialectName, CsvDialect>> = Object.freeze({
  excel: Object.freeze({ name: 'excel', bom: true, recordDelimiter: '\r\n' }),
  'crm-import': Object.freeze({ name: 'crm-import', bom: false, recordDelimiter: '\n' }),
});

/** True when `name` is a dialect name. */
export function isCsvDialectName(name: unknown): name is CsvDialectName {
  return typeof name === 'string' && (CSV_DIALECT_NAMES as readonly string[]).includes(name);
}
