/**
 * The watches file's JSON Schema (issue 40, `hooksync schema watches`): generated from the zod schema that
 * validates each watch (load-watches.ts) with every registered watch source (`from.<type>`, each type's own
 * schema), with docs/watches.md's field table as descriptions.
 */

import { readFieldDescriptions } from '../config/field-descriptions.js';
import {
  describeProperties,
  JSON_SCHEMA_DIALECT,
  type JsonSchema,
  jsonSchemaOf,
} from '../config/json-schema-of.js';
import { watchSchemaOf, watchSourceTypes } from './load-watches.js';

/** The JSON Schema of a watches file (every destination type's module is loaded to read its source). */
export async function watchesJsonSchema(): Promise<JsonSchema> {
  const watchSchema = watchSchemaOf(await watchSourceTypes());
  const descriptions = readFieldDescriptions('watches.md', ['watches file']);
  return {
    $schema: JSON_SCHEMA_DIALECT,
    title: 'hooksync watches file',
    description:
      'Lists hooksync re-checks every cycle (docs/watches.md). Checked in full by hooksync when a command starts; this schema is for editors.',
    type: 'object',
    properties: {
      $schema: { type: 'string', description: 'The schema this file follows; hooksync ignores it.' },
      watches: {
        type: 'array',
        description: 'The watches, each with a unique name.',
        items: describeProperties(
          jsonSchemaOf(watchSchema),
          descriptions,
          ['watches file'],
          'see docs/watches.md',
        ),
      },
    },
    required: ['watches'],
    additionalProperties: false,
  };
}
