/**
 * The JSON Schemas editors use: `labelwise schema KIND` prints one per kind, the generated ones
 * are shipped as written by the command, every file of the example validates against its
 * schema, and a known-bad file of each kind fails both the schema and the real loader.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ajv } from 'ajv';
import picomatch from 'picomatch';
import type { ValidateFunction } from 'ajv';
import { RepoReader, parseYamlDocuments } from '../../src/base/index.js';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { loadFleetDir } from '../../src/fleet/index.js';
import { loadPolicyDir } from '../../src/policy/index.js';
import { readRepoConfig } from '../../src/repo/index.js';
import { generatedSchemas } from '../../scripts/write-schemas.js';
import { tempDir } from './support.js';

const ROOT = join(import.meta.dirname, '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'homelab');
const FIXTURES = join(import.meta.dirname, 'fixtures', 'schemas');

async function schemaOf(kind: string): Promise<object> {
  const io = memoryIO();
  assert.equal(await run(['schema', kind], io), 0, io.err);
  return JSON.parse(io.out) as object;
}

/** A validator as strict as the catalog's: a schema with an unknown keyword does not compile. */
async function validatorOf(kind: string): Promise<ValidateFunction> {
  const ajv = new Ajv({
    allErrors: true,
    strict: true,
    strictTuples: false,
    strictRequired: false,
  });
  return ajv.compile(await schemaOf(kind));
}

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...yamlFiles(path));
    else if (/\.ya?ml$/.test(entry)) out.push(path);
  }
  return out;
}

function documentsOf(path: string): unknown[] {
  const { documents, diagnostics } = parseYamlDocuments(readFileSync(path, 'utf8'), {
    file: path,
  });
  assert.deepEqual(diagnostics, [], `${path} parses`);
  return documents.map((document) => document.value).filter((value) => value != null);
}

/** The YAML files a fleet reads: those its Fleet document's `exclude` globs leave in. */
async function fleetFiles(dir: string): Promise<string[]> {
  const excluded = picomatch([...((await loadFleetDir(dir)).fleet?.exclude ?? [])]);
  return yamlFiles(dir).filter((file) => !excluded(relative(dir, file)));
}

/** Every document of `files` that `validate` rejects, with ajv's first error. */
function rejected(validate: ValidateFunction, files: readonly string[]): string[] {
  const out: string[] = [];
  for (const file of files)
    documentsOf(file).forEach((value, i) => {
      if (!validate(value))
        out.push(`${relative(ROOT, file)}#${i}: ${JSON.stringify(validate.errors?.[0])}`);
    });
  return out;
}

test('labelwise schema lists every kind and prints a schema for each', async () => {
  const io = memoryIO();
  assert.equal(await run(['schema', '--json'], io), 0, io.err);
  const { kinds } = JSON.parse(io.out) as { kinds: { kind: string; file: string }[] };
  assert.deepEqual(
    kinds.map((k) => k.kind),
    ['servicedefinition', 'platform', 'datum', 'labelwise-yaml', 'policy-extension'],
  );
  for (const { kind, file } of kinds) {
    const schema = (await schemaOf(kind)) as { $id?: string; title?: string };
    assert.ok(typeof schema.title === 'string' && schema.$id?.startsWith('https://'), kind);
    // What the package ships at `file` is what the command prints.
    assert.deepEqual(JSON.parse(readFileSync(join(ROOT, file), 'utf8')), schema, file);
  }
});

test('an unknown kind is a usage error naming the kinds', async () => {
  const io = memoryIO();
  assert.equal(await run(['schema', 'servicedefintion'], io), 1);
  assert.match(io.err, /CLI_USAGE: unknown schema kind "servicedefintion"/);
  assert.match(io.err, /servicedefinition, platform, datum/);
});

test('schemas/ holds what `npm run schemas` writes', async () => {
  for (const [file, text] of Object.entries(await generatedSchemas()))
    assert.equal(readFileSync(join(ROOT, file), 'utf8'), text, `${file} is stale: npm run schemas`);
});

test('every file of the example validates against its schema', async () => {
  const catalog = join(EXAMPLE, 'catalog');
  const services = readdirSync(catalog)
    .filter((f) => f.endsWith('.yaml') && f !== 'platform.yaml')
    .map((f) => join(catalog, f));
  assert.ok(services.length > 3);
  const cases: [string, string[]][] = [
    ['servicedefinition', services],
    ['platform', [join(catalog, 'platform.yaml')]],
    // The files the fleet reads: its own exclude globs leave drafts/ out.
    ['datum', await fleetFiles(join(EXAMPLE, 'fleet'))],
    ['policy-extension', yamlFiles(join(EXAMPLE, 'policy'))],
    ['labelwise-yaml', [join(FIXTURES, 'good', 'labelwise.yaml')]],
  ];
  for (const [kind, files] of cases)
    assert.deepEqual(rejected(await validatorOf(kind), files), [], kind);
});

test('the policy schema checks extension kinds and leaves Linkerd kinds to their own schemas', async () => {
  const validate = await validatorOf('policy-extension');
  const files = yamlFiles(join(EXAMPLE, 'policy'));
  const kinds = new Set(
    files.flatMap((f) => documentsOf(f).map((d) => (d as { kind: string }).kind)),
  );
  assert.ok(kinds.has('HttpRouteGroup') && kinds.has('Server'), [...kinds].join(', '));
  assert.ok(validate({ apiVersion: 'policy.linkerd.io/v1beta3', kind: 'Server', spec: 1 }));
});

test('a known-bad file of each kind fails its schema', async () => {
  const cases: [string, string, number][] = [
    ['servicedefinition', 'servicedefinition.yaml', 1],
    ['platform', 'platform.yaml', 1],
    ['datum', join('fleet', 'fleet.yaml'), 1],
    ['policy-extension', join('policy', 'routes.yaml'), 2],
    ['labelwise-yaml', join('repo', 'labelwise.yaml'), 1],
  ];
  for (const [kind, file, count] of cases) {
    const found = rejected(await validatorOf(kind), [join(FIXTURES, 'bad', file)]);
    assert.equal(found.length, count, `${kind}: ${found.join('\n')}`);
  }
});

test('the loaders reject the same bad files the schemas reject', async () => {
  const work = tempDir('schemas');
  try {
    cpSync(join(FIXTURES, 'bad'), work, { recursive: true });
    const fleet = await loadFleetDir(join(work, 'fleet'));
    const fleetCodes = fleet.problems.map((p) => p.code);
    assert.ok(fleetCodes.includes('FLEET_INVALID_FIELD'), fleetCodes.join(', '));
    assert.ok(fleetCodes.includes('FLEET_UNKNOWN_FIELD'), fleetCodes.join(', '));

    const policy = await loadPolicyDir(join(work, 'policy'));
    const policyCodes = new Set(policy.problems.map((p) => p.code));
    for (const code of ['POLICY_INVALID_MATCH', 'POLICY_INVALID_ROUTE', 'POLICY_INVALID_DURATION'])
      assert.ok(policyCodes.has(code as never), `${code} in ${[...policyCodes].join(', ')}`);

    const { diagnostics } = readRepoConfig(RepoReader.open(join(work, 'repo')));
    assert.equal(diagnostics.length, 3, JSON.stringify(diagnostics));
    assert.ok(diagnostics.every((d) => d.code === 'BUILD_CONFIG_INVALID'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
