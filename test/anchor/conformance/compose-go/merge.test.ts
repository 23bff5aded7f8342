// compose-go's merge and override cases (merge.yaml): each field with a short and a long form,
// merged across files and within one, must give the tree compose-go's own tests expect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { loadComposeProject, memoryFileSystem } from '../../../../src/anchor/index.js';
import { plainTree } from '../../../../src/anchor/compose/compose-tree.js';

interface MergeCase {
  readonly upstream: string;
  readonly base: string;
  readonly override?: string;
  readonly files?: Record<string, string>;
  readonly want?: string;
  readonly expect?: Record<string, Record<string, unknown>>;
}

const here = dirname(fileURLToPath(import.meta.url));
const data = parse(readFileSync(join(here, 'merge.yaml'), 'utf8')) as {
  commit: string;
  cases: MergeCase[];
};

/** Loads the files and returns the merged tree as plain data, failing on any error. */
function merged(files: Record<string, string>, order: string[]): Record<string, unknown> {
  const loaded = loadComposeProject({
    files: order,
    fs: memoryFileSystem(files),
    directoryName: 'project',
  });
  assert.deepEqual(
    loaded.diagnostics.filter((d) => d.severity === 'error'),
    [],
    'no errors',
  );
  // Plain objects compare structurally; the tree's null-prototype objects need a round trip.
  return JSON.parse(JSON.stringify(plainTree(loaded.merged))) as Record<string, unknown>;
}

for (const c of data.cases) {
  test(`compose-go ${c.upstream}`, () => {
    assert.ok(c.want !== undefined || c.expect !== undefined, 'a case states its result');
    const files: Record<string, string> = { ...c.files, 'compose.yaml': c.base };
    const order = ['compose.yaml'];
    if (c.override !== undefined) {
      files['compose.override.yaml'] = c.override;
      order.push('compose.override.yaml');
    }
    const got = merged(files, order);
    if (c.want !== undefined) {
      const want = merged({ ...c.files, 'compose.yaml': c.want }, ['compose.yaml']);
      delete got['name'];
      delete want['name'];
      assert.deepEqual(got, want);
    }
    const services = (got['services'] ?? {}) as Record<string, Record<string, unknown>>;
    for (const [service, fields] of Object.entries(c.expect ?? {}))
      for (const [field, value] of Object.entries(fields))
        assert.deepEqual(services[service]?.[field], value, `${service}.${field}`);
  });
}

test('the compose-go merge suite names its commit and covers every short/long field', () => {
  assert.match(data.commit, /^[0-9a-f]{40}$/);
  const text = data.cases.map((c) => c.base + (c.override ?? '')).join('\n');
  for (const field of [
    'depends_on',
    'ports',
    'volumes',
    'environment',
    'labels',
    'networks',
    'extra_hosts',
    'build',
    'command',
    'entrypoint',
    'env_file',
    'ulimits',
  ])
    assert.ok(text.includes(`${field}:`), field);
});
