/**
 * Loads the JSON Schemas the project ships in `catalog/` (next to `src/` and `dist/`, so the same
 * relative path works from both) and compiles them once per process.
 */
import { readFileSync } from 'node:fs';
import { catalogAjv, compileSchema } from '../schema-validate.js';
import type { CatalogSchemas } from '../load-catalog.js';

const SCHEMA_DIR = new URL('../../../catalog/', import.meta.url);

let cached: CatalogSchemas | undefined;

function readSchema(name: string): object {
  return JSON.parse(readFileSync(new URL(name, SCHEMA_DIR), 'utf8')) as object;
}

/** The compiled ServiceDefinition, platform and KubeVirt schemas. */
export function catalogSchemas(): CatalogSchemas {
  if (cached !== undefined) return cached;
  const ajv = catalogAjv();
  cached = {
    serviceDefinition: compileSchema(
      readSchema('servicedefinition.schema.json'),
      'CATALOG_SCHEMA',
      ajv,
    ),
    platform: compileSchema(readSchema('platform.schema.json'), 'CATALOG_PLATFORM_SCHEMA', ajv),
    virtualMachine: ajv.compile(readSchema('kubevirt-virtualmachine.schema.json')),
  };
  return cached;
}
