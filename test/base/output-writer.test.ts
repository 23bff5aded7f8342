import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LabelwiseError,
  MANIFEST,
  foreignFiles,
  writeOwnedDirectory,
} from '../../src/base/index.js';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-writer-'));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'written';
  } catch (error) {
    assert.ok(error instanceof LabelwiseError, String(error));
    assert.equal(error.kind, 'unavailable');
    return error.code;
  }
}

test('writes exactly the files given plus a manifest of their hashes', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    await writeOwnedDirectory(out, { 'a/b.json': '{}\n', 'c.txt': 'x' }, { writer: 'test' });
    assert.deepEqual(readdirSync(out).sort(), [MANIFEST, 'a', 'c.txt']);
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST), 'utf8')) as { files: object };
    assert.deepEqual(Object.keys(manifest.files), ['a/b.json', 'c.txt']);
    assert.deepEqual(await foreignFiles(out), []);
    await writeOwnedDirectory(out, { 'd.txt': 'y' }, { writer: 'test' });
    assert.deepEqual(
      readdirSync(out).sort(),
      [MANIFEST, 'd.txt'],
      'the previous output is replaced whole',
    );
  }));

test('a directory without a manifest, or with files not in it, is not ours', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    mkdirSync(out);
    writeFileSync(join(out, '.labelwise-build'), '');
    assert.equal(
      await codeOf(writeOwnedDirectory(out, { a: '1' }, { writer: 'test' })),
      'OUT_NOT_OURS',
    );
    assert.deepEqual(await foreignFiles(out), ['.labelwise-build']);
    rmSync(join(out, '.labelwise-build'));
    assert.equal(
      await codeOf(writeOwnedDirectory(out, { a: '1' }, { writer: 'test' })),
      'written',
      'an empty directory may be used',
    );
  }));

test('refusals: the root, kernel trees, the repository and its ancestors, input folders', () =>
  withDir(async (dir) => {
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, 'policy'), { recursive: true });
    const options = { writer: 'test', repositories: [repo], inputs: [join(repo, 'policy')] };
    for (const target of [
      '/',
      '/proc/x',
      '/sys/kernel/x',
      '/dev/x',
      repo,
      dir,
      join(repo, 'policy', 'out'),
    ])
      assert.equal(
        await codeOf(writeOwnedDirectory(target, { a: '1' }, options)),
        'OUT_REFUSED',
        target,
      );
    assert.equal(
      await codeOf(writeOwnedDirectory(join(repo, 'out'), { a: '1' }, options)),
      'written',
    );
  }));

test('a bad output path from a module is refused before anything is written', () =>
  withDir(async (dir) => {
    for (const path of ['../x', '/etc/x', 'a/../../x', '', 'a//b', MANIFEST, 'a\u001b.txt'])
      await assert.rejects(
        writeOwnedDirectory(join(dir, 'out'), { [path]: '1' }, { writer: 'test' }),
        (error: unknown) => {
          assert.ok(error instanceof LabelwiseError);
          assert.equal(error.code, 'OUT_BAD_PATH');
          return true;
        },
      );
    assert.deepEqual(readdirSync(dir), []);
  }));

test('an I/O failure while writing is an error with exit 3, and nothing partial is left', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    // `a` as a file and as a directory: the stage cannot hold both, whoever runs the test.
    const code = await codeOf(writeOwnedDirectory(out, { a: '1', 'a/b': '2' }, { writer: 'test' }));
    assert.equal(code, 'OUT_UNWRITABLE');
    assert.deepEqual(readdirSync(dir), [], 'no stage, lock or output is left behind');
  }));
