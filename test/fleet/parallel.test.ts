// Resolution on every core: worker threads give byte-for-byte the report one thread gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { availableParallelism, freemem } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import {
  defaultThreads,
  loadFleet,
  resolveInParallel,
  validateFleet,
  validateInParallel,
  workerCount,
  workerLimits,
} from '../../src/fleet/index.js';
import type { FleetFile } from '../../src/fleet/index.js';
import { EXAMPLE, cli } from './cli-helpers.js';
import { FLEET, doc, host, layer } from './helpers.js';

function files(): FleetFile[] {
  const roles = ['web', 'db', 'cache'];
  const hosts = Array.from({ length: 300 }, (_, i) =>
    host(`h${String(i).padStart(3, '0')}`, { role: roles[i % 3] as string, site: `s${i % 7}` }),
  );
  return [
    { path: 'fleet.yaml', bytes: FLEET },
    { path: 'hosts.yaml', bytes: hosts.join('---\n') },
    {
      path: 'web/layer.yaml',
      bytes: [
        layer('role-web', 10, '  labels:\n    role: web\n'),
        doc(
          'File',
          'site',
          'desired:\n  path: /etc/site\n  content: "{{ labels.site }} {{ host }}"\n',
        ),
        // Unresolved on every web host: a problem grouped across hosts.
        doc(
          'Service',
          'nginx',
          'requires:\n  - Package[nginx]\ndesired:\n  state: running\n  enabled: true\n',
        ),
      ].join('---\n'),
    },
    {
      path: 'site/layer.yaml',
      bytes: [
        layer('site-s3', 10, '  labels:\n    site: s3\n'),
        doc('File', 'site', 'desired:\n  mode: "0600"\n'),
      ].join('---\n'),
    },
  ];
}

test('validate on worker threads equals validate on one thread, whatever the batch size', async () => {
  const list = files();
  const fleet = loadFleet(list);
  const one = validateFleet(fleet);
  assert.ok(one.errors > 0, 'the fleet has problems to merge');
  for (const batch of [1, 7, 256]) {
    const many = await validateInParallel(fleet, {}, { threads: 2, batch });
    assert.deepEqual(many, one);
    assert.equal(JSON.stringify(many), JSON.stringify(one));
  }
});

test('validate --threads 2 prints the same JSON as --threads 1', async () => {
  const a = await cli('validate', EXAMPLE, '--json', '--threads', '1');
  const b = await cli('validate', EXAMPLE, '--json', '--threads', '2');
  assert.equal(a.code, 0, a.err);
  assert.equal(b.out, a.out);
  const bad = await cli('validate', EXAMPLE, '--threads', '0');
  assert.equal(bad.code, 1);
  assert.match(bad.err, /FLEET_INVALID_SHARD/);
});

test('workers resolve from the shared core: hosts named and labelled like Object members', async () => {
  // Workers get Host documents by message, not from their own parse: labels such as
  // `constructor` must read as the host's own, never as an inherited member.
  const hosts = ['__proto__', 'constructor', 'toString', 'plain'].map((name, i) =>
    host(name, i % 2 === 0 ? { constructor: 'x', role: 'web' } : { role: 'web' }),
  );
  const list: FleetFile[] = [
    { path: 'fleet.yaml', bytes: FLEET },
    { path: 'hosts.yaml', bytes: hosts.join('---\n') },
    {
      path: 'web/layer.yaml',
      bytes: [
        layer('role-web', 10, '  labels:\n    role: web\n'),
        doc('File', 'c', 'desired:\n  path: /etc/c\n  content: "{{ labels.constructor }}"\n'),
      ].join('---\n'),
    },
    {
      path: 'ctor/layer.yaml',
      bytes: [
        layer('has-ctor', 20, '  has:\n    - constructor\n'),
        doc('File', 'c', 'desired:\n  mode: "0600"\n'),
      ].join('---\n'),
    },
  ];
  const fleet = loadFleet(list);
  assert.deepEqual(fleet.problems, []);
  const one = validateFleet(fleet);
  assert.ok(one.errors > 0, 'hosts without the label fail to substitute it');
  const many = await validateInParallel(fleet, {}, { threads: 2, batch: 1 });
  assert.equal(JSON.stringify(many), JSON.stringify(one));
});

test('a worker over its heap bound leaves the report to the main thread, unchanged', async () => {
  const list = files();
  const fleet = loadFleet(list);
  const one = validateFleet(fleet);
  // 1 MB cannot hold a worker's code, let alone the core: every worker runs out of memory.
  await assert.rejects(
    resolveInParallel(
      fleet,
      fleet.hosts.map((h) => h.name),
      { threads: 2, heapMb: 1 },
    ),
    { code: 'ERR_WORKER_OUT_OF_MEMORY' },
  );
  const bounded = await validateInParallel(fleet, {}, { threads: 2, heapMb: 1 });
  assert.equal(JSON.stringify(bounded), JSON.stringify(one));
});

test('workers are bounded by the core they hold, and the default respects free memory', () => {
  const small = workerLimits(1024 * 1024);
  const large = workerLimits(64 * 1024 * 1024);
  assert.equal(small.maxYoungGenerationSizeMb, 16);
  assert.ok((large.maxOldGenerationSizeMb ?? 0) > (small.maxOldGenerationSizeMb ?? 0));
  assert.ok(defaultThreads(0) >= 1 && defaultThreads(0) <= availableParallelism());
  // A core too large for half the free memory leaves one thread, never none.
  assert.equal(defaultThreads(freemem() * 4), 1);
});

test('threads past the cores run one worker per core: more threads, not more memory', () => {
  const cores = availableParallelism();
  assert.equal(workerCount(1, 100), 1);
  assert.equal(workerCount(cores, 100), Math.min(cores, 100));
  assert.equal(workerCount(4 * cores, 10_000), cores);
  assert.equal(workerCount(4 * cores, 1), 1);
  assert.equal(workerCount(0, 10), 1);
});

test('a resolve worker loads resolution code only: no YAML parser, no module index', () => {
  // Every worker compiles what it imports: the YAML library and base's I/O cost each one
  // megabytes and start-up time for nothing it runs.
  const root = join(import.meta.dirname, '..', '..', 'src');
  const valueImport = /^(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s*'([^']+)'/gms;
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(valueImport)) {
      const spec = m[1] as string;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else packages.add(spec);
    }
  };
  visit(join(root, 'fleet', 'io', 'resolve-worker.ts'));
  const loaded = [...seen].map((f) => relative(root, f));
  assert.ok(
    loaded.includes(join('fleet', 'resolve', 'resolve-host.ts')),
    'the walk follows imports',
  );
  assert.deepEqual(
    [...packages].filter((p) => !p.startsWith('node:')),
    [],
    'no package beyond node:',
  );
  const indexes = loaded.filter(
    (f) => f.endsWith(`${sep}index.ts`) || f.includes(`${sep}io${sep}`),
  );
  assert.deepEqual(indexes, [
    join('fleet', 'io', 'resolve-worker.ts'),
    join('fleet', 'io', 'shared-core.ts'),
  ]);
});
