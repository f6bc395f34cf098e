/**
 * JSON Schema (draft 2020-12) from the zod schemas that validate hooksync's config files (issue 40), through
 * zod 4's own z.toJSONSchema: what a file's input may hold (before durations, rates and secrets are read),
 * with the docs' descriptions laid over its properties. What zod checks in code (a duration's syntax, a
 * secret's environment variable, names unique in the file) is not in the schema: hooksync's own check stays
 * the last word.
 */
import { z } from 'zod';
import type { FieldDescriptions } from './field-descriptions.js';

/** A JSON Schema object. */
export type JsonSchema = { [key: string]: unknown };

/** The dialect every schema hooksync prints declares. */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** `schema`'s input as JSON Schema, without its own `$schema` (it is embedded in a file's schema). */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    // A value read by code (a rate in either of its forms) is left open: hooksync's check decides.
    unrepresentable: 'any',
  }) as JsonSchema;
  return rest;
}

/**
 * Sets each property's description (recursively through nested objects, as `a.b`) from `scopes`, the
 * first that describes it; a property none describes gets `fallback`.
 */
export function describeProperties(
  schema: JsonSchema,
  descriptions: FieldDescriptions,
  scopes: readonly string[],
  fallback: string,
  prefix = '',
): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties === undefined) return schema;
  for (const [name, property] of Object.entries(properties)) {
    const path = `${prefix}${name}`;
    const text =
      scopes.map((scope) => descriptions.get(scope)?.get(path)).find((found) => found !== undefined) ??
      childDescription(descriptions, scopes, path);
    if (property.description === undefined) {
      property.description = text ?? (prefix === '' ? fallback : undefined);
      if (property.description === undefined) delete property.description;
    }
    describeProperties(property, descriptions, scopes, fallback, `${path}.`);
  }
  return schema;
}

/** For an object whose fields the docs describe one by one (`retry.schedule`): those fields' descriptions. */
function childDescription(
  descriptions: FieldDescriptions,
  scopes: readonly string[],
  path: string,
): string | undefined {
  for (const scope of scopes) {
    const children = [...(descriptions.get(scope) ?? [])].filter(([field]) => field.startsWith(`${path}.`));
    if (children.length > 0) return children.map(([field, text]) => `${field}: ${text}`).join('; ');
  }
  return undefined;
}
