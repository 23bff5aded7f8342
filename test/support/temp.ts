import assert from 'node:assert/strict';
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
