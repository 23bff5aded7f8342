/**
 * What the install tests share: a copy of the checkout as a user clones it (tracked and
 * untracked-but-not-ignored files, so no dist/ and no node_modules of its own), and the commands
 * a user runs on it. Every directory made here is under os.tmpdir() and removed by the caller.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import type { SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const PACKAGE = JSON.parse(
  execFileSync(process.execPath, ['-p', 'JSON.stringify(require("./package.json"))'], {
    cwd: ROOT,
    encoding: 'utf8',
  }),
) as { name: string; version: string; exports: Record<string, unknown> };

/** A fresh temporary directory. */
export function tempDir(name: string): string {
  return mkdtempSync(join(tmpdir(), `labelwise-${name}-`));
}

/** The files a clone of this checkout holds (committed or not yet, never ignored ones). */
export function checkoutFiles(): string[] {
  const listed = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  return listed.split('\0').filter((file) => file !== '' && existsSync(join(ROOT, file)));
}

/**
 * Copies the checkout to `dest` as a clone would have it. With `linkModules`, node_modules is a
 * link to this checkout's, so a build there needs no second `npm ci`.
 */
export function copyCheckout(dest: string, linkModules: boolean): void {
  for (const file of checkoutFiles()) {
    mkdirSync(dirname(join(dest, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(dest, file));
  }
  if (linkModules) symlinkSync(join(ROOT, 'node_modules'), join(dest, 'node_modules'), 'dir');
}

/** Runs a command; the result, never a throw, so a test can show stderr when it fails. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number; input?: string },
): SpawnSyncReturns<string> {
  return spawnSync(command, [...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    input: options.input,
    encoding: 'utf8',
    timeout: options.timeout ?? 600_000,
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** A one-line account of a failed command, for assertion messages. */
export function failure(result: SpawnSyncReturns<string>): string {
  const tail = (text: string | null): string => (text ?? '').split('\n').slice(-30).join('\n');
  return `exit ${String(result.status)} ${result.error?.message ?? ''}\n--- stdout\n${tail(result.stdout)}\n--- stderr\n${tail(result.stderr)}`;
}
