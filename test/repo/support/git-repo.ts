/**
 * A git repository made in a test: write files, commit, and run labelwise on it in process.
 * Commits are made with a fixed author and date so every run makes the same history.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TestContext } from 'node:test';
import { skipWithout } from '../../support/capabilities.js';
import { cliIn, git } from '../../support/git.js';
import { withTempDir } from '../../support/temp.js';

export { git };

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
export const labelwise = cliIn;

/** Runs `body` in a new git repository, or skips the test where git cannot run. */
export async function inGitRepo(
  t: TestContext,
  name: string,
  body: (dir: string) => Promise<void>,
): Promise<void> {
  if (skipWithout(t, 'git')) return;
  await withTempDir(name, async (dir) => {
    initRepo(dir);
    await body(dir);
  });
}
