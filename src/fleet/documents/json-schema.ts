/**
 * The JSON Schema of a Datum document, for editors (yaml-language-server). It is made from the
 * tables the document reader itself checks against — the document types, the fields each type
 * allows (TOP_LEVEL), the `desired` fields of each resource type and their kinds
 * (RESOURCE_SPECS), the name rule — so a field added to the reader appears here. Checks that
 * need the merged resource or the host (required fields after merging, placeholders naming a
 * declared label) stay the reader's: a document the schema accepts can still fail to resolve.
 */
import { DOCUMENT_TYPES, EDGE_KINDS } from '../model.js';
import type { ResourceType } from '../model.js';
import { HEADER, SCHEMA_VERSION, TOP_LEVEL } from './parse-document.js';
import { MAX_NAME_LENGTH, RESOURCE_SPECS } from './resource-fields.js';
import type { FieldKind } from './resource-fields.js';

export const DATUM_SCHEMA_ID = 'https://labelwise.dev/schemas/datum.schema.json';

const NAME_PATTERN = `^[A-Za-z0-9._+-]{1,${MAX_NAME_LENGTH}}$`;
/** Text holding a `{{ … }}` placeholder is checked once the host is known, not here. */
const TEMPLATED = { type: 'string', pattern: '\\{\\{' };

const SCALAR = { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] };

function orTemplated(schema: object): object {
  return { anyOf: [schema, TEMPLATED] };
}

function fieldSchema(kind: FieldKind): object {
  switch (kind.kind) {
    case 'text':
      // Any scalar: the reader takes `value: 60` as the text it is written as.
      return SCALAR;
    case 'enum':
      return orTemplated({ type: 'string', enum: [...kind.values] });
    case 'bool':
      return { type: 'boolean' };
    case 'int':
      return kind.min === undefined ? { type: 'integer' } : { type: 'integer', minimum: kind.min };
    case 'absPath':
      return orTemplated({ type: 'string', pattern: '^/' });
    case 'relPath':
      return orTemplated({ type: 'string', minLength: 1, not: { pattern: '^/' } });
    case 'mode':
      return {
        type: 'string',
        pattern: '^[0-7]{3,4}$',
        description: 'a quoted octal mode such as "0640"',
      };
    case 'name':
      return orTemplated({ type: 'string', pattern: NAME_PATTERN });
    case 'textList':
      return { type: 'array', items: { type: 'string' } };
    case 'nameList':
      return { type: 'array', items: orTemplated({ type: 'string', pattern: NAME_PATTERN }) };
  }
}

function desiredSchema(type: ResourceType): object {
  const properties: Record<string, object> = {};
  for (const [field, kind] of Object.entries(RESOURCE_SPECS[type].fields))
    properties[field] = fieldSchema(kind);
  return { type: 'object', additionalProperties: false, properties };
}

const EDGE_LIST = {
  type: 'array',
  items: { type: 'string', pattern: '^[A-Za-z]+\\[[^\\]]+\\]$' },
  description: 'references such as Package[nginx]',
};

function typeFields(type: (typeof DOCUMENT_TYPES)[number]): Record<string, object> {
  if (type === 'Fleet') return { exclude: { type: 'array', items: { type: 'string' } } };
  if (type === 'Host')
    return {
      labels: {
        type: 'object',
        // Any scalar: the reader takes a label value as the text it is written as.
        additionalProperties: {
          anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }],
        },
      },
    };
  if (type === 'Layer')
    return {
      precedence: { type: 'integer' },
      match: { type: 'object', description: 'a Datum match block: which hosts the layer reaches' },
    };
  const fields: Record<string, object> = { desired: desiredSchema(type) };
  for (const edge of EDGE_KINDS) fields[edge] = EDGE_LIST;
  return fields;
}

/** One `if type is T then T's fields` branch per document type. */
function typeBranch(type: (typeof DOCUMENT_TYPES)[number]): object {
  const fields = typeFields(type);
  const properties: Record<string, object> = {};
  for (const key of HEADER) properties[key] = {};
  for (const key of TOP_LEVEL[type]) properties[key] = fields[key] ?? {};
  return {
    if: { properties: { type: { const: type } }, required: ['type'] },
    then: { properties, additionalProperties: false },
  };
}

/** The schema of one Datum document (every type; a file of several documents uses it for each). */
export function datumDocumentSchema(): object {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: DATUM_SCHEMA_ID,
    title: 'Datum document',
    description:
      'One document of a Datum-style fleet repository: Fleet, Host, Layer or a resource. See docs/fleet.md.',
    type: 'object',
    required: [...HEADER],
    properties: {
      datum: { const: SCHEMA_VERSION },
      type: { enum: [...DOCUMENT_TYPES] },
      name: { type: 'string', pattern: NAME_PATTERN },
    },
    allOf: DOCUMENT_TYPES.map(typeBranch),
  };
}
