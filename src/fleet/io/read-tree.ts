/**
 * Reads a fleet directory of a repository through the shared {@link RepoReader}: every YAML file
 * below it, skipping the directories Datum skips. The reader never follows a link out of the
 * repository, never opens special files and bounds every file's size; what it skipped comes back
 * as the fleet's own codes (`FLEET_SYMLINK_SKIPPED`, `FLEET_FILE_TOO_LARGE`).
 */
import type { Code } from '../../base/codes.js';
import { LabelwiseError, RepoReader } from '../../base/index.js';
import type { Diagnostic } from '../../base/index.js';
import {
  MAX_FILE_BYTES,
  SKIPPED_DIRS,
  isCandidate,
  topLevelExclude,
} from '../documents/load-fleet.js';
import type { FleetFile } from '../documents/load-fleet.js';

export { MAX_FILE_BYTES };

/** What a directory holds for a fleet: YAML files with their contents, and every file's path. */
export interface FleetTree {
  readonly files: FleetFile[];
  /** Every file (any kind), relative with `/`; `source:`/`template:` are checked against it. */
  readonly paths: string[];
  /** YAML files that are links the reader would not follow: never read, reported as warnings. */
  readonly links: string[];
  /**
   * YAML files over {@link MAX_FILE_BYTES}: never read. Reported by the loader unless excluded,
   * so a large file under an excluded directory cannot stop the fleet from loading.
   */
  readonly oversized: { readonly path: string; readonly size: number }[];
  /** Other problems the reader met (unreadable files, special files), paths relative to the tree. */
  readonly diagnostics?: Diagnostic[];
  /** Reads other files of the tree (File `source`/`template`), for the manifest digest. */
  readonly read?: (paths: readonly string[]) => Promise<Map<string, Uint8Array>>;
}

/** The reader's own codes, as the fleet module has always named them. */
const RENAMED: Readonly<Partial<Record<Code, Code>>> = {
  READ_UNREADABLE: 'FLEET_UNREADABLE',
  READ_NOT_A_DIRECTORY: 'FLEET_NOT_A_DIRECTORY',
};

/**
 * Opens the directory `dir` as a repository. The directory may itself be a symbolic link. Throws
 * `FLEET_NOT_A_DIRECTORY` (input) or an `unavailable` `FLEET_UNREADABLE`.
 */
export function openFleetReader(dir: string): RepoReader {
  try {
    return RepoReader.open(dir, { maxFileBytes: MAX_FILE_BYTES });
  } catch (error) {
    const code = error instanceof LabelwiseError ? RENAMED[error.code] : undefined;
    if (error instanceof LabelwiseError && code !== undefined) {
      throw new LabelwiseError(code, error.message, {
        source: error.source,
        hint:
          code === 'FLEET_NOT_A_DIRECTORY'
            ? 'name the fleet directory (the one holding the Fleet document), not a file in it'
            : error.hint,
        kind: error.kind,
      });
    }
    throw error;
  }
}

/** Checks that `dir` is a directory (for git, which runs in it). Throws as {@link openFleetReader}. */
export async function assertDirectory(dir: string): Promise<void> {
  openFleetReader(dir);
  await Promise.resolve();
}

/** Whether `path` is `dir` or below it (repository-relative, `''` is the root). */
function under(path: string, dir: string): boolean {
  return dir === '' || path === dir || path.startsWith(`${dir}/`);
}

/** The YAML files directly in `dir`, read once: where a Fleet document at the root lies. */
function topFiles(reader: RepoReader, dir: string): Map<string, FleetFile> {
  const prefix = dir === '' ? '' : `${dir}/`;
  const out = new Map<string, FleetFile>();
  for (const entry of reader.list(dir, { recursive: false })) {
    const path = entry.path.slice(prefix.length);
    if (!isCandidate(path) || entry.size > MAX_FILE_BYTES) continue;
    const bytes = reader.readBytes(entry.path);
    if (bytes !== undefined) out.set(path, { path, bytes });
  }
  return out;
}

/**
 * Every YAML file under the repository directory `dir` (`''`: the reader's root), paths relative
 * to `dir` with `/`, and the paths of all other files.
 */
export function readFleetTree(reader: RepoReader, dir = ''): FleetTree {
  const prefix = dir === '' ? '' : `${dir}/`;
  const before = reader.diagnostics.length;
  const top = topFiles(reader, dir);
  const excluded = topLevelExclude([...top.values()]);
  const prune =
    excluded === undefined
      ? undefined
      : (path: string): boolean => excluded(path.slice(prefix.length));
  const entries = reader.list(dir, { skipDirs: SKIPPED_DIRS, prune });
  const files: FleetFile[] = [];
  const paths: string[] = [];
  const oversized: { path: string; size: number }[] = [];
  for (const entry of entries) {
    const path = entry.path.slice(prefix.length);
    paths.push(path);
    if (!isCandidate(path)) continue;
    if (entry.size > MAX_FILE_BYTES) {
      oversized.push({ path, size: entry.size });
      continue;
    }
    const bytes = top.get(path)?.bytes ?? reader.readBytes(entry.path);
    if (bytes !== undefined) files.push({ path, bytes });
  }
  const links: string[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const d of reader.diagnostics.slice(before)) {
    if (d.file === undefined || !under(d.file, dir)) continue;
    const path = d.file.slice(prefix.length);
    if (d.code === 'READ_TOO_LARGE') {
      if (!oversized.some((o) => o.path === path))
        oversized.push({ path, size: MAX_FILE_BYTES + 1 });
    } else if (
      d.code === 'READ_SYMLINK_OUTSIDE' ||
      d.code === 'READ_BROKEN_SYMLINK' ||
      d.code === 'READ_OUTSIDE_REPOSITORY'
    ) {
      if (isCandidate(path)) links.push(path);
    } else if (isCandidate(path)) diagnostics.push({ ...d, file: path });
  }
  const read = (wanted: readonly string[]): Promise<Map<string, Uint8Array>> => {
    const out = new Map<string, Uint8Array>();
    const known = new Set(paths);
    for (const path of wanted) {
      if (!known.has(path)) continue;
      const bytes = reader.readBytes(`${prefix}${path}`);
      if (bytes !== undefined) out.set(path, bytes);
    }
    return Promise.resolve(out);
  };
  return { files, paths, links, oversized, diagnostics, read };
}

/** Every YAML file under `dir` on disk, read through a {@link RepoReader} rooted there. */
export function readFleetFiles(dir: string): Promise<FleetTree> {
  return Promise.resolve(readFleetTree(openFleetReader(dir)));
}
