/**
 * Putting a staged output tree in place, all or nothing, in the two ways a target allows.
 *
 * - Beside: the stage is a sibling of the target and replaces it by rename. This is the usual
 *   case and is atomic.
 * - Inside: a mount point (`docker run -v $PWD/out:/out`, a PVC, a tmpfs) cannot be renamed
 *   (EBUSY), and its parent is often not writable. The stage then lives inside the target, the
 *   old entries are moved into a holding directory inside it, and the staged entries are moved
 *   up, the manifest last. The names of the holding directory say how far a swap got, so a run
 *   interrupted at any point is finished or undone by the next one: the previous output is
 *   never lost, and a target with a manifest always holds exactly what the manifest lists.
 */
import { readFileSync } from 'node:fs';
import { lstat, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { compareText } from '../text.js';
import { holderAlive, parseHolderName } from './output-lock.js';

/** The manifest's name inside an output directory. */
export const MANIFEST = '.labelwise-manifest.json';

/** Names inside a target that belong to the writer itself (inside mode): never foreign, never output. */
export const INSIDE_PREFIX = '.labelwise-stage-';
export const INSIDE_LOCK = '.labelwise-lock';

/** Whether a top-level name inside a target is the writer's own bookkeeping. */
export function isWriterEntry(name: string): boolean {
  return (
    name === INSIDE_LOCK || name.startsWith(`${INSIDE_LOCK}.`) || name.startsWith(INSIDE_PREFIX)
  );
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

function mountPoints(): Set<string> {
  try {
    const lines = readFileSync('/proc/self/mountinfo', 'utf8').split('\n');
    // Field 5 is the mount point, with spaces and the like written as octal escapes.
    const unescape = (s: string): string =>
      s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    return new Set(lines.map((l) => unescape(l.split(' ')[4] ?? '')).filter((p) => p !== ''));
  } catch {
    return new Set();
  }
}

/** Whether the existing directory `real` is a mount point (another device, or listed as mounted). */
export async function isMountPoint(real: string): Promise<boolean> {
  const [here, parent] = await Promise.all([stat(real), stat(dirname(real))]);
  if (here.dev !== parent.dev) return true;
  return mountPoints().has(real);
}

/** Beside mode: the stage replaces the target by rename; the old target is moved to `old` first. */
export async function swapBeside(
  stage: string,
  real: string,
  old: string,
  hadTarget: boolean,
): Promise<void> {
  if (hadTarget) await rename(real, old);
  try {
    await rename(stage, real);
  } catch (error) {
    if (hadTarget) await rename(old, real);
    throw error;
  }
  if (hadTarget) await rm(old, { recursive: true, force: true });
}

async function outputEntries(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => !isWriterEntry(n)).sort(compareText);
}

/** Moves every output entry of `from` into `to`, the manifest last. */
async function moveEntries(from: string, to: string): Promise<void> {
  const names = await outputEntries(from);
  const ordered = names.filter((n) => n !== MANIFEST);
  if (names.includes(MANIFEST)) ordered.push(MANIFEST);
  for (const name of ordered) await rename(join(from, name), join(to, name));
}

/** Removes every output entry of `dir` (never the writer's own entries). */
async function clearEntries(dir: string): Promise<void> {
  for (const name of await outputEntries(dir)) await rm(join(dir, name), { recursive: true });
}

/**
 * Inside mode. `stage` (inside `real`) holds the new tree; `aside` names the holding directory:
 * `${aside}-moving` while the old entries go into it, `${aside}-old` once they all have.
 */
export async function swapInside(stage: string, real: string, aside: string): Promise<void> {
  const moving = `${aside}-moving`;
  const old = `${aside}-old`;
  await mkdir(moving);
  try {
    await moveEntries(real, moving);
  } catch (error) {
    await moveEntries(moving, real);
    await rm(moving, { recursive: true, force: true });
    throw error;
  }
  await rename(moving, old);
  try {
    await moveEntries(stage, real);
  } catch (error) {
    await clearEntries(real);
    await moveEntries(old, real);
    await rm(old, { recursive: true, force: true });
    throw error;
  }
  await rm(old, { recursive: true, force: true });
}

/**
 * Finishes or undoes the inside-mode swaps of dead writers in `real`, and removes their stages.
 * A `-moving` holder means the old entries were being moved aside: they go back. A `-old` holder
 * means the new entries were being moved up: with the manifest in place the swap is done and the
 * holder is removed; without it the partial new tree is cleared and the old entries go back.
 */
export async function sweepInside(real: string): Promise<void> {
  const names = (await readdir(real)).filter((n) => n.startsWith(INSIDE_PREFIX)).sort(compareText);
  for (const name of names) {
    const segment = name.slice(INSIDE_PREFIX.length).split('-')[0] ?? '';
    if (holderAlive(parseHolderName(segment))) continue;
    const path = join(real, name);
    if (name.endsWith('-moving')) await moveEntries(path, real);
    else if (name.endsWith('-old') && !(await exists(join(real, MANIFEST)))) {
      await clearEntries(real);
      await moveEntries(path, real);
    }
    await rm(path, { recursive: true, force: true });
  }
}
