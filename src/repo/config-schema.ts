/**
 * The JSON Schema of `labelwise.yaml`, made from the lists readRepoConfig checks against (the
 * part names and the build modules), so a new part or module appears in editors with no second
 * edit. A part is a plain relative directory: not absolute, no `..` segment.
 */
import { BUILD_MODULES, PART_KEYS } from './config.js';

export const CONFIG_SCHEMA_ID = 'https://labelwise.dev/schemas/labelwise-yaml.schema.json';

const RELATIVE_DIR = {
  type: 'string',
  minLength: 1,
  not: { pattern: '^/|(^|/)\\.\\.(/|$)' },
  description: 'a directory inside the repository, relative to its root',
};

/** `only` and `skip` take a list of modules, or the comma-separated text `--only` takes. */
const MODULES = {
  anyOf: [
    { type: 'array', minItems: 1, items: { enum: [...BUILD_MODULES] } },
    {
      type: 'string',
      pattern: `^\\s*(${BUILD_MODULES.join('|')})\\s*(,\\s*(${BUILD_MODULES.join('|')})\\s*)*$`,
    },
  ],
};

export function repoConfigSchema(): object {
  const parts: Record<string, object> = {};
  for (const part of PART_KEYS) parts[part] = RELATIVE_DIR;
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: CONFIG_SCHEMA_ID,
    title: 'labelwise.yaml',
    description: 'Where each part of the repository lives and which parts to build. See README.md.',
    type: 'object',
    additionalProperties: false,
    properties: {
      parts: { type: 'object', additionalProperties: false, properties: parts },
      only: MODULES,
      skip: MODULES,
    },
  };
}
