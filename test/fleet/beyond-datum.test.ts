// Past Datum: field-level changes per host (the library function and `fleet affected`),
// `--exit-code`, Markdown output, `fleet hosts --selector` in any syntax, shards, and explain's
// exit code when the host itself does not resolve.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  fleetChanges,
  formatChangesMarkdown,
  parseShard,
  shardHosts,
  shardOf,
  validateFleet,
} from '../../src/fleet/index.js';
import { LabelwiseError } from '../../src/base/index.js';
import { EXAMPLE, cli, commitAllIn, tempTree } from './cli-helpers.js';
import { FLEET, doc, fleetOf, host, layer } from './helpers.js';
import { skipWithout } from '../support/capabilities.js';

const nginx = (mode: string): string =>
  doc('File', 'nginx-config', `desired:\n  path: /etc/nginx/nginx.conf\n  mode: "${mode}"\n`);

const base = {
  'fleet.yaml': FLEET,
  'hosts.yaml': [
    host('web-001', { role: 'web' }),
    host('web-002', { role: 'web' }),
    host('db-001', { role: 'db' }),
  ],
};

test('fleetChanges: per host, the field that changed, from, to and the layer that caused it', () => {
  const before = fleetOf({
    ...base,
    'web/l.yaml': [layer('role-web', 30, '  labels:\n    role: web\n'), nginx('0640')],
  });
  const after = fleetOf({
    ...base,
    'web/l.yaml': [layer('role-web', 30, '  labels:\n    role: web\n'), nginx('0640')],
    'h1/l.yaml': [
      layer('host-web-001', 100, '  labels:\n    datum/host: web-001\n'),
      nginx('0600'),
    ],
  });
  const changes = fleetChanges(before, after);
  assert.deepEqual(
    changes.map((h) => `${h.host}:${h.status}`),
    ['db-001:unchanged', 'web-001:changed', 'web-002:unchanged'],
  );
  const web = changes[1];
  assert.deepEqual(web?.layersAdded, ['host-web-001']);
  assert.deepEqual(web?.resources, [
    {
      ref: 'File[nginx-config]',
      status: 'changed',
      layers: ['role-web', 'host-web-001'],
      fields: [{ field: 'mode', kind: 'changed', from: '0640', to: '0600', layer: 'host-web-001' }],
    },
  ]);
});

test('fleetChanges: resources added and removed, fields set and no longer set', () => {
  const pkg = (name: string): string => doc('Package', name, 'desired:\n  state: present\n');
  const before = fleetOf({
    ...base,
    'b/l.yaml': [
      layer('base', 0),
      pkg('curl'),
      doc('File', 'motd', 'desired:\n  path: /etc/motd\n  owner: root\n'),
    ],
  });
  const after = fleetOf({
    ...base,
    'b/l.yaml': [
      layer('base', 0),
      pkg('htop'),
      doc('File', 'motd', 'desired:\n  path: /etc/motd\n  group: adm\n'),
    ],
  });
  const db = fleetChanges(before, after, { hosts: ['db-001'] });
  assert.equal(db.length, 1);
  assert.deepEqual(
    db[0]?.resources.map((r) => [
      r.ref,
      r.status,
      r.fields.map((f) => `${f.field}:${f.kind}:${f.layer}`),
    ]),
    [
      ['File[motd]', 'changed', ['group:set:base', 'owner:unset:base']],
      ['Package[curl]', 'removed', []],
      ['Package[htop]', 'added', []],
    ],
  );
  const markdown = formatChangesMarkdown(fleetChanges(before, after));
  assert.match(markdown, /^\*\*3 of 3 hosts affected\*\*\n/);
  // Identical hosts share one table.
  assert.equal(markdown.match(/^#### /gm)?.length, 1);
  assert.match(markdown, /\| `File\[motd\]` \| `owner no longer set \(was root\)` \| `base` \|/);
});

test('shards: every host in exactly one shard, stable, and the union of shard runs is the whole run', () => {
  const names = Array.from({ length: 200 }, (_, i) => `host-${i}`);
  const shards = [1, 2, 3, 4].map((index) => shardHosts(names, { index, count: 4 }));
  assert.deepEqual(shards.flat().sort(), [...names].sort());
  assert.ok(
    shards.every((s) => s.length > 20),
    'each shard gets a share',
  );
  assert.equal(shardOf('web-001', 4), shardOf('web-001', 4));
  const fleet = fleetOf({
    'fleet.yaml': FLEET,
    'hosts.yaml': names.slice(0, 40).map((n, i) => host(n, { role: i % 2 === 0 ? 'web' : 'db' })),
    'web/l.yaml': [
      layer('role-web', 0, '  labels:\n    role: web\n'),
      doc(
        'Service',
        'nginx',
        'requires:\n  - Package[nginx]\ndesired:\n  state: running\n  enabled: true\n',
      ),
    ],
  });
  const whole = validateFleet(fleet);
  const parts = [1, 2, 3].map((index) =>
    validateFleet(fleet, {
      hosts: shardHosts(
        fleet.hosts.map((h) => h.name),
        { index, count: 3 },
      ),
    }),
  );
  const digests = Object.assign({}, ...parts.map((p) => p.digests)) as Record<string, string>;
  assert.deepEqual(digests, { ...whole.digests });
  const hostsWith = (reports: typeof parts, code: string): string[] =>
    reports
      .flatMap((r) => r.problems.filter((p) => p.code === code).flatMap((p) => p.hosts))
      .sort();
  assert.deepEqual(
    hostsWith(parts, 'FLEET_UNRESOLVED_REFERENCE'),
    hostsWith([whole], 'FLEET_UNRESOLVED_REFERENCE'),
  );
  assert.equal(hostsWith([whole], 'FLEET_UNRESOLVED_REFERENCE').length, 20);
});

test('--shard must be I/N', () => {
  for (const bad of ['0/4', '5/4', '1', 'a/b', '1/0', '1/4/2'])
    assert.throws(
      () => parseShard(bad),
      (e: unknown) => e instanceof LabelwiseError && e.code === 'FLEET_INVALID_SHARD',
      bad,
    );
  assert.deepEqual(parseShard('2/4'), { index: 2, count: 4 });
});

test('validate and resolve --shard on the CLI: the shards together cover every host once', async () => {
  const seen: string[] = [];
  for (const i of [1, 2]) {
    const r = await cli('resolve', EXAMPLE, '--shard', `${i}/2`, '--json');
    assert.equal(r.code, 0, r.err);
    const json = JSON.parse(r.out) as { shard: string; hosts: { host: string }[] };
    assert.equal(json.shard, `${i}/2`);
    seen.push(...json.hosts.map((h) => h.host));
    const v = await cli('validate', EXAMPLE, '--shard', `${i}/2`, '--json');
    assert.deepEqual(
      Object.keys((JSON.parse(v.out) as { digests: object }).digests),
      json.hosts.map((h) => h.host),
    );
  }
  assert.deepEqual(seen.sort(), ['db-001', 'staging-web-001', 'web-001', 'web-002']);
  const bad = await cli('validate', EXAMPLE, '--shard', '3/2');
  assert.equal(bad.code, 1);
  assert.match(bad.err, /FLEET_INVALID_SHARD/);
});

test('hosts --selector takes any syntax and lists labels', async () => {
  const k8s = await cli('hosts', EXAMPLE, '--selector', 'role=web,site in (london)', '--json');
  assert.equal(k8s.code, 0, k8s.err);
  const names = (JSON.parse(k8s.out) as { hosts: { name: string }[] }).hosts.map((h) => h.name);
  assert.deepEqual(names, ['web-001']);
  const match = await cli('hosts', EXAMPLE, '--selector', '{labels: {role: database}}', '--json');
  assert.deepEqual(
    (
      JSON.parse(match.out) as { hosts: { name: string; labels: Record<string, string> }[] }
    ).hosts.map((h) => h.name),
    ['db-001'],
  );
  const all = await cli('hosts', EXAMPLE);
  assert.match(all.out, /^web-001 {2}.*role=web/m);
  const bad = await cli('hosts', EXAMPLE, '--selector', 'role in (');
  assert.equal(bad.code, 1);
  assert.match(bad.err, /FLEET_INVALID_SELECTOR/);
});

test('explain exits 1 when the host itself does not resolve, even for a healthy resource', async () => {
  const dir = tempTree({
    'fleet.yaml': FLEET,
    'h.yaml': host('h'),
    'l/layer.yaml': `${layer('base', 0)}---\n${doc('Package', 'curl', 'desired:\n  state: present\n')}---\n${doc('Service', 's', 'requires:\n  - Package[p]\ndesired:\n  state: running\n  enabled: true\n')}`,
  });
  try {
    const r = await cli('explain', dir, '--host', 'h', 'Package[curl]');
    assert.equal(r.code, 1);
    assert.match(r.out, /Package\[curl\]/);
    assert.match(r.err, /FLEET_UNRESOLVED_REFERENCE/);
    assert.match(r.err, /h does not resolve/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('affected: field-level diffs for every changed host, Markdown, --exit-code', async (t) => {
  if (skipWithout(t, 'git')) return;
  const dir = tempTree({
    'fleet/fleet.yaml': FLEET,
    'fleet/hosts.yaml': `${host('a', { role: 'web' })}---\n${host('b', { role: 'web' })}---\n${host('c', { role: 'db' })}`,
    'fleet/web/layer.yaml': `${layer('web', 0, '  labels:\n    role: web\n')}---\n${nginx('0600')}`,
  });
  try {
    commitAllIn(dir);
    writeFileSync(
      join(dir, 'fleet/web/layer.yaml'),
      `${layer('web', 0, '  labels:\n    role: web\n')}---\n${nginx('0400')}`,
    );
    const text = await cli('affected', join(dir, 'fleet'), '--from', 'HEAD');
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /^2 of 3 hosts affected\n/);
    assert.match(
      text.out,
      /^a, b \(2 hosts\)\n {2}File\[nginx-config\] {2}mode 0600 -> 0400 {2}\(web\)$/m,
    );
    const code = await cli('affected', join(dir, 'fleet'), '--from', 'HEAD', '--exit-code');
    assert.equal(code.code, 2);
    const md = await cli('affected', join(dir, 'fleet'), '--from', 'HEAD', '--format', 'markdown');
    assert.match(md.out, /^\*\*2 of 3 hosts affected\*\*/);
    assert.match(md.out, /\| `File\[nginx-config\]` \| `mode 0600 -> 0400` \| `web` \|/);
    const one = await cli(
      'affected',
      join(dir, 'fleet'),
      '--from',
      'HEAD',
      '--show-resources',
      '--host',
      'a',
    );
    assert.match(one.out, /^1 of 1 host affected\n/);
    const bad = await cli('affected', join(dir, 'fleet'), '--from', 'HEAD', '--format', 'html');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /FLEET_INVALID_FORMAT/);
    const json = JSON.parse(
      (await cli('affected', join(dir, 'fleet'), '--from', 'HEAD', '--json')).out,
    ) as {
      affected: number;
      errors: number;
      hosts: {
        host: string;
        resources: { fields: { field: string; from: string; to: string }[] }[];
      }[];
    };
    assert.equal(json.affected, 2);
    assert.equal(json.errors, 0);
    assert.deepEqual(json.hosts[0]?.resources[0]?.fields[0], {
      field: 'mode',
      kind: 'changed',
      from: '0600',
      to: '0400',
      layer: 'web',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
