// `fleet merge`: N real processes as N shards, joined, are one unsharded run byte for byte; and
// every way of handing merge the wrong pieces is refused with its own code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mergeShards, readShardOutput, shardOfRun } from '../../src/fleet/index.js';
import type { ShardOutput } from '../../src/fleet/index.js';
import { LabelwiseError } from '../../src/base/index.js';
import { cli, tempTree } from './cli-helpers.js';
import { bin, shardedFleet } from './shard-fixture.js';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof LabelwiseError, String(error));
    return error.code;
  }
  assert.fail('expected a LabelwiseError');
}

for (const command of ['validate', 'resolve'] as const)
  test(`merge of 3 shard processes is one unsharded ${command} run, byte for byte`, async () => {
    const repo = shardedFleet();
    const [whole, ...shards] = await Promise.all([
      bin(['fleet', command, repo, '--json']),
      ...[1, 2, 3].map((i) => bin(['fleet', command, repo, '--shard', `${i}/3`, '--json'])),
    ]);
    assert.equal(whole?.code, 1, 'the fixture has errors, so the run exits 1');
    const out = tempTree({});
    // Given out of order: merge orders shards by index.
    const files = [2, 0, 1].map((i) => {
      const file = join(out, `shard-${i + 1}.json`);
      writeFileSync(file, shards[i]?.out ?? '');
      return file;
    });
    const merged = await bin(['fleet', 'merge', ...files, '--json']);
    assert.equal(merged.err, '');
    assert.equal(merged.code, whole?.code);
    assert.ok((whole?.out.length ?? 0) > 1000);
    assert.equal(merged.out, whole?.out);
    // The fixture is only a proof if a problem group really spans shards.
    if (command === 'resolve') return;
    const groups = (
      JSON.parse(whole?.out ?? '{}') as { diagnostics: { witness?: { hosts: string[] } }[] }
    ).diagnostics;
    const shardOfHost = new Map<string, string>();
    for (const s of shards)
      for (const d of (
        JSON.parse(s?.out ?? '{}') as { diagnostics: { witness?: { hosts: string[] } }[] }
      ).diagnostics)
        for (const h of d.witness?.hosts ?? [])
          shardOfHost.set(h, JSON.parse(s?.out ?? '{}').shard);
    assert.ok(
      groups.some((d) => new Set((d.witness?.hosts ?? []).map((h) => shardOfHost.get(h))).size > 1),
    );
  });

test('merge in-process agrees with one run for every shard count from 1 to 7', async () => {
  const repo = shardedFleet(25);
  for (const command of ['validate', 'resolve'] as const) {
    const whole = await cli(command, repo, '--json');
    for (let n = 1; n <= 7; n++) {
      const outputs: ShardOutput[] = [];
      for (let i = 1; i <= n; i++) {
        const shard = await cli(command, repo, '--shard', `${i}/${n}`, '--json');
        outputs.push(readShardOutput(`s${i}`, shard.out));
      }
      assert.equal(
        `${JSON.stringify(mergeShards(outputs).json, null, 2)}\n`,
        whole.out,
        `${command} ${n}`,
      );
    }
  }
});

test('merge refuses shards of different revisions, counts and commands', async () => {
  const repo = shardedFleet(10);
  const v1 = readShardOutput('v1', (await cli('validate', repo, '--shard', '1/2', '--json')).out);
  const v2 = readShardOutput('v2', (await cli('validate', repo, '--shard', '2/2', '--json')).out);
  const r2 = readShardOutput('r2', (await cli('resolve', repo, '--shard', '2/2', '--json')).out);
  const c3 = readShardOutput('c3', (await cli('validate', repo, '--shard', '2/3', '--json')).out);
  appendFileSync(join(repo, 'hosts.yaml'), '---\n' + 'datum: v1alpha1\ntype: Host\nname: late\n');
  const late = readShardOutput(
    'late',
    (await cli('validate', repo, '--shard', '2/2', '--json')).out,
  );
  assert.equal(mergeShards([v1, v2]).kind, 'validate');
  assert.equal(
    codeOf(() => mergeShards([v1, late])),
    'FLEET_SHARD_REVISION_MISMATCH',
  );
  assert.equal(
    codeOf(() => mergeShards([v1, c3])),
    'FLEET_SHARD_COUNT_MISMATCH',
  );
  assert.equal(
    codeOf(() => mergeShards([v1, r2])),
    'FLEET_SHARD_KIND_MISMATCH',
  );
  assert.equal(
    codeOf(() => mergeShards([v1, v1, v2])),
    'FLEET_SHARD_DUPLICATE',
  );
  assert.equal(
    codeOf(() => mergeShards([v2])),
    'FLEET_SHARD_MISSING',
  );
  assert.equal(
    codeOf(() => mergeShards([])),
    'FLEET_SHARD_MISSING',
  );
});

test('merge says which file is not a shard, and which cannot be read', async () => {
  const repo = shardedFleet(4);
  const unsharded = (await cli('validate', repo, '--json')).out;
  assert.equal(
    codeOf(() => readShardOutput('a.json', 'not json')),
    'FLEET_NOT_A_SHARD',
  );
  assert.equal(
    codeOf(() => readShardOutput('a.json', '[1]')),
    'FLEET_NOT_A_SHARD',
  );
  assert.equal(
    codeOf(() => readShardOutput('whole.json', unsharded)),
    'FLEET_NOT_A_SHARD',
  );
  const dir = tempTree({ 'whole.json': unsharded });
  const r = await cli('merge', join(dir, 'whole.json'), join(dir, 'absent.json'));
  assert.equal(r.code, 1);
  assert.match(r.err, /FLEET_NOT_A_SHARD.*whole\.json.*names no shard/);
  const gone = await cli('merge', join(dir, 'absent.json'));
  assert.equal(gone.code, 3);
  // One line, naming the file where every diagnostic names it.
  assert.match(gone.err, /absent\.json: error FLEET_SHARD_UNREADABLE: cannot read /);
});

test('merge without --json prints the problems and a summary naming the shards', async () => {
  const repo = shardedFleet(12);
  const dir = tempTree({});
  const files = [];
  for (const i of [1, 2]) {
    const file = join(dir, `${i}.json`);
    writeFileSync(file, (await cli('validate', repo, '--shard', `${i}/2`, '--json')).out);
    files.push(file);
  }
  const r = await cli('merge', ...files);
  assert.equal(r.code, 1);
  assert.match(
    r.out,
    /error FLEET_UNRESOLVED_REFERENCE \[Service\[nginx\]\]: .*\(affects \d+ hosts, first: /,
  );
  assert.match(r.out, /^merged 2 shards of revision [0-9a-f]{8}: resolved 12 hosts, \d+ errors$/m);
});

test('--shards N takes the shard from JOB_COMPLETION_INDEX, 0-based', () => {
  assert.deepEqual(shardOfRun({ shards: '4' }, { JOB_COMPLETION_INDEX: '0' }), {
    index: 1,
    count: 4,
  });
  assert.deepEqual(shardOfRun({ shards: '4' }, { JOB_COMPLETION_INDEX: '3' }), {
    index: 4,
    count: 4,
  });
  assert.deepEqual(shardOfRun({ shard: '2/4' }, { JOB_COMPLETION_INDEX: '0' }), {
    index: 2,
    count: 4,
  });
  assert.equal(shardOfRun({}, { JOB_COMPLETION_INDEX: '1' }), undefined);
  for (const env of [
    {},
    { JOB_COMPLETION_INDEX: '4' },
    { JOB_COMPLETION_INDEX: '-1' },
    { JOB_COMPLETION_INDEX: '01' },
  ])
    assert.equal(
      codeOf(() => shardOfRun({ shards: '4' }, env)),
      'FLEET_INVALID_SHARD_INDEX',
    );
  assert.equal(
    codeOf(() => shardOfRun({ shards: '0' }, { JOB_COMPLETION_INDEX: '0' })),
    'FLEET_INVALID_SHARD',
  );
  assert.equal(
    codeOf(() => shardOfRun({ shard: '1/2', shards: '2' }, { JOB_COMPLETION_INDEX: '0' })),
    'FLEET_INVALID_SHARD',
  );
});
