// The filesystem edge: which files are read, in what order, with which names.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LabelwiseError } from '../../src/base/errors.js';
import { loadPolicyDir } from '../../src/policy/index.js';
import { tempDirSync } from '../support/temp.js';

const pod = (name: string): string =>
  `apiVersion: v1\nkind: Pod\nmetadata: { name: ${name}, namespace: ns }\n`;

test('reads *.yaml and *.yml recursively in sorted order, skipping dot-files and other files', async () => {
  const dir = tempDirSync('policy-dir');
  mkdirSync(join(dir, 'b'));
  mkdirSync(join(dir, '.hidden'));
  writeFileSync(join(dir, 'z.yaml'), pod('z'));
  writeFileSync(join(dir, 'b', 'a.yml'), pod('a'));
  writeFileSync(join(dir, 'notes.txt'), 'not yaml');
  writeFileSync(join(dir, '.hidden', 'h.yaml'), pod('h'));
  writeFileSync(join(dir, '.dot.yaml'), pod('dot'));
  const outside = tempDirSync('policy-link');
  writeFileSync(join(outside, 'linked.yaml'), pod('linked'));
  symlinkSync(join(outside, 'linked.yaml'), join(dir, 'link.yaml'));
  symlinkSync(dir, join(dir, 'loop'));
  const inside = join(dir, 'b', 'a.yml');
  symlinkSync(inside, join(dir, 'inner.yaml'));
  const loaded = await loadPolicyDir(dir);
  // A link inside the repository is read; one leaving it no longer is (a warning says so).
  assert.deepEqual(loaded.files, ['b/a.yml', 'inner.yaml', 'z.yaml']);
  assert.deepEqual(
    loaded.resources.pods.map((p) => p.meta.name),
    ['a', 'z'],
  );
  assert.deepEqual(
    loaded.problems.map((p) => [p.severity, p.code, p.file]),
    // The inner link names the same pod again: reported as a duplicate, not read twice silently.
    [
      ['warning', 'READ_SYMLINK_OUTSIDE', 'link.yaml'],
      ['error', 'POLICY_DUPLICATE_OBJECT', 'inner.yaml'],
    ],
  );
});

test('a single file can be given instead of a directory', async () => {
  const dir = tempDirSync('policy-file');
  writeFileSync(join(dir, 'one.yaml'), `${pod('one')}---\n${pod('two')}`);
  const loaded = await loadPolicyDir(join(dir, 'one.yaml'), { root: dir });
  assert.deepEqual(loaded.files, ['one.yaml']);
  assert.equal(loaded.resources.pods.length, 2);
  assert.equal(loaded.resources.pods[1]?.meta.at.line, 5);
});

test('a missing directory is unavailable (exit 3), not a crash', async () => {
  await assert.rejects(
    loadPolicyDir('/no/such/policy/dir'),
    (error: unknown) =>
      error instanceof LabelwiseError &&
      error.code === 'POLICY_UNREADABLE' &&
      error.kind === 'unavailable',
  );
});

test('a FIFO among the files is skipped with a warning, never waited on', async (t) => {
  const dir = tempDirSync('policy-fifo');
  writeFileSync(join(dir, 'a.yaml'), pod('a'));
  try {
    execFileSync('mkfifo', [join(dir, 'pipe.yaml')]);
  } catch {
    t.skip('mkfifo is not available');
    return;
  }
  const loaded = await loadPolicyDir(dir);
  assert.deepEqual(loaded.files, ['a.yaml']);
  assert.deepEqual(
    loaded.problems.map((p) => [p.code, p.file]),
    [['READ_SPECIAL_FILE', 'pipe.yaml']],
  );
});

test('a file over the size limit is refused with its name, the others are read', async () => {
  const dir = tempDirSync('policy-big');
  writeFileSync(join(dir, 'a.yaml'), pod('a'));
  writeFileSync(join(dir, 'big.yaml'), `${pod('big')}# ${'x'.repeat(2000)}\n`);
  const loaded = await loadPolicyDir(dir, { maxFileBytes: 1000 });
  assert.deepEqual(
    loaded.resources.pods.map((p) => p.meta.name),
    ['a'],
  );
  assert.deepEqual(
    loaded.problems.map((p) => [p.code, p.file]),
    [['READ_TOO_LARGE', 'big.yaml']],
  );
});

test('/dev is never read as a policy directory', async () => {
  await assert.rejects(
    loadPolicyDir('/dev/zero', { root: '/dev' }),
    (error: unknown) => error instanceof LabelwiseError && error.code === 'READ_SYSTEM_PATH',
  );
});
