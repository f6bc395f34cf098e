/**
 * The destinations file's JSON Schema (issue 40, `hooksync schema destinations`): generated from each
 * registered type's zod schema (destination-types.ts), so a new type or field appears in it with nothing
 * written by hand; descriptions come from docs/destinations.md's field tables.
 */

import { readFieldDescriptions } from '../config/field-descriptions.js';
import {
  describeProperties,
  JSON_SCHEMA_DIALECT,
  type JsonSchema,
  jsonSchemaOf,
} from '../config/json-schema-of.js';
import { DESTINATION_TYPES } from './destination-types.js';

/** The JSON Schema of a destinations file (every type's module is loaded to read its schema). */
export async function destinationsJsonSchema(): Promise<JsonSchema> {
  const types = Object.keys(DESTINATION_TYPES);
  const descriptions = readFieldDescriptions('destinations.md', types);
  const definitions = await Promise.all(
    Object.entries(DESTINATION_TYPES).map(async ([type, load]) => [type, await load()] as const),
  );
  const branches = definitions.map(([type, definition]) => ({
    if: { properties: { type: { const: type } }, required: ['type'] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable.
    then: describeProperties(
      jsonSchemaOf(definition.schema),
      descriptions,
      [type, '*'],
      `see the ${type} destination in docs/destinations.md`,
    ),
  }));
  return {
    $schema: JSON_SCHEMA_DIALECT,
    title: 'hooksync destinations file',
    description:
      'Where hooksync hands each stored job on (docs/destinations.md). Checked in full by hooksync when a command starts; this schema is for editors.',
    type: 'object',
    properties: {
      $schema: { type: 'string', description: 'The schema this file follows; hooksync ignores it.' },
      destinations: {
        type: 'array',
        description: 'The destinations, each with a unique name.',
        items: {
          type: 'object',
          properties: {
            type: {
              enum: types,
              description: `the destination type: ${types.join(', ')}`,
            },
          },
          required: ['name', 'type'],
          allOf: branches,
        },
      },
    },
    required: ['destinations'],
    additionalProperties: false,
  };
}
