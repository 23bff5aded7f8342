// The fleet commands print the module's --json shapes as they are: each command's output is
// compared, byte for byte, with the module function's result on a fleet with repository errors
// and a host that does not resolve, so a field the CLI added, dropped or reordered shows here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  affectedJson,
  explainJson,
  explainResource,
  fleetChanges,
  hostsJson,
  loadFleetAt,
  loadFleetDir,
  loadFleetSource,
  prepareFleet,
  resolveHost,
  resolvedHostJson,
  resolvedHostsJson,
  shardHosts,
  validateInParallel,
  validateJson,
} from '../../src/fleet/index.js';
import type { FleetSource, Shard } from '../../src/fleet/index.js';
import { cli, commitAllIn, tempTree } from './cli-helpers.js';
import { FLEET, doc, host, layer } from './helpers.js';
import { skipWithout } from '../support/capabilities.js';

const FILE = (mode: string): string =>
  doc('File', 'x', `desired:\n  path: /etc/x\n  mode: "${mode}"\n`);
const WEB = '  labels:\n    role: web\n';

/** Host a conflicts (two layers of one precedence set one field); Layer bad has errors. */
const FILES = {
  'fleet.yaml': FLEET,
  'hosts.yaml': `${host('a', { role: 'web' })}---\n${host('b', { role: 'db' })}---\n${host('c', { role: 'web' })}`,
  'web/layer.yaml': `${layer('web', 10, WEB)}---\n${FILE('0640')}`,
  'tls/layer.yaml': `${layer('tls', 10, '  labels:\n    datum/host: a\n')}---\n${FILE('0600')}`,
  'bad/layer.yaml': doc('Layer', 'bad', 'precedence: high\n'),
};

/** What printJson writes for `value`. */
function printed(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

async function validated(source: FleetSource, shard: Shard | undefined): Promise<string> {
  const names = shardHosts(
    source.fleet.hosts.map((h) => h.name),
    shard,
  );
  const report = await validateInParallel(source.fleet, { hosts: names }, { threads: 1 });
  return printed(validateJson(source, report, shard));
}

test('validate, resolve, explain and hosts print the module shapes byte for byte', async () => {
  const dir = tempTree(FILES);
  try {
    const source = await loadFleetSource(dir, dir);
    const fleet = source.fleet;
    assert.ok(
      fleet.problems.some((p) => p.severity === 'error'),
      'a repository error',
    );
    const prepared = prepareFleet(fleet);
    const plain = (name: string) => resolveHost(prepared, name, { provenance: false });
    assert.ok(plain('a').problems.length > 0, 'a host that does not resolve');

    assert.equal((await cli('validate', dir, '--json')).out, await validated(source, undefined));
    const shard = { index: 1, count: 2 };
    const sharded = (await cli('validate', dir, '--shard', '1/2', '--json')).out;
    assert.equal(sharded, await validated(source, shard));
    assert.deepEqual(Object.keys(JSON.parse(sharded) as object), [
      'fleet',
      'schema',
      'shard',
      'revision',
      'hosts',
      'layers',
      'resources',
      'layerHosts',
      'diagnostics',
      'errors',
      'warnings',
      'digests',
    ]);

    assert.equal(
      (await cli('resolve', dir, '--host', 'a', '--json')).out,
      printed(resolvedHostJson(fleet, plain('a'))),
    );
    const all = fleet.hosts.map((h) => plain(h.name));
    assert.equal(
      (await cli('resolve', dir, '--json')).out,
      printed(resolvedHostsJson(source, all, undefined)),
    );
    const half = shardHosts(['a', 'b', 'c'], shard).map(plain);
    assert.equal(
      (await cli('resolve', dir, '--shard', '1/2', '--json')).out,
      printed(resolvedHostsJson(source, half, shard)),
    );

    for (const name of ['a', 'b']) {
      const manifest = resolveHost(prepared, name, { provenance: true });
      const result = explainResource(prepared, name, 'File[x]', manifest);
      assert.equal(
        (await cli('explain', dir, 'File[x]', '--host', name, '--json')).out,
        printed(explainJson(fleet, manifest, result)),
      );
    }

    const bad = fleet.layers.find((l) => l.name === 'bad');
    const hosts = await cli('hosts', dir, '--layer', 'bad', '--json');
    assert.equal(hosts.out, printed(hostsJson(fleet, [], { layer: bad })));
    assert.deepEqual(Object.keys(JSON.parse(hosts.out) as object), [
      'layer',
      'hosts',
      'invalid',
      'diagnostics',
      'errors',
      'warnings',
    ]);
    assert.equal(
      (await cli('hosts', dir, '--selector', 'role=web', '--json')).out,
      printed(hostsJson(fleet, ['a', 'c'], { selector: 'role=web' })),
    );
    assert.equal(
      (await cli('hosts', dir, '--json')).out,
      printed(hostsJson(fleet, ['a', 'b', 'c'], {})),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("affected prints the module shape, with the revisions' errors", async (t) => {
  if (skipWithout(t, 'git')) return;
  const dir = tempTree(
    Object.fromEntries(Object.entries(FILES).map(([p, v]) => [`fleet/${p}`, v])),
  );
  try {
    commitAllIn(dir);
    writeFileSync(
      join(dir, 'fleet/web/layer.yaml'),
      `${layer('web', 10, WEB)}---\n${FILE('0644')}`,
    );
    const fleetDir = join(dir, 'fleet');
    const before = await loadFleetAt(fleetDir, 'HEAD');
    const after = await loadFleetDir(fleetDir);
    const json = affectedJson(fleetChanges(before, after, {}), before, after);
    assert.equal((await cli('affected', fleetDir, '--from', 'HEAD', '--json')).out, printed(json));
    // web's File changed for a and c; b has no File.
    assert.deepEqual(
      json.hosts.map((h) => `${h.host}:${h.status}`),
      ['a:changed', 'b:unchanged', 'c:changed'],
    );
    assert.equal(json.affected, 2);
    // Layer bad's error is in both revisions: reported once.
    assert.deepEqual(
      json.diagnostics.map((d) => `${d.file}:${d.code}`),
      ['bad/layer.yaml:FLEET_INVALID_PRECEDENCE'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
