/**
 * Reads a fleet directory from disk: every YAML file below it, skipping version-control and
 * dependency directories and never following symbolic links (a link loop must not hang us).
 */
import { lstat, readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LabelwiseError } from '../../base/errors.js';
import { MAX_FILE_BYTES, SKIPPED_DIRS, isCandidate } from '../documents/load-fleet.js';
import type { FleetFile } from '../documents/load-fleet.js';

export { MAX_FILE_BYTES };

/** What a directory holds for a fleet: YAML files with their contents, and every file's path. */
export interface FleetTree {
  readonly files: FleetFile[];
  /** Every file (any kind), relative with `/`; `source:`/`template:` are checked against it. */
  readonly paths: string[];
  /** YAML files that are symbolic links: never read, reported so they are not missed silently. */
  readonly links: string[];
  /**
   * YAML files over {@link MAX_FILE_BYTES}: never read. Reported by the loader unless excluded,
   * so a large file under an excluded directory cannot stop the fleet from loading.
   */
  readonly oversized: { readonly path: string; readonly size: number }[];
}

/**
 * Checks that `dir` is a directory. The directory the user names may itself be a symbolic link
 * (only links inside the tree are never followed). Throws `FLEET_NOT_A_DIRECTORY` (input) or an
 * `unavailable` `FLEET_UNREADABLE`.
 */
export async function assertDirectory(dir: string): Promise<void> {
  let info;
  try {
    info = await stat(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new LabelwiseError(
      'FLEET_UNREADABLE',
      `cannot read ${dir}: ${code === 'ENOENT' ? 'no such file or directory' : (code ?? String(error))}`,
      { file: dir },
      undefined,
      'unavailable',
    );
  }
  if (!info.isDirectory())
    throw new LabelwiseError(
      'FLEET_NOT_A_DIRECTORY',
      `${dir} is not a directory`,
      { file: dir },
      'name the fleet directory (the one holding the Fleet document), not a file in it',
    );
}

/**
 * Every YAML file under `dir`, paths relative to it with `/`, and the paths of all other files.
 * Throws an `unavailable` LabelwiseError when `dir` cannot be read.
 */
export async function readFleetFiles(dir: string): Promise<FleetTree> {
  await assertDirectory(dir);
  const files: FleetFile[] = [];
  const paths: string[] = [];
  const links: string[] = [];
  const oversized: { path: string; size: number }[] = [];
  const walk = async (abs: string, rel: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch (error) {
      throw new LabelwiseError(
        'FLEET_UNREADABLE',
        `cannot read directory ${rel || '.'}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        { file: rel || '.' },
        undefined,
        'unavailable',
      );
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) await walk(join(abs, entry.name), path);
      } else if (entry.isFile() || entry.isSymbolicLink()) paths.push(path);
      if (entry.isSymbolicLink() && isCandidate(path)) links.push(path);
      if (entry.isFile() && isCandidate(path)) {
        const full = join(abs, entry.name);
        const info = await lstat(full);
        if (info.size > MAX_FILE_BYTES) {
          oversized.push({ path, size: info.size });
          continue;
        }
        try {
          files.push({ path, bytes: await readFile(full) });
        } catch (error) {
          throw new LabelwiseError(
            'FLEET_UNREADABLE',
            `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
            { file: path },
            undefined,
            'unavailable',
          );
        }
      }
    }
  };
  await walk(dir, '');
  return { files, paths, links, oversized };
}
