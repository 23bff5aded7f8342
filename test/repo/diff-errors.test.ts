/**
 * Every way `labelwise diff` can fail to read git names its code: a revision that names nothing,
 * a folder outside git, git missing from PATH, and a repository whose objects are damaged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { skipWithout } from '../support/capabilities.js';
import { git } from '../support/git.js';

async function withFolder(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'labelwise-diff-errors-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function diffJson(cwd: string, ...args: string[]) {
  const io = memoryIO({ cwd });
  const code = await run(['diff', '.', '--json', ...args], io);
  return { code, text: io.out + io.err };
}

/** A repository with one commit holding one Compose file. */
async function oneCommit(dir: string): Promise<string> {
  git(dir, 'init', '-q', '-b', 'main');
  await writeFile(join(dir, 'compose.yaml'), 'services:\n  web:\n    image: nginx\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'one');
  return git(dir, 'rev-parse', 'HEAD:compose.yaml');
}

test('a revision that names no commit is DIFF_BAD_REVISION (exit 1)', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withFolder(async (dir) => {
    await oneCommit(dir);
    const result = await diffJson(dir, '--from', 'no-such-branch');
    assert.equal(result.code, 1);
    assert.match(result.text, /DIFF_BAD_REVISION/);
  });
});

test('a folder outside any git work tree is DIFF_NOT_A_REPOSITORY (exit 1)', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withFolder(async (dir) => {
    await writeFile(join(dir, 'compose.yaml'), 'services: {}\n');
    const result = await diffJson(dir, '--from', 'HEAD');
    assert.equal(result.code, 1);
    assert.match(result.text, /DIFF_NOT_A_REPOSITORY/);
  });
});

test('git missing from PATH is DIFF_GIT_UNAVAILABLE (exit 3)', async () => {
  await withFolder(async (dir) => {
    const saved = process.env.PATH;
    process.env.PATH = dir;
    try {
      const result = await diffJson(dir, '--from', 'HEAD');
      assert.equal(result.code, 3);
      assert.match(result.text, /DIFF_GIT_UNAVAILABLE/);
    } finally {
      process.env.PATH = saved;
    }
  });
});

test('a commit whose file objects are missing is DIFF_GIT_FAILED (exit 3)', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withFolder(async (dir) => {
    const blob = await oneCommit(dir);
    await rm(join(dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
    const result = await diffJson(dir, '--from', 'HEAD');
    assert.equal(result.code, 3);
    assert.match(result.text, /DIFF_GIT_FAILED/);
  });
});
