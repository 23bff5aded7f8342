/**
 * Writes rendered files into an apps directory without ever leaving a half-written service:
 * each `<service>/` is written complete into a hidden temporary directory beside it, then
 * swapped in by rename. Managed directories of services no longer in the catalog are removed;
 * anything else in the apps directory is left alone.
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LabelwiseError } from '../../base/errors.js';

/**
 * Creates `dir` and its missing parents one level at a time. Not `mkdirSync(dir, {recursive})`:
 * on Node 20 that spins forever when the kernel answers ENOENT for a path whose parent exists
 * (`--out /proc/x`); one level at a time, the same answer is an error.
 */
function ensureDir(dir: string): void {
  try {
    if (statSync(dir).isDirectory()) return;
  } catch {
    // Missing: create it below.
  }
  const parent = dirname(dir);
  if (parent !== dir) ensureDir(parent);
  mkdirSync(dir);
}

/**
 * Writes `files` (`<service>/<file>` → text) under `dir`, replacing each service directory
 * whole, and deletes the directories named in `stale`. Returns the service names written.
 */
export function writeAppsDir(
  dir: string,
  files: Readonly<Record<string, string>>,
  stale: readonly string[],
): string[] {
  const byService = new Map<string, [string, string][]>();
  for (const [path, text] of Object.entries(files)) {
    const [service, name] = path.split('/') as [string, string];
    const list = byService.get(service) ?? [];
    list.push([name, text]);
    byService.set(service, list);
  }
  let temp: string | undefined;
  try {
    ensureDir(dir);
    for (const [service, entries] of [...byService].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const target = join(dir, service);
      temp = join(dir, `.${service}.tmp-${process.pid}`);
      const old = join(dir, `.${service}.old-${process.pid}`);
      rmSync(temp, { recursive: true, force: true });
      mkdirSync(temp);
      for (const [name, text] of entries) writeFileSync(join(temp, name), text);
      if (existsSync(target)) renameSync(target, old);
      renameSync(temp, target);
      temp = undefined;
      rmSync(old, { recursive: true, force: true });
    }
    for (const service of stale) {
      if (!byService.has(service)) rmSync(join(dir, service), { recursive: true, force: true });
    }
  } catch (error) {
    // A service written halfway stays in its hidden temporary directory: remove it.
    try {
      if (temp !== undefined) rmSync(temp, { recursive: true, force: true });
    } catch {
      // Best effort: the write error below is the one to report.
    }
    throw new LabelwiseError(
      'CATALOG_WRITE_FAILED',
      `cannot write ${dir}: ${(error as Error).message}`,
      { file: dir },
      undefined,
      'unavailable',
    );
  }
  return [...byService.keys()].sort();
}
