/**
 * A directory of a commit written to a private temporary folder, so every module reads that
 * revision through the same {@link RepoReader} it uses on a work tree. The files are the
 * committed blobs byte for byte ({@link listCommitTree}); names that are not UTF-8 keep their
 * bytes.
 *
 * Why a folder and not a reader over memory: every module's loader opens its part by path
 * (policy, anchor and catalog each open a RepoReader of their own), so one folder keeps one
 * reading path for a work tree and a revision alike. The cost is cleanup: the folder is removed
 * when done, on SIGINT/SIGTERM/SIGHUP, and a later run sweeps folders whose process is gone
 * (a SIGKILL), as the output writer does for its stages.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { GitReadError, listCommitTree, readBlobs } from './git-tree.js';
import type { GitTreeEntry } from './git-tree.js';
import { processAlive } from './process-alive.js';

const PREFIX = 'labelwise-snapshot-';

export interface CommitSnapshot {
  /** The directory asked for, as that commit holds it. */
  readonly dir: string;
  readonly cleanup: () => void;
}

export interface SnapshotOptions {
  /**
   * Blobs larger than this are not read: an empty file of the same size stands in, so the
   * reader reports it as too large exactly as it would on disk. Default 16 MiB.
   */
  readonly maxFileBytes?: number;
  /** The snapshot folder's own name (the work tree folder's). Default: `basename(top)`. */
  readonly folderName?: string;
}

/** Removes snapshot folders left by runs that were killed before they could clean up. */
export function sweepStaleSnapshots(parent = tmpdir()): void {
  let entries: string[];
  try {
    entries = readdirSync(parent);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!entry.startsWith(PREFIX)) continue;
    const pid = Number(entry.slice(PREFIX.length).split('-')[0]);
    if (!processAlive(pid)) rmSync(join(parent, entry), { recursive: true, force: true });
  }
}

/** A path component git could hold in a crafted tree but a folder must never contain. */
function unsafe(part: Buffer): boolean {
  const text = part.toString('latin1');
  return text === '' || text === '.' || text === '..';
}

/**
 * Creates the parent directories of `parts` below `root`, one component at a time, refusing to
 * pass through anything that is not a real directory (a link written earlier).
 */
function ensureParent(root: string, parts: readonly Buffer[]): Buffer {
  let at = Buffer.from(root);
  for (const part of parts.slice(0, -1)) {
    at = Buffer.concat([at, Buffer.from('/'), part]);
    try {
      mkdirSync(at, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (!lstatSync(at).isDirectory()) throw new GitReadError('tree path passes a link', false);
  }
  return Buffer.concat([at, Buffer.from('/'), parts.at(-1) as Buffer]);
}

function splitPath(raw: Buffer): Buffer[] | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const slash = raw.indexOf(47, at);
    parts.push(raw.subarray(at, slash < 0 ? raw.length : slash));
    if (slash < 0) break;
    at = slash + 1;
  }
  return parts.some(unsafe) ? undefined : parts;
}

function writeFile(path: Buffer, bytes: Buffer | undefined, size: number, mode: string): void {
  // 'wx' with O_NOFOLLOW semantics: a name already taken (a duplicate in a crafted tree) fails.
  const fd = openSync(path, 'wx', mode === '100755' ? 0o700 : 0o600);
  try {
    if (bytes === undefined) ftruncateSync(fd, size);
    else for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done);
  } finally {
    closeSync(fd);
  }
}

async function writeEntries(
  top: string,
  root: string,
  entries: readonly GitTreeEntry[],
  limit: number,
): Promise<void> {
  const blobs = entries.filter((e) => e.type === 'blob');
  const wanted = blobs.filter((e) => e.mode === '120000' || e.size <= limit);
  const contents = new Map<GitTreeEntry, Buffer>();
  const read = await readBlobs(
    top,
    wanted.map((e) => e.sha),
  );
  wanted.forEach((entry, i) => contents.set(entry, read[i] as Buffer));
  // Files first, links last: no file is ever written through a link the tree itself made.
  const ordered = [
    ...blobs.filter((e) => e.mode !== '120000'),
    ...blobs.filter((e) => e.mode === '120000'),
  ];
  for (const entry of ordered) {
    const parts = splitPath(entry.raw);
    if (parts === undefined) throw new GitReadError('the commit holds an unsafe path', false);
    const target = ensureParent(root, parts);
    if (entry.mode === '120000') symlinkSync(contents.get(entry) as Buffer, target);
    else writeFile(target, contents.get(entry), entry.size, entry.mode);
  }
}

/**
 * Writes the directory `prefix` (`''` or ending in `/`) of `commit` into a new temporary
 * folder. The folder keeps the work tree folder's name ({@link SnapshotOptions.folderName}) so
 * what a module derives from a folder name (a Compose project name) matches a build of it.
 * Throws {@link GitReadError}.
 */
export async function writeCommitSnapshot(
  top: string,
  prefix: Buffer | string,
  commit: string,
  options: SnapshotOptions = {},
): Promise<CommitSnapshot> {
  sweepStaleSnapshots();
  const holder = join(tmpdir(), `${PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`);
  mkdirSync(holder, { mode: 0o700 });
  const name = options.folderName ?? basename(top);
  const root = join(holder, name === '' || name === '.' || name === '..' ? 'repository' : name);
  const cleanup = (): void => {
    rmSync(holder, { recursive: true, force: true });
    for (const signal of SIGNALS) process.removeListener(signal, onSignal);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    cleanup();
    process.kill(process.pid, signal);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  try {
    mkdirSync(root, { mode: 0o700 });
    const entries = await listCommitTree(top, commit, prefix);
    await writeEntries(top, root, entries, options.maxFileBytes ?? 16 * 1024 * 1024);
  } catch (error) {
    cleanup();
    if (error instanceof GitReadError) throw error;
    throw new GitReadError(`cannot write the snapshot: ${(error as Error).message}`, true);
  }
  return { dir: root, cleanup };
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
