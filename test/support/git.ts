import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';

/**
 * Runs git in `cwd` as a throwaway committer (no signing, a fixed date, so every run makes the
 * same history); fails the test when git fails.
 */
export function git(cwd: string, ...args: string[]): string {
  const result = spawnSync(
    'git',
    [
      '-c',
      'user.name=labelwise test',
      '-c',
      'user.email=test@example.invalid',
      '-c',
      'commit.gpgsign=false',
      ...args,
    ],
    {
      cwd,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
        GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
      },
    },
  );
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim();
}

/** Runs `labelwise ARGV` in-process in `cwd`. */
export async function cliIn(
  cwd: string,
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO({ cwd });
  const code = await run(argv, io);
  return { code, out: io.out, err: io.err };
}
