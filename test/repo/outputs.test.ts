import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LabelwiseError } from '../../src/base/errors.js';
import { MARKER, writeOutputDirectory } from '../../src/repo/index.js';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'labelwise-out-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('writes every file under a fresh directory, with the marker', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    await writeOutputDirectory(out, { 'fleet/a.json': '{}\n', 'report.json': '{"ok":true}\n' });
    assert.deepEqual((await readdir(out)).sort(), [MARKER, 'fleet', 'report.json']);
    assert.equal(await readFile(join(out, 'fleet', 'a.json'), 'utf8'), '{}\n');
  }));

test('replaces a previous build completely (no stale files)', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    await writeOutputDirectory(out, { 'old.json': '1' });
    await writeOutputDirectory(out, { 'new.json': '2' });
    assert.deepEqual((await readdir(out)).sort(), [MARKER, 'new.json']);
    assert.deepEqual((await readdir(dir)).sort(), ['out'], 'no staging directory is left behind');
  }));

test('refuses to replace a non-empty directory it did not write, and leaves it untouched', () =>
  withDir(async (dir) => {
    const out = join(dir, 'mine');
    await mkdir(out);
    await writeFile(join(out, 'precious.txt'), 'keep me');
    await assert.rejects(writeOutputDirectory(out, { 'a.json': '1' }), (error: unknown) => {
      assert.ok(error instanceof LabelwiseError);
      assert.equal(error.code, 'BUILD_OUT_NOT_OURS');
      return true;
    });
    assert.equal(await readFile(join(out, 'precious.txt'), 'utf8'), 'keep me');
    assert.deepEqual((await readdir(dir)).sort(), ['mine']);
  }));

test('an output path escaping the directory is a bug and nothing is written', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    await assert.rejects(
      writeOutputDirectory(out, { 'a.json': '1', '../evil.json': 'x' }),
      /escapes/,
    );
    assert.deepEqual(await readdir(dir), []);
  }));
