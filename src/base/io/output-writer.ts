/**
 * The one way labelwise writes a directory of output (`build --out`, `catalog render --out`).
 *
 * Ownership is proved, not assumed: the directory holds a manifest of every file labelwise wrote
 * there with its SHA-256. A directory is replaced only when it is new, empty, or holds exactly
 * the files of its manifest, unchanged; anything else is foreign and the write is refused with
 * the foreign files listed (exit 3). It also refuses to write to `/`, into `/proc`, `/sys` or
 * `/dev`, through a symbolic link, onto the repository or an ancestor of it, and inside an input
 * folder.
 *
 * The new tree is staged beside the target and swapped in by rename, so a failure or an
 * interrupt never leaves a half-written tree and the previous output stays intact until the
 * swap. A target that is a mount point cannot be renamed: there the stage lives inside it and
 * its contents are swapped instead, with the same promise (output-swap.ts). Concurrent runs to
 * one target are serialised by a lock file; stages and locks left by processes that died (or
 * by an earlier process with the same PID) are swept (output-lock.ts).
 */
import type { Code } from '../codes.js';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { lstat, mkdir, readFile, readdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, posix, resolve, sep } from 'node:path';
import { LabelwiseError } from '../errors.js';
import { compareText, escapeControl } from '../text.js';
import {
  acquireLock,
  holderAlive,
  holderName,
  holds,
  parseHolderName,
  release,
  selfHolder,
} from './output-lock.js';
import type { Holder } from './output-lock.js';
import {
  INSIDE_LOCK,
  INSIDE_PREFIX,
  MANIFEST,
  isMountPoint,
  isWriterEntry,
  swapBeside,
  swapInside,
  sweepInside,
} from './output-swap.js';
import { isSystemPath, isWithin } from './repo-reader.js';

export { MANIFEST };
const MANIFEST_FORMAT = 'labelwise-output/v1';

export interface OwnedWriteOptions {
  /** Who writes, as shown in messages and the manifest: `labelwise build`. */
  readonly writer: string;
  /** The flag that named the target, for messages: `--out`. */
  readonly flag?: string;
  /** Repository roots: the target may be neither one of them nor an ancestor of one. */
  readonly repositories?: readonly string[];
  /** Input folders: the target may not be one of them or lie inside one. */
  readonly inputs?: readonly string[];
  /** How long to wait for another run's lock before refusing, in ms. Default 60 s. */
  readonly lockTimeoutMs?: number;
}

interface Manifest {
  readonly format: string;
  readonly writer: string;
  readonly files: Record<string, string>;
}

function sha256(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

function unavailable(code: Code, message: string, hint?: string): LabelwiseError {
  return new LabelwiseError(code, message, { hint, kind: 'unavailable' });
}

function errnoText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on device';
    case 'EEXIST':
      return 'already exists';
    default:
      return code ?? String(error);
  }
}

/** Checks one output path (from a module's data): relative, no `..`, no empty or odd segments. */
export function checkOutputPath(path: string): string {
  const clean = posix.normalize(path);
  const bad =
    path === '' ||
    clean !== path ||
    clean.startsWith('/') ||
    clean === '.' ||
    clean.split('/').some((s) => s === '..' || s === '.' || s === '') ||
    // eslint-disable-next-line no-control-regex -- control characters make unreadable names
    /[\u0000-\u001f\u007f\\]/.test(path) ||
    basename(path) === MANIFEST;
  if (bad)
    throw new LabelwiseError(
      'OUT_BAD_PATH',
      `refusing to write output file ${JSON.stringify(path)}: not a plain relative path`,
    );
  return clean;
}

async function lstatOrUndefined(path: string) {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Resolves the target and refuses the places labelwise must never write to; returns its real
 * path. Call it before long work so a refusal comes first; the writer calls it again.
 */
export async function checkOutputTarget(
  target: string,
  options: OwnedWriteOptions,
): Promise<string> {
  const flag = options.flag ?? '--out';
  const shown = escapeControl(target, true);
  const abs = resolve(target);
  const refuse = (why: string, hint?: string): never => {
    throw new LabelwiseError('OUT_REFUSED', `refusing to write ${flag} ${shown}: ${why}`, {
      hint,
      kind: 'unavailable',
    });
  };
  if (abs === '/' || abs === sep) refuse('it is the filesystem root');
  if (isSystemPath(abs)) refuse('it lies in a kernel file system (/proc, /sys or /dev)');
  const info = await lstatOrUndefined(abs).catch((error) => refuse(errnoText(error)));
  if (info?.isSymbolicLink())
    refuse('it is a symbolic link', 'name the directory it points to, or another path');
  if (info !== undefined && !info.isDirectory())
    refuse('it exists and is not a directory', `choose another ${flag}`);
  // Resolve links in the parent so the checks below compare real paths.
  let realParent: string;
  try {
    realParent = await realpath(dirname(abs));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') realParent = await realParentOfMissing(dirname(abs), refuse);
    else return refuse(errnoText(error));
  }
  const real = join(realParent, basename(abs));
  if (real === '/' || isSystemPath(real))
    refuse('it lies in a kernel file system (/proc, /sys or /dev)');
  for (const repo of options.repositories ?? []) {
    const repoReal = await realpath(resolve(repo)).catch(() => resolve(repo));
    if (isWithin(repoReal, real))
      refuse(
        real === repoReal ? 'it is the repository itself' : 'the repository lies inside it',
        'write the output to a directory of its own, such as out/',
      );
  }
  for (const input of options.inputs ?? []) {
    const inputReal = await realpath(resolve(input)).catch(() => resolve(input));
    if (isWithin(real, inputReal) || isWithin(inputReal, real))
      refuse(
        'it overlaps an input folder that labelwise reads',
        'write the output outside the folders it reads',
      );
  }
  return real;
}

/** The real path of a directory that does not exist yet: its nearest existing ancestor, resolved. */
async function realParentOfMissing(dir: string, refuse: (why: string) => never): Promise<string> {
  const missing: string[] = [];
  let at = dir;
  for (let guard = 0; guard < 4096; guard++) {
    try {
      const base = await realpath(at);
      return join(base, ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') return refuse(errnoText(error));
      missing.push(basename(at));
      const up = dirname(at);
      if (up === at) break;
      at = up;
    }
  }
  return refuse('its parent directories cannot be resolved');
}

/** Every entry under `dir`, relative with `/`, with what kind it is. Symbolic links are not followed. */
async function listTree(dir: string): Promise<{ path: string; kind: 'file' | 'dir' | 'other' }[]> {
  const out: { path: string; kind: 'file' | 'dir' | 'other' }[] = [];
  const walk = async (abs: string, rel: string): Promise<void> => {
    const entries = await readdir(abs, { withFileTypes: true });
    for (const entry of entries) {
      if (rel === '' && isWriterEntry(entry.name)) continue;
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        out.push({ path, kind: 'dir' });
        await walk(join(abs, entry.name), path);
      } else out.push({ path, kind: entry.isFile() ? 'file' : 'other' });
    }
  };
  await walk(dir, '');
  return out;
}

async function readManifest(dir: string): Promise<Manifest | undefined> {
  try {
    const parsed = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as Partial<Manifest>;
    if (
      parsed.format !== MANIFEST_FORMAT ||
      typeof parsed.files !== 'object' ||
      parsed.files === null
    )
      return undefined;
    return parsed as Manifest;
  } catch {
    return undefined;
  }
}

/**
 * The files in `dir` that labelwise did not write: not in its manifest, changed since, or not a
 * regular file. Empty when the whole directory is labelwise's own.
 */
export async function foreignFiles(dir: string): Promise<string[]> {
  const entries = await listTree(dir);
  if (entries.length === 0) return [];
  const manifest = await readManifest(dir);
  const foreign: string[] = [];
  for (const entry of entries) {
    if (entry.kind === 'dir' || entry.path === MANIFEST) continue;
    const recorded = manifest?.files[entry.path];
    if (entry.kind !== 'file' || recorded === undefined) {
      foreign.push(entry.path);
      continue;
    }
    const content = await readFile(join(dir, ...entry.path.split('/')));
    if (sha256(content) !== recorded) foreign.push(entry.path);
  }
  if (manifest === undefined && foreign.length === 0) foreign.push(MANIFEST);
  return foreign.sort(compareText);
}

/** Files of stages and locks beside a target, keyed by the target's name. */
function stagePrefix(name: string): string {
  return `.${name}.labelwise-stage-`;
}

/**
 * Removes the beside-mode stages of dead writers. A stage ending in `-old` is a previous output
 * a dead run had moved aside but not yet replaced: when the target is missing it is put back,
 * never deleted, so an interrupted swap cannot lose the last good output.
 */
async function sweepBeside(parent: string, name: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(parent);
  } catch {
    return;
  }
  const prefix = stagePrefix(name);
  const drafts = `.${name}.labelwise-lock.`;
  for (const entry of entries.sort(compareText)) {
    if (entry.startsWith(drafts)) {
      // A lock's draft, left by a writer killed between writing it and linking it in.
      if (!holderAlive(parseHolderName(entry.slice(drafts.length))))
        await rm(join(parent, entry), { force: true });
      continue;
    }
    if (!entry.startsWith(prefix)) continue;
    const segment = entry.slice(prefix.length).split('-')[0] ?? '';
    if (holderAlive(parseHolderName(segment))) continue;
    const path = join(parent, entry);
    if (entry.endsWith('-old') && (await lstatOrUndefined(join(parent, name))) === undefined)
      await rename(path, join(parent, name));
    else await rm(path, { recursive: true, force: true });
  }
}

/** Where one write keeps its lock and its stage: beside the target, or inside a mount point. */
interface Layout {
  readonly inside: boolean;
  readonly lock: string;
  readonly stage: string;
}

function layoutOf(real: string, inside: boolean, holder: Holder): Layout {
  const id = holderName(holder);
  if (inside)
    return { inside, lock: join(real, INSIDE_LOCK), stage: join(real, `${INSIDE_PREFIX}${id}`) };
  const parent = dirname(real);
  const name = basename(real);
  return {
    inside,
    lock: join(parent, `.${name}.labelwise-lock`),
    stage: join(parent, `${stagePrefix(name)}${id}`),
  };
}

/** Refuses a target holding files labelwise did not write. */
async function refuseForeign(real: string, shown: string): Promise<void> {
  const foreign = await foreignFiles(real);
  if (foreign.length === 0) return;
  const listed = foreign
    .slice(0, 10)
    .map((f) => escapeControl(f, true))
    .join(', ');
  const more = foreign.length > 10 ? ` and ${foreign.length - 10} more` : '';
  throw new LabelwiseError(
    'OUT_NOT_OURS',
    `refusing to replace ${shown}: it holds files labelwise did not write: ${listed}${more}`,
    { hint: 'move them away, or choose a new or empty directory', kind: 'unavailable' },
  );
}

/** Writes `paths` of `files` and their manifest into the new directory `stage`. */
async function writeStage(
  stage: string,
  files: Readonly<Record<string, string | Uint8Array>>,
  paths: readonly string[],
  writer: string,
): Promise<void> {
  const manifest: Manifest = { format: MANIFEST_FORMAT, writer, files: {} };
  await mkdir(stage);
  const made = new Set<string>();
  for (const path of paths) {
    const content = files[path] as string | Uint8Array;
    const dir = posix.dirname(path);
    if (dir !== '.' && !made.has(dir)) {
      await mkdir(join(stage, ...dir.split('/')), { recursive: true });
      made.add(dir);
    }
    try {
      await writeFile(join(stage, ...path.split('/')), content);
    } catch (error) {
      throw Object.assign(error as Error, { outputPath: path });
    }
    manifest.files[path] = sha256(content);
  }
  await writeFile(join(stage, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The I/O error of a write as the one line a user sees, naming the output file when known. */
function writeFailure(error: unknown, flag: string, shown: string): LabelwiseError {
  if (error instanceof LabelwiseError) return error;
  const file = (error as { outputPath?: string }).outputPath;
  const at = file === undefined ? '' : ` (file ${escapeControl(file, true)})`;
  return unavailable('OUT_UNWRITABLE', `cannot write ${flag} ${shown}${at}: ${errnoText(error)}`);
}

/** With the lock held: sweeps what dead writers left, refuses foreign files, stages and swaps. */
async function writeLocked(
  real: string,
  layout: Layout,
  holder: Holder,
  files: Readonly<Record<string, string | Uint8Array>>,
  paths: readonly string[],
  options: OwnedWriteOptions & { readonly shown: string },
): Promise<void> {
  if (layout.inside) await sweepInside(real);
  else await sweepBeside(dirname(real), basename(real));
  const existing = await lstatOrUndefined(real);
  if (existing !== undefined) await refuseForeign(real, options.shown);
  await writeStage(layout.stage, files, paths, options.writer);
  if (layout.inside) await swapInside(layout.stage, real, layout.stage);
  else await swapBeside(layout.stage, real, `${layout.stage}-old`, existing !== undefined);
}

/**
 * Replaces the directory `target` with exactly `files` (relative path → content), plus the
 * manifest. Throws an `unavailable` LabelwiseError (exit 3) for every refusal and I/O problem.
 */
export async function writeOwnedDirectory(
  target: string,
  files: Readonly<Record<string, string | Uint8Array>>,
  options: OwnedWriteOptions,
): Promise<{ readonly files: number; readonly directory: string }> {
  const shown = escapeControl(target, true);
  const flag = options.flag ?? '--out';
  const paths = Object.keys(files).map(checkOutputPath).sort(compareText);
  const real = await checkOutputTarget(target, options);
  try {
    await mkdir(dirname(real), { recursive: true });
  } catch (error) {
    throw unavailable(
      'OUT_UNWRITABLE',
      `cannot create the parent of ${flag} ${shown}: ${errnoText(error)}`,
    );
  }
  const existing = await lstatOrUndefined(real);
  const inside = existing !== undefined && (await isMountPoint(real).catch(() => false));
  const holder = selfHolder();
  const layout = layoutOf(real, inside, holder);
  const cleanUp = (): void => {
    rmSync(layout.stage, { recursive: true, force: true });
    // Only a lock this write took is removed: a refusal for a lock held by another run leaves it.
    if (holds(holder)) rmSync(layout.lock, { force: true });
    release(holder);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    cleanUp();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    process.kill(process.pid, signal);
  };
  try {
    await acquireLock(layout.lock, holder, options.lockTimeoutMs ?? 60_000, shown);
  } catch (error) {
    release(holder);
    throw writeFailure(error, flag, shown);
  }
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await writeLocked(real, layout, holder, files, paths, { ...options, shown });
    return { files: paths.length, directory: real };
  } catch (error) {
    throw writeFailure(error, flag, shown);
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    cleanUp();
  }
}
