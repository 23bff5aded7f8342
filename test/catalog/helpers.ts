// Shared fixtures for the catalog tests: the example catalog, and small in-memory catalogs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { RepoReader } from '../../src/base/index.js';
import {
  catalogSchemas,
  readAppsDir,
  readCatalogDir,
  runCatalog,
} from '../../src/catalog/index.js';
import type { CatalogInput, CatalogRun, KubeObject } from '../../src/catalog/index.js';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const EXAMPLE_CATALOG = join(REPO, 'examples/homelab/catalog');
export const EXAMPLE_APPS = join(REPO, 'examples/homelab/apps');

export const PLATFORM_TEXT = readFileSync(join(EXAMPLE_CATALOG, 'platform.yaml'), 'utf8');

/** Runs the example catalog, optionally against its checked-in apps directory. */
export function runExample(withApps = false): CatalogRun {
  const reader = RepoReader.open(REPO);
  const input = readCatalogDir(reader, 'examples/homelab/catalog');
  const names = input.definitions.map((d) =>
    (d.file.split('/').pop() ?? '').replace(/\.ya?ml$/, ''),
  );
  return runCatalog(
    input,
    catalogSchemas(),
    withApps ? { apps: readAppsDir(reader, 'examples/homelab/apps', names) } : {},
  );
}

/** An in-memory catalog: `files` maps a file name under `catalog/` to its text. */
export function catalogOf(
  files: Record<string, string>,
  platform: string | undefined = PLATFORM_TEXT,
): CatalogInput {
  return {
    dir: 'catalog',
    platform:
      platform === undefined ? undefined : { file: 'catalog/platform.yaml', text: platform },
    definitions: Object.entries(files).map(([name, text]) => ({ file: `catalog/${name}`, text })),
  };
}

export function runOf(files: Record<string, string>, apps?: Record<string, string>): CatalogRun {
  return runCatalog(catalogOf(files), catalogSchemas(), apps === undefined ? {} : { apps });
}

/** The rendered objects of one service. */
export function objectsOf(run: CatalogRun, service: string): readonly KubeObject[] {
  const found = run.rendered.find((r) => r.service === service);
  if (found === undefined) throw new Error(`service ${service} was not rendered`);
  return found.objects;
}

export function find(
  objects: readonly KubeObject[],
  kind: string,
  name?: string,
): KubeObject | undefined {
  return objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
}

/** Reads a nested field of plain data (tests only). */
export function at(value: unknown, ...path: (string | number)[]): unknown {
  let current: unknown = value;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[part];
  }
  return current;
}

/** Deep copy for building broken variants of rendered objects. */
export function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
