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

const NAMESPACE = { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$' };
const CIDRS = { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] };

/** `policy:` (config-policy.ts): the namespaces and cluster settings the policy part runs with. */
const POLICY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    namespace: NAMESPACE,
    namespaces: { type: 'object', additionalProperties: NAMESPACE },
    settings: {
      type: 'object',
      additionalProperties: false,
      properties: {
        defaultPolicy: { type: 'string' },
        clusterNetworks: CIDRS,
        probeNetworks: CIDRS,
        identityDomain: { type: 'string' },
        controlPlaneNamespace: { type: 'string' },
      },
    },
  },
};

/** `compose.projects:` the stacks as they are run, `-f` files and `-p` name. */
const COMPOSE = {
  type: 'object',
  additionalProperties: false,
  properties: {
    projects: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['files'],
        properties: {
          files: { type: 'array', minItems: 1, items: RELATIVE_DIR },
          name: { type: 'string' },
        },
      },
    },
  },
};

/** `accept:` (base/accepted.ts): findings marked intended, each with its reason. */
const ACCEPT = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['code', 'reason'],
    properties: {
      code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
      object: { type: 'string' },
      file: RELATIVE_DIR,
      reason: { type: 'string', minLength: 1 },
    },
  },
};

export function repoConfigSchema(): object {
  const parts: Record<string, object> = {};
  for (const part of PART_KEYS) parts[part] = RELATIVE_DIR;
  parts['policy'] = {
    ...RELATIVE_DIR,
    description: 'a directory inside the repository, or one YAML file (kubectl apply -f FILE)',
  };
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
      compose: COMPOSE,
      policy: POLICY,
      accept: ACCEPT,
    },
  };
}
