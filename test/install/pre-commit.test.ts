/**
 * The hooks of `.pre-commit-hooks.yaml`, installed the way pre-commit installs a
 * `language: node` hook from a repository URL: it clones the repository, runs `npm install`
 * there (prepare builds dist/), `npm pack`, and `npm install -g` of that tarball into its own
 * environment, then runs the hook's entry from it. `pre-commit try-repo` does exactly that on a
 * clone of this checkout, against a user repository holding the example.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { skipWithout } from '../support/capabilities.js';
import { ROOT, copyCheckout, failure, run, tempDir } from './support.js';

function git(cwd: string, ...args: string[]): void {
  const result = run(
    'git',
    ['-c', 'user.name=labelwise', '-c', 'user.email=ci@labelwise.dev', ...args],
    { cwd },
  );
  assert.equal(result.status, 0, failure(result));
}

/** A git repository holding `fill`'s files in one commit. */
function repository(dir: string, fill: (dir: string) => void): void {
  fill(dir);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'snapshot');
}

test('pre-commit installs the hooks from the repository and runs them', (t) => {
  if (skipWithout(t, 'pre-commit', 'npm-registry', 'git')) return;
  const work = tempDir('pre-commit');
  try {
    const hooks = join(work, 'labelwise');
    repository(hooks, (dir) => copyCheckout(dir, false));
    const user = join(work, 'user');
    repository(user, (dir) => cpSync(join(ROOT, 'examples', 'homelab'), dir, { recursive: true }));
    const env: NodeJS.ProcessEnv = { ...process.env, PRE_COMMIT_HOME: join(work, 'cache') };
    const result = run('pre-commit', ['try-repo', hooks, '--all-files', '--color', 'never'], {
      cwd: user,
      env,
      timeout: 1_500_000,
    });
    assert.equal(result.status, 0, failure(result));
    assert.match(result.stdout, /^labelwise build\.+Passed$/m);
    assert.match(result.stdout, /^labelwise diff\.+Passed$/m);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
