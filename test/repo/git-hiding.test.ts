/**
 * What a commit can hide from review, tried as a hostile contributor would: `.gitattributes`
 * (`export-ignore` drops a file, `export-subst` rewrites one), a file named with bytes that are
 * not UTF-8, and a `.git/config` whose programs git would run. Each must be seen, or run nothing.
 */
import { test } from 'node:test';
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCommitSnapshot } from '../../src/base/index.js';
import type { RepoDiff } from '../../src/repo/index.js';
import { FLEET, doc, host, layer } from '../fleet/helpers.js';
import { skipWithout } from '../support/capabilities.js';
import { cliIn as cli, git } from '../support/git.js';
import { withTempDir } from '../support/temp.js';

const POLICY = join(import.meta.dirname, '..', '..', 'examples', 'homelab', 'policy');

/** Opens Server authors-http to every address: the change a reviewer must see. */
const OPEN_TO_WORLD = `apiVersion: policy.linkerd.io/v1alpha1
kind: NetworkAuthentication
metadata:
  name: everyone
  namespace: booksapp
spec:
  networks:
    - cidr: 0.0.0.0/0
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata:
  name: authors-open
  namespace: booksapp
spec:
  targetRef:
    group: policy.linkerd.io
    kind: Server
    name: authors-http
  requiredAuthenticationRefs:
    - name: everyone
      kind: NetworkAuthentication
      group: policy.linkerd.io
`;

/** A checkout holding the example's policy/ in one commit. */
async function policyRepo(dir: string): Promise<void> {
  await cp(POLICY, join(dir, 'policy'), { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'policy');
}

test('a policy hidden by export-ignore in the same commit is still reviewed', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withTempDir('hide', async (dir) => {
    await policyRepo(dir);
    writeFileSync(join(dir, 'policy', 'zz.yaml'), OPEN_TO_WORLD);
    writeFileSync(join(dir, '.gitattributes'), 'policy/zz.yaml export-ignore\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'open authors to the world');
    const r = await cli(dir, 'diff', '.', '--from', 'HEAD~1', '--to', 'HEAD', '--json');
    assert.equal(r.code, 2, r.err);
    const diff = JSON.parse(r.out) as RepoDiff;
    assert.equal(diff.changed, true);
    assert.ok(
      diff.introduced.some((d) => d.file === 'policy/zz.yaml'),
      'policy/zz.yaml is read at HEAD',
    );
    assert.match(r.out, /authors-http/);
  });
});

test('export-subst does not change what diff reads: the committed blob, byte for byte', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withTempDir('subst', async (dir) => {
    await policyRepo(dir);
    // `git archive` would turn `$Format:%x22$` into a quote and break the YAML.
    const text = `${OPEN_TO_WORLD.replace('name: everyone', 'name: everyone\n  annotations:\n    note: "v$Format:%x22$"')}`;
    writeFileSync(join(dir, 'policy', 'zz.yaml'), text);
    writeFileSync(join(dir, '.gitattributes'), 'policy/zz.yaml export-subst\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'subst');
    const r = await cli(dir, 'diff', '.', '--from', 'HEAD', '--json');
    assert.equal(r.code, 0, r.out + r.err);
    assert.equal((JSON.parse(r.out) as RepoDiff).changed, false);
    const snap = await writeCommitSnapshot(dir, 'policy/', git(dir, 'rev-parse', 'HEAD'));
    try {
      assert.equal(readFileSync(join(snap.dir, 'zz.yaml'), 'utf8'), text);
    } finally {
      snap.cleanup();
    }
  });
});

test('fleet affected sees a layer hidden by export-ignore', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withTempDir('hide-fleet', async (dir) => {
    mkdirSync(join(dir, 'fleet'));
    writeFileSync(join(dir, 'fleet', 'fleet.yaml'), FLEET);
    writeFileSync(join(dir, 'fleet', 'hosts.yaml'), `${host('a')}---\n${host('b')}`);
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'one');
    writeFileSync(
      join(dir, 'fleet', 'root.yaml'),
      `${layer('everyone', 0, '  labels: {}\n')}---\n${doc('User', 'backdoor', 'desired:\n  uid: 0\n')}`,
    );
    writeFileSync(join(dir, '.gitattributes'), 'fleet/root.yaml export-ignore\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'two');
    const r = await cli(dir, 'fleet', 'affected', 'fleet', '--from', 'HEAD~1', '--to', 'HEAD');
    assert.match(r.out, /^2 of 2 hosts affected\n/, r.out + r.err);
  });
});

test('a file whose name is not UTF-8, added by a commit, fails the diff with its name escaped', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withTempDir('bytes', async (dir) => {
    await policyRepo(dir);
    const name = Buffer.concat([
      Buffer.from(`${dir}/policy/`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('.yaml'),
    ]);
    writeFileSync(name, OPEN_TO_WORLD);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'bytes');
    const r = await cli(dir, 'diff', '.', '--from', 'HEAD~1', '--to', 'HEAD', '--json');
    assert.equal(r.code, 1, r.out + r.err);
    const diff = JSON.parse(r.out) as RepoDiff;
    const found = diff.introduced.find((d) => d.code === 'READ_NAME_NOT_UTF8');
    assert.equal(found?.file, 'policy/\\xff\\xfe.yaml');
    assert.equal(found?.severity, 'error');
  });
});

/** Writes a program that leaves `marker` behind when anything runs it. */
function trap(dir: string, marker: string): string {
  const script = join(dir, `trap-${marker}.sh`);
  writeFileSync(script, `#!/bin/sh\necho ran >> "${join(tmpdir(), marker)}"\nexit 0\n`);
  chmodSync(script, 0o755);
  return script;
}

test('a hostile .git/config runs nothing and .git/index stays byte-identical (build and diff)', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withTempDir('hostile', async (dir) => {
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    await policyRepo(repo);
    const marker = `labelwise-trap-${process.pid}-${Date.now()}`;
    const program = trap(dir, marker);
    const config = [
      ['core.fsmonitor', program],
      ['diff.external', program],
      ['diff.evil.textconv', program],
      ['filter.evil.clean', program],
      ['filter.evil.smudge', program],
      ['filter.evil.process', program],
    ];
    for (const [key, value] of config) git(repo, 'config', key as string, value as string);
    writeFileSync(join(repo, '.gitattributes'), '* diff=evil filter=evil\n');
    mkdirSync(join(repo, '.git', 'hooks'), { recursive: true });
    for (const hook of [
      'post-index-change',
      'pre-commit',
      'post-checkout',
      'reference-transaction',
    ]) {
      writeFileSync(join(repo, '.git', 'hooks', hook), readFileSync(program));
      chmodSync(join(repo, '.git', 'hooks', hook), 0o755);
    }
    // A change in the work tree, so "+dirty" has something to find.
    writeFileSync(join(repo, 'policy', 'README.md'), 'edited\n');
    const index = readFileSync(join(repo, '.git', 'index'));
    const out = join(dir, 'out');
    const built = await cli(dir, 'build', 'repo', '--out', out);
    assert.equal(built.code, 0, built.out + built.err);
    assert.match(readFileSync(join(out, 'report.html'), 'utf8'), /\+dirty/);
    const diffed = await cli(repo, 'diff', '.', '--from', 'HEAD', '--json');
    assert.equal(diffed.code, 0, diffed.out + diffed.err);
    assert.equal(existsSync(join(tmpdir(), marker)), false, 'a program from .git/config ran');
    assert.ok(readFileSync(join(repo, '.git', 'index')).equals(index), '.git/index was rewritten');
  });
});

test('a snapshot folder is gone after diff, and one a killed run left is swept', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withTempDir('sweep', async (dir) => {
    await policyRepo(dir);
    // A folder named for a process that no longer exists (pid 2^22 + 1 is past pid_max's default).
    const stale = join(tmpdir(), 'labelwise-snapshot-4194305-deadbeef');
    mkdirSync(join(stale, 'x'), { recursive: true });
    const before = (await readdir(tmpdir())).filter((e) =>
      e.startsWith(`labelwise-snapshot-${process.pid}-`),
    );
    const r = await cli(dir, 'diff', '.', '--from', 'HEAD');
    assert.equal(r.code, 0, r.out + r.err);
    const after = (await readdir(tmpdir())).filter((e) =>
      e.startsWith(`labelwise-snapshot-${process.pid}-`),
    );
    assert.deepEqual(after, before);
    assert.equal(existsSync(stale), false);
  });
});

test('a snapshot folder is removed when the run is stopped by SIGTERM, SIGINT or SIGHUP', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withTempDir('signal', async (dir) => {
    await policyRepo(dir);
    const script = `
      import { writeCommitSnapshot } from ${JSON.stringify(join(import.meta.dirname, '..', '..', 'src', 'base', 'index.ts'))};
      const snap = await writeCommitSnapshot(${JSON.stringify(dir)}, '', ${JSON.stringify(git(dir, 'rev-parse', 'HEAD'))});
      process.stdout.write(snap.dir + '\\n');
      setInterval(() => undefined, 1000);
    `;
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      const folder = await new Promise<string>((resolve) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(out.trim());
        });
      });
      assert.equal(existsSync(folder), true);
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill(signal);
      await exited;
      assert.equal(existsSync(folder), false, `${signal} left ${folder}`);
    }
  });
});
