/**
 * A git repository made in a test: write files, commit, and run labelwise on it in process.
 * Commits are made with a fixed author and date so every run makes the same history.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { memoryIO } from '../../../src/cli/io.js';
import { run } from '../../../src/cli/main.js';

const IDENTITY = [
  '-c',
  'user.name=labelwise test',
  '-c',
  'user.email=test@example.invalid',
  '-c',
  'commit.gpgsign=false',
];

export function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', [...IDENTITY, ...args], {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
      GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
    },
  });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim();
}

export function initRepo(dir: string): void {
  git(dir, 'init', '-q', '-b', 'main');
}

/**
 * Makes the work tree hold exactly `files` (paths with `/`; others are removed, `.git` kept),
 * then commits them. Returns the commit.
 */
export function commitTree(
  dir: string,
  files: Readonly<Record<string, string>>,
  message: string,
): string {
  for (const tracked of git(dir, 'ls-files', '-z').split('\0').filter(Boolean))
    if (!(tracked in files)) rmSync(join(dir, tracked), { force: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '--allow-empty', '-m', message);
  return git(dir, 'rev-parse', 'HEAD');
}

/** `labelwise ARGS…` in process: exit code, stdout, stderr. */
export async function labelwise(
  cwd: string,
  ...args: string[]
): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO({ cwd });
  const code = await run(args, io);
  return { code, out: io.out, err: io.err };
}
