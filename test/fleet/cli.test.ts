// `labelwise fleet …` in-process on the example fleet, plus temporary directories for discovery on
// disk (`affected` over git revisions is in affected.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildFleetStage } from '../../src/fleet/index.js';
import { readFleetFiles } from '../../src/fleet/io/read-tree.js';
import { EXAMPLE, body, cli, commitAllIn, tempTree } from './cli-helpers.js';
import { missingCapability, requiredCapabilities } from '../support/capabilities.js';
import { FLEET, doc, host, layer } from './helpers.js';

test('validate: the example fleet resolves with no errors', async () => {
  const r = await cli('validate', EXAMPLE);
  assert.equal(r.code, 0, r.out + r.err);
  assert.equal(r.out.trim().split('\n').pop(), 'resolved 4 hosts, 0 errors');
});

test('validate --json: counts, no problems, a digest per host', async () => {
  const r = await cli('validate', EXAMPLE, '--json');
  const json = JSON.parse(r.out) as {
    fleet: string;
    schema: string;
    hosts: number;
    errors: number;
    warnings: number;
    diagnostics: unknown[];
    layerHosts: { name: string; hosts: number }[];
    digests: Record<string, string>;
  };
  assert.equal(json.fleet, 'homelab');
  assert.equal(json.schema, 'v1alpha1');
  assert.equal(json.hosts, 4);
  assert.equal(json.errors, 0);
  assert.equal(json.warnings, 0);
  assert.deepEqual(json.diagnostics, []);
  assert.deepEqual(
    json.layerHosts.find((l) => l.name === 'role-web'),
    { name: 'role-web', precedence: 30, hosts: 3 },
  );
  assert.deepEqual(Object.keys(json.digests), ['db-001', 'staging-web-001', 'web-001', 'web-002']);
});

test('resolve --json has the documented shape', async () => {
  const r = await cli('resolve', EXAMPLE, '--host', 'web-001', '--json');
  assert.equal(r.code, 0, r.err);
  const json = JSON.parse(r.out) as Record<string, unknown> & {
    resources: Record<string, unknown>[];
    layers: Record<string, unknown>[];
  };
  assert.deepEqual(Object.keys(json), [
    'host',
    'digest',
    'layers',
    'resources',
    'diagnostics',
    'errors',
    'warnings',
  ]);
  assert.deepEqual([json.diagnostics, json.errors, json.warnings], [[], 0, 0]);
  assert.deepEqual(Object.keys(json.layers[0] ?? {}), ['name', 'precedence', 'reasons']);
  assert.deepEqual(Object.keys(json.resources[0] ?? {}), [
    'ref',
    'target',
    'layers',
    'desired',
    'requires',
    'restartOn',
    'reloadOn',
  ]);
  const nginx = json.resources.find((x) => x.ref === 'File[nginx-config]');
  assert.deepEqual(nginx?.layers, ['role-web', 'host-web-001']);
  assert.equal((nginx?.desired as Record<string, unknown>).mode, '0600');
  const motd = json.resources.find((x) => x.ref === 'File[motd]');
  assert.equal(
    (motd?.desired as Record<string, unknown>).content,
    'web-001 (production, london)\n',
  );
});

test('resolve: text output names the digest, layers and resources', async () => {
  const r = await cli('resolve', EXAMPLE, '--host', 'db-001');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^host db-001 {2}sha256:[0-9a-f]{64} \([0-9a-f]{8}\)/);
  assert.match(r.out, /role-database +30 +role=database/);
  assert.match(r.out, /Service\[postgresql\] {2}postgresql {2}from role-database/);
});

test('resolve: an unknown host exits 1 with the spec message', async () => {
  const r = await cli('resolve', EXAMPLE, '--host', 'nope');
  assert.equal(r.code, 1);
  assert.match(r.err, /no Host document named "nope" in this fleet/);
});

test('explain: fields with the layer that set them and what they overrode', async () => {
  const r = await cli('explain', EXAMPLE, '--host', 'web-001', 'File[nginx-config]');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /mode +0600 +host-web-001 +overrides 0640 from role-web/);
  assert.match(r.out, /requires +Package\[nginx\] +from role-web/);
});

test('explain: layers that declare the resource but do not apply are listed with the failed term', async () => {
  const r = await cli('explain', EXAMPLE, '--host', 'web-002', 'File[nginx-config]');
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /also declared by layers that do not apply:\n {2}host-web-001 \(precedence 100\): datum\/host=web-001 failed, host has datum\/host=web-002/,
  );
});

test('explain: substitutions are listed', async () => {
  const r = await cli('explain', EXAMPLE, '--host', 'web-002', 'File[motd]');
  assert.match(r.out, /content +\{\{ labels\.site \}\} +→ frankfurt +in base/);
});

test('explain: a resource that does not apply exits 1 and names the failed term', async () => {
  const r = await cli('explain', EXAMPLE, '--host', 'db-001', 'Service[nginx]');
  assert.equal(r.code, 1);
  assert.match(r.out, /role-web \(precedence 30\): role=web failed, host has role=database/);
  const json = JSON.parse(
    (await cli('explain', EXAMPLE, '--host', 'db-001', 'Service[nginx]', '--json')).out,
  ) as { applies: boolean };
  assert.equal(json.applies, false);
});

test('hosts --layer lists the hosts a layer reaches', async () => {
  const r = await cli('hosts', EXAMPLE, '--layer', 'role-web', '--json');
  const json = JSON.parse(r.out) as { layer: string; hosts: { name: string }[]; errors: number };
  assert.equal(json.layer, 'role-web');
  assert.deepEqual(
    json.hosts.map((h) => h.name),
    ['staging-web-001', 'web-001', 'web-002'],
  );
  assert.equal(json.errors, 0);
  const unknown = await cli('hosts', EXAMPLE, '--layer', 'nope');
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /FLEET_UNKNOWN_LAYER/);
});

test('--help shows a real example; no subcommand exits 1', async () => {
  const help = await cli('validate', '--help');
  assert.equal(help.code, 0);
  assert.match(help.out, /labelwise fleet validate examples\/homelab\/fleet/);
  assert.equal((await cli()).code, 1);
});

test('validate on disk: errors print as path:line: message relative to the fleet root, exit 1', async () => {
  const dir = tempTree({
    'repo/fleet/fleet.yaml': FLEET,
    'repo/fleet/hosts/web.yaml': `${host('web-001', { role: 'web' })}---\n${host('web-002', { role: 'web' })}`,
    'repo/fleet/layers/web/layer.yaml': `${layer('role-web', 0, '  labels:\n    role: web\n')}---\n${doc('Service', 'nginx', 'requires:\n  - Package[nginx]\ndesired:\n  state: running\n  enabled: true\n')}`,
    'repo/fleet/node_modules/junk.yaml': 'a: [',
    'repo/fleet/.git/junk.yaml': 'a: [',
  });
  try {
    const r = await cli('validate', join(dir, 'repo'));
    assert.equal(r.code, 1);
    assert.equal(
      body(r.out),
      'layers/web/layer.yaml:13: error FLEET_UNRESOLVED_REFERENCE [Service[nginx]]: Service[nginx] requires Package[nginx], which no layer applying to the host declares (affects 2 hosts, first: web-001)\nresolved 2 hosts, 1 error\n',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('validate on disk: a File source or template must exist, relative to the layer that set it', async () => {
  const dir = tempTree({
    'fleet.yaml': FLEET,
    'h.yaml': host('h'),
    'layers/base/layer.yaml': `${layer('base', 0)}---\n${doc('File', 'a', 'desired:\n  path: /a\n  source: files/a.conf\n')}---\n${doc('File', 'b', 'desired:\n  path: /b\n  template: b.tmpl\n')}`,
    'layers/base/files/a.conf': 'x\n',
  });
  try {
    const r = await cli('validate', dir);
    assert.equal(r.code, 1);
    assert.match(
      r.out,
      /^layers\/base\/layer\.yaml:18: error FLEET_MISSING_SOURCE \[File\[b\]\]: File\[b\]\.template names layers\/base\/b\.tmpl, which does not exist/m,
    );
    assert.doesNotMatch(r.out, /File\[a\]/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('resolve --json on a fleet with errors: exit 1 and diagnostics saying why', async () => {
  const dir = tempTree({
    'fleet.yaml': FLEET,
    'h.yaml': host('h', { role: 'web' }),
    'broken.yaml': 'datum: v1alpha1\ntype: Hots\nname: x\n',
    'l/layer.yaml': `${layer('base', 0)}---\n${doc('Service', 's', 'requires:\n  - Package[p]\ndesired:\n  state: running\n  enabled: true\n')}`,
  });
  try {
    const r = await cli('resolve', dir, '--host', 'h', '--json');
    assert.equal(r.code, 1);
    const json = JSON.parse(r.out) as {
      errors: number;
      diagnostics: { code: string; file: string; line: number; message: string }[];
    };
    assert.equal(json.errors, 2);
    assert.deepEqual(
      json.diagnostics.map((e) => e.code),
      ['FLEET_UNKNOWN_TYPE', 'FLEET_UNRESOLVED_REFERENCE'],
    );
    assert.deepEqual(json.diagnostics[1], {
      severity: 'error',
      code: 'FLEET_UNRESOLVED_REFERENCE',
      module: 'fleet',
      object: 'Service[s]',
      file: 'l/layer.yaml',
      line: 10,
      message: 'Service[s] requires Package[p], which no layer applying to the host declares',
      witness: { hosts: ['h'] },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('validate on disk: no Fleet document is an input error', async () => {
  const dir = tempTree({ 'a.yaml': host('h') });
  try {
    const r = await cli('validate', dir);
    assert.equal(r.code, 1);
    assert.match(r.err, /no Fleet document found under/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('reading a tree follows a link inside it once (a loop cannot hang it)', async (t) => {
  const dir = tempTree({ 'fleet.yaml': FLEET, 'sub/h.yaml': host('h') });
  try {
    try {
      symlinkSync(dir, join(dir, 'sub', 'loop'));
    } catch (error) {
      t.skip(`cannot create symlinks here: ${(error as Error).message}`);
      return;
    }
    const tree = await readFleetFiles(dir);
    assert.deepEqual(
      tree.files.map((f) => f.path),
      ['fleet.yaml', 'sub/h.yaml'],
    );
    assert.deepEqual(tree.paths, ['fleet.yaml', 'sub/h.yaml']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('build stage: diagnostics relative to the repository root, one manifest per host, the matrix', async () => {
  const stage = await buildFleetStage(EXAMPLE, { root: 'examples/homelab' });
  assert.deepEqual(stage.diagnostics, []);
  assert.deepEqual(Object.keys(stage.outputs).sort(), [
    'fleet/db-001.json',
    'fleet/staging-web-001.json',
    'fleet/web-001.json',
    'fleet/web-002.json',
  ]);
  const web = JSON.parse(stage.outputs['fleet/web-001.json'] as string) as {
    host: string;
    digest: string;
  };
  assert.equal(web.host, 'web-001');
  assert.deepEqual(stage.counts, { hosts: 4, layers: 8, resources: 19, errors: 0, warnings: 0 });
  const row = stage.data.applies[stage.data.hosts.indexOf('web-001')];
  assert.deepEqual(
    stage.data.layers.filter((_, i) => row?.[i]),
    ['base', 'env-production', 'site-london', 'role-web', 'host-web-001'],
  );
  const dir = tempTree({
    'homelab/fleet/fleet.yaml': FLEET,
    'homelab/fleet/h.yaml': 'datum: v1alpha1\ntype: Host\n',
  });
  try {
    const broken = await buildFleetStage(join(dir, 'homelab/fleet'), {
      root: join(dir, 'homelab'),
    });
    assert.deepEqual(
      broken.diagnostics.map((f) => `${f.module} ${f.severity} ${f.code} ${f.file}:${f.line}`),
      ['fleet error FLEET_MISSING_FIELD fleet/h.yaml:1'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('e2e: the labelwise bin validates the example fleet', () => {
  const out = execFileSync(process.execPath, ['bin/labelwise.js', 'fleet', 'validate', EXAMPLE], {
    encoding: 'utf8',
  });
  assert.match(out, /^fleet +homelab\nschema +v1alpha1\nhosts +4\nlayers +8\n/);
  assert.match(out, /^ {2}role-web +precedence 30 +3 hosts$/m);
  assert.equal(body(out), 'resolved 4 hosts, 0 errors\n');
});

test('a reserved Host label reads once, in validate and in the build diagnostics', async () => {
  // regression: `label "datum/owner": label "datum/owner" uses the reserved prefix "datum/"`.
  const dir = tempTree({
    'homelab/fleet/fleet.yaml': FLEET,
    'homelab/fleet/hosts.yaml': host('web-001', { role: 'web', 'datum/owner': 'me' }),
  });
  try {
    const r = await cli('validate', join(dir, 'homelab/fleet'));
    assert.equal(r.code, 1);
    assert.equal(
      body(r.out),
      'hosts.yaml:6: error FLEET_RESERVED_LABEL [Host web-001]: label "datum/owner" uses the reserved prefix "datum/"\nresolved 0 hosts, 1 error\n',
    );
    const stage = await buildFleetStage(join(dir, 'homelab/fleet'), {
      root: join(dir, 'homelab'),
    });
    assert.deepEqual(stage.diagnostics, [
      {
        module: 'fleet',
        severity: 'error',
        code: 'FLEET_RESERVED_LABEL',
        object: 'Host web-001',
        file: 'fleet/hosts.yaml',
        line: 6,
        message: 'label "datum/owner" uses the reserved prefix "datum/"',
      },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('hosts --layer: an unknown layer in a large fleet gets a short hint', async () => {
  const layers: Record<string, string> = {};
  for (let i = 0; i < 12; i++)
    layers[`l${String(i).padStart(2, '0')}/layer.yaml`] = layer(
      `l${String(i).padStart(2, '0')}`,
      0,
    );
  const dir = tempTree({ 'fleet.yaml': FLEET, 'h.yaml': host('h'), ...layers });
  try {
    const r = await cli('hosts', dir, '--layer', 'nope');
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /hint: layers: l00, l01, l02, l03, l04, l05, l06, l07, l08, l09 and 2 more \(labelwise fleet resolve --host H lists a host's layers\)/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('validate: the fleet directory may be a symbolic link', async (t) => {
  const dir = tempTree({ 'real/fleet.yaml': FLEET, 'real/h.yaml': host('h') });
  try {
    try {
      symlinkSync(join(dir, 'real'), join(dir, 'link'));
    } catch (error) {
      t.skip(`cannot create symlinks here: ${(error as Error).message}`);
      return;
    }
    const r = await cli('validate', join(dir, 'link'));
    assert.equal(r.code, 0, r.err);
    assert.equal(body(r.out), 'resolved 1 host, 0 errors\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a YAML file that is a symbolic link is not read, and a warning says so', async (t) => {
  const dir = tempTree({
    'shared/hosts.yaml': host('other'),
    'fleet/fleet.yaml': FLEET,
    'fleet/h.yaml': host('h'),
  });
  try {
    try {
      symlinkSync(join(dir, 'shared/hosts.yaml'), join(dir, 'fleet/linked.yaml'));
    } catch (error) {
      t.skip(`cannot create symlinks here: ${(error as Error).message}`);
      return;
    }
    const r = await cli('validate', join(dir, 'fleet'));
    assert.equal(r.code, 0, r.err);
    assert.equal(
      body(r.out),
      'linked.yaml: warning FLEET_SYMLINK_SKIPPED: linked.yaml is a symbolic link and is not read; keep fleet documents in the repository as files\n1 warning\nresolved 1 host, 0 errors\n',
    );
    // Without git the rest cannot run; where the run requires git, it runs and fails.
    if (missingCapability('git') !== undefined && !requiredCapabilities().has('git')) return;
    // At a git revision the link is a blob holding its target's name: also not read as YAML.
    commitAllIn(dir);
    const affected = await cli('affected', join(dir, 'fleet'), '--from', 'HEAD');
    assert.equal(affected.code, 0, affected.err);
    assert.equal(affected.err, '');
    assert.match(affected.out, /^0 of 1 host affected\n/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('hosts --layer: a Layer with errors says so and exits 1', async () => {
  const dir = tempTree({
    'fleet.yaml': FLEET,
    'h.yaml': host('h', { role: 'web' }),
    'web/layer.yaml': doc('Layer', 'web', 'precedence: high\nmatch:\n  labels:\n    role: web\n'),
  });
  try {
    const r = await cli('hosts', dir, '--layer', 'web');
    assert.equal(r.code, 1);
    assert.equal(r.out, '');
    assert.match(
      r.err,
      /^web\/layer\.yaml:4: error FLEET_INVALID_PRECEDENCE \[Layer web\]: precedence must be an integer, got high\n/,
    );
    assert.match(r.err, /web's Layer document has errors \(above\), so it reaches no host\n$/);
    const json = await cli('hosts', dir, '--layer', 'web', '--json');
    assert.equal(json.code, 1);
    const parsed = JSON.parse(json.out) as Record<string, unknown>;
    assert.deepEqual(
      [parsed.layer, parsed.hosts, parsed.invalid, parsed.errors],
      ['web', [], true, 1],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a YAML file over 16 MiB is an error on that file, and none under an excluded directory', async () => {
  // regression: the reader threw on the first large file, even one in an excluded directory,
  // and nothing else of the fleet was checked.
  const dir = tempTree({
    'fleet.yaml': `${FLEET}exclude:\n  - archive\n`,
    'h.yaml': host('h'),
    'broken.yaml': 'datum: v1alpha1\ntype: Hots\nname: x\n',
  });
  try {
    mkdirSync(join(dir, 'archive'));
    for (const path of ['big.yaml', 'archive/big.yaml']) {
      writeFileSync(join(dir, path), '');
      truncateSync(join(dir, path), 16 * 1024 * 1024 + 1); // sparse: no 16 MiB actually written
    }
    const r = await cli('validate', dir);
    assert.equal(r.code, 1);
    assert.equal(
      body(r.out),
      'big.yaml: error FLEET_FILE_TOO_LARGE: big.yaml is 16777217 bytes; fleet files are limited to 16777216 (16 MiB) and it was not read\n' +
        'broken.yaml:2: error FLEET_UNKNOWN_TYPE: unrecognised type "Hots"\n' +
        'resolved 1 host, 2 errors\n',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
