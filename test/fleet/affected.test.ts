// `labelwise fleet affected`: every host compared between two git revisions, in real git
// repositories made in temporary directories (skipped, with the reason, where git cannot run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE, cli, commitAllIn, gitIn, tempTree } from './cli-helpers.js';
import { FLEET, doc, host, layer } from './helpers.js';
import { skipWithout } from '../support/capabilities.js';

test('affected: compares every host between two git revisions', async (t) => {
  if (skipWithout(t, 'git')) return;
  const dir = tempTree({
    'fleet/fleet.yaml': FLEET,
    'fleet/hosts.yaml': `${host('a', { role: 'web' })}---\n${host('b', { role: 'db' })}---\n${host('c', { role: 'db' })}`,
    'fleet/web/layer.yaml': `${layer('web', 0, '  labels:\n    role: web\n')}---\n${doc('Package', 'nginx', 'desired:\n  state: present\n')}`,
  });
  const git = (...args: string[]): void => gitIn(dir, ...args);
  try {
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'one');
    writeFileSync(
      join(dir, 'fleet/web/layer.yaml'),
      `${layer('web', 0, '  labels:\n    role: web\n')}---\n${doc('Package', 'nginx', 'desired:\n  state: absent\n')}`,
    );
    writeFileSync(
      join(dir, 'fleet/hosts.yaml'),
      `${host('a', { role: 'web' })}---\n${host('b', { role: 'db' })}---\n${host('d', { role: 'db' })}`,
    );
    git('commit', '-q', '-a', '-m', 'two');
    const r = await cli(
      'affected',
      join(dir, 'fleet'),
      '--from',
      'HEAD~1',
      '--to',
      'HEAD',
      '--json',
    );
    assert.equal(r.code, 0, r.err);
    const json = JSON.parse(r.out) as {
      affected: number;
      total: number;
      hosts: { host: string; status: string }[];
    };
    assert.equal(json.affected, 3);
    assert.equal(json.total, 4);
    assert.deepEqual(
      json.hosts.map((h) => `${h.host}:${h.status}`),
      ['a:changed', 'b:unchanged', 'c:removed', 'd:added'],
    );
    // Against the working tree (no --to), with one more edit not yet committed.
    writeFileSync(
      join(dir, 'fleet/hosts.yaml'),
      `${host('a', { role: 'db' })}---\n${host('b', { role: 'db' })}---\n${host('d', { role: 'db' })}`,
    );
    const text = await cli('affected', join(dir, 'fleet'), '--from', 'HEAD');
    assert.match(text.out, /^1 of 3 hosts affected\n/);
    assert.match(text.out, /a +[0-9a-f]{8} → [0-9a-f]{8}/);
    const bad = await cli('affected', join(dir, 'fleet'), '--from', '--upload-pack=evil');
    assert.equal(bad.code, 1);
    const unknown = await cli('affected', join(dir, 'fleet'), '--from', 'no-such-branch');
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /unknown revision/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('affected: a host whose document breaks is named, not silently shown as removed', async (t) => {
  if (skipWithout(t, 'git')) return;
  const dir = tempTree({
    'fleet.yaml': FLEET,
    'hosts.yaml': `${host('a', { role: 'web' })}---\n${host('b', { role: 'web' })}`,
    'web/layer.yaml': `${layer('web', 0)}---\n${doc('Package', 'nginx', 'desired:\n  state: present\n')}`,
  });
  try {
    commitAllIn(dir);
    writeFileSync(
      join(dir, 'hosts.yaml'),
      `${host('a', { role: 'web' })}---\n${host('b', { role: 'web', 'datum/x': 'y' })}`,
    );
    const r = await cli('affected', dir, '--from', 'HEAD');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^1 of 2 hosts affected\n/);
    assert.match(
      r.err,
      /note: at the working tree, b has Host document errors and is left out of the comparison\n/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('affected: a missing directory or a file is named as such, never as a missing git', async () => {
  // regression: a missing directory read as "git is not installed", a file as an internal error.
  const missing = await cli('affected', '/nonexistent/fleet', '--from', 'HEAD');
  assert.equal(missing.code, 3);
  assert.match(
    missing.err,
    /FLEET_UNREADABLE: cannot read \/nonexistent\/fleet: no such file or directory/,
  );
  const file = await cli('affected', `${EXAMPLE}/fleet.yaml`, '--from', 'HEAD');
  assert.equal(file.code, 1);
  assert.match(file.err, /FLEET_NOT_A_DIRECTORY/);
  assert.doesNotMatch(file.err, /internal error/);
});

test('affected: outside git, and at a revision without the fleet, the reason is given', async (t) => {
  if (skipWithout(t, 'git')) return;
  const dir = tempTree({ 'README.md': 'x\n' });
  const git = (...args: string[]): void => gitIn(dir, ...args);
  try {
    // Exit 1 (the folder named is not a repository), as Datum and `labelwise diff` say.
    const outside = await cli('affected', dir, '--from', 'HEAD');
    assert.equal(outside.code, 1);
    assert.match(outside.err, /FLEET_GIT_FAILED: .* is not inside a git repository/);
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'before the fleet');
    mkdirSync(join(dir, 'fleet'));
    writeFileSync(join(dir, 'fleet/fleet.yaml'), FLEET);
    writeFileSync(join(dir, 'fleet/hosts.yaml'), host('a'));
    const r = await cli('affected', join(dir, 'fleet'), '--from', 'HEAD');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^1 of 1 host affected\n/);
    assert.match(
      r.err,
      /note: at HEAD, .*fleet holds no Fleet document, so no host is resolved there\n/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('affected: error codes for a refused revision and for a missing git', async () => {
  const refused = await cli('affected', EXAMPLE, '--from', '--upload-pack=evil', '--json');
  assert.equal(refused.code, 1);
  assert.equal(
    (JSON.parse(refused.out) as { error: { code: string } }).error.code,
    'FLEET_BAD_REVISION',
  );
  const path = process.env.PATH;
  process.env.PATH = '';
  try {
    const noGit = await cli('affected', EXAMPLE, '--from', 'HEAD');
    assert.equal(noGit.code, 3);
    assert.match(noGit.err, /FLEET_GIT_UNAVAILABLE: git is not installed or not on PATH/);
  } finally {
    process.env.PATH = path;
  }
});
