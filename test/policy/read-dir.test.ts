// The filesystem edge: which files are read, in what order, with which names.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { LabelwiseError } from '../../src/base/errors.js';
import { loadPolicyDir } from '../../src/policy/index.js';

const pod = (name: string): string =>
  `apiVersion: v1\nkind: Pod\nmetadata: { name: ${name}, namespace: ns }\n`;

test('reads *.yaml and *.yml recursively in sorted order, skipping dot-files and other files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'policy-dir-'));
  mkdirSync(join(dir, 'b'));
  mkdirSync(join(dir, '.hidden'));
  writeFileSync(join(dir, 'z.yaml'), pod('z'));
  writeFileSync(join(dir, 'b', 'a.yml'), pod('a'));
  writeFileSync(join(dir, 'notes.txt'), 'not yaml');
  writeFileSync(join(dir, '.hidden', 'h.yaml'), pod('h'));
  writeFileSync(join(dir, '.dot.yaml'), pod('dot'));
  const outside = mkdtempSync(join(tmpdir(), 'policy-link-'));
  writeFileSync(join(outside, 'linked.yaml'), pod('linked'));
  symlinkSync(join(outside, 'linked.yaml'), join(dir, 'link.yaml'));
  symlinkSync(dir, join(dir, 'loop'));
  const loaded = await loadPolicyDir(dir);
  assert.deepEqual(loaded.files, ['b/a.yml', 'link.yaml', 'z.yaml']);
  assert.deepEqual(
    loaded.resources.pods.map((p) => p.meta.name),
    ['a', 'linked', 'z'],
  );
  assert.deepEqual(loaded.problems, []);
});

test('a single file can be given instead of a directory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'policy-file-'));
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

test('a device that never ends is refused at the size limit, not read for ever', async (t) => {
  if (!existsSync('/dev/zero')) {
    t.skip('no /dev/zero on this system');
    return;
  }
  const loaded = await loadPolicyDir('/dev/zero', { root: '/dev' });
  assert.deepEqual(
    loaded.problems.map((p) => [p.code, p.file]),
    [['POLICY_FILE_TOO_LARGE', 'zero']],
  );
  assert.match(loaded.problems[0]?.message ?? '', /larger than the limit/);
});
