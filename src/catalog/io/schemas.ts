/**
 * Loads the JSON Schemas the project ships in `catalog/` (next to `src/` and `dist/`, so the same
 * relative path works from both) and compiles them once per process.
 */
import { readFileSync } from 'node:fs';
import { catalogAjv, compileSchema } from '../definition/schema-validate.js';
import type { CatalogSchemas } from '../definition/load-catalog.js';
import { parseYamlDocument } from '../../base/index.js';
import { compileUpstream } from '../crds/validate.js';
import type { UpstreamSchemaSource, UpstreamValidators } from '../crds/validate.js';

const SCHEMA_DIR = new URL('../../../catalog/', import.meta.url);

let cached: CatalogSchemas | undefined;

/** One schema file of `catalog/` as stored: what the loader compiles and `labelwise schema` prints. */
export function readSchema(name: string): object {
  return JSON.parse(readFileSync(new URL(name, SCHEMA_DIR), 'utf8')) as object;
}

/** The compiled ServiceDefinition, platform and KubeVirt schemas, and the upstream CRDs. */
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
    upstream: upstreamValidators(),
  };
  return cached;
}

let upstream: UpstreamValidators | undefined;

/** A YAML file labelwise ships, read by base's parser; one that does not parse is a bug. */
function shippedYaml(text: string, file: string): unknown {
  const { document, diagnostics } = parseYamlDocument(text, { file, maxAliasCount: 0 });
  const problem = diagnostics[0];
  if (problem !== undefined)
    throw new Error(`a shipped schema does not parse: ${file}: ${problem.message}`);
  return document?.value;
}

/**
 * The upstream CRD schemas stored in `catalog/crds/` (listed with their source and release in
 * `catalog/crds/SOURCES.json`), compiled once per process for strict validation and CEL rules.
 */
export function upstreamValidators(): UpstreamValidators {
  if (upstream !== undefined) return upstream;
  const dir = new URL('crds/', SCHEMA_DIR);
  const index = JSON.parse(readFileSync(new URL('SOURCES.json', dir), 'utf8')) as {
    schemas: Omit<UpstreamSchemaSource, 'document'>[];
  };
  const sources = index.schemas.map((entry) => {
    const text = readFileSync(new URL(entry.file, dir), 'utf8');
    const document: unknown = entry.file.endsWith('.json')
      ? JSON.parse(text)
      : shippedYaml(text, `catalog/crds/${entry.file}`);
    return { ...entry, document };
  });
  upstream = compileUpstream(sources);
  return upstream;
}
