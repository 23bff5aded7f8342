import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs `fn` with a fresh temporary directory, removed afterwards whatever happens. */
export async function withTempDir(
  prefix: string,
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), `labelwise-${prefix}-`));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Replaces `from` in a fixture file; fails when the edit would change nothing. */
export async function editFile(path: string, from: string | RegExp, to: string): Promise<void> {
  const text = await readFile(path, 'utf8');
  const next = text.replace(from, to);
  assert.notEqual(next, text, `the fixture edit of ${path} must change something`);
  await writeFile(path, next);
}

const made: string[] = [];
let sweeping = false;

/**
 * A new temporary directory (`labelwise-<prefix>-…`) for tests that hand paths around rather than
 * work inside a callback; every one is removed when the test process exits, pass or fail.
 */
export function tempDirSync(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `labelwise-${prefix}-`));
  made.push(dir);
  if (!sweeping) {
    sweeping = true;
    process.on('exit', () => {
      for (const path of made) rmSync(path, { recursive: true, force: true });
    });
  }
  return dir;
}
