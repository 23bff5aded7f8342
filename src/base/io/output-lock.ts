/**
 * Who holds an output directory: the lock file that serialises writers, and the holder names
 * carried by stage directories, so a later run can tell a live writer from a dead one.
 *
 * A PID alone does not name a process for long: in a container labelwise is often PID 1 in
 * every run, and an OOM-killed run leaves a lock naming a PID that is alive again (as the new
 * run itself). A holder is therefore the PID plus the process's start time (in clock ticks since
 * boot, from /proc) and the boot id. A holder naming this process's own PID is stale unless this
 * process really holds that lock right now (a token only it knows).
 */
import { processAlive } from './process-alive.js';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { LabelwiseError } from '../errors.js';
import { escapeControl } from '../text.js';

/** What names one process for as long as it lives. */
export interface Holder {
  readonly pid: number;
  /** Start time in clock ticks after boot; undefined where /proc does not say (not Linux, old locks). */
  readonly start?: string;
  readonly boot?: string;
  /** A random value of the lock it took, so this process knows its own locks from old ones. */
  readonly token?: string;
}

function readOr(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/PID/stat (after the command name, which may hold spaces and parentheses). */
export function startTimeOf(pid: number): string | undefined {
  const stat = readOr(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = fields[19];
  return start !== undefined && /^[0-9]+$/.test(start) ? start : undefined;
}

const BOOT_ID = readOr('/proc/sys/kernel/random/boot_id')?.trim() || undefined;
const SELF_START = startTimeOf(process.pid);

/** This process as a holder, with a fresh token. */
export function selfHolder(): Holder {
  return {
    pid: process.pid,
    ...(SELF_START === undefined ? {} : { start: SELF_START }),
    ...(BOOT_ID === undefined ? {} : { boot: BOOT_ID }),
    token: randomBytes(8).toString('hex'),
  };
}

/** The tokens of the locks and stages this process holds now. */
const held = new Set<string>();

/** Whether the process a holder names is still the one that took the lock or made the stage. */
export function holderAlive(holder: Holder): boolean {
  if (holder.pid === process.pid)
    return holder.token !== undefined && held.has(holder.token) && holder.start === SELF_START;
  if (!processAlive(holder.pid)) return false;
  if (holder.boot !== undefined && BOOT_ID !== undefined && holder.boot !== BOOT_ID) return false;
  if (holder.start !== undefined) {
    const now = startTimeOf(holder.pid);
    if (now !== undefined && now !== holder.start) return false;
  }
  return true;
}

/** A holder as a name segment (`PID.START.TOKEN`), for stage directory names. */
export function holderName(holder: Holder): string {
  return [holder.pid, holder.start ?? '', holder.token ?? ''].join('.');
}

/**
 * The holder a stage name segment names: `PID.START.TOKEN`, or the PID alone (stages of
 * earlier versions). The boot id is not in names: a start time from another boot is caught by
 * the PID being dead or its start time differing, except in the rare case both match.
 */
export function parseHolderName(segment: string): Holder {
  const [pid, start, token] = segment.split('.');
  return {
    pid: Number(pid),
    ...(start === undefined || start === '' ? {} : { start }),
    ...(token === undefined || token === '' ? {} : { token }),
  };
}

function parseLock(text: string): Holder | undefined {
  const trimmed = text.trim();
  if (/^[0-9]+$/.test(trimmed)) return { pid: Number(trimmed) };
  try {
    const value = JSON.parse(trimmed) as Partial<Holder>;
    if (typeof value.pid !== 'number') return undefined;
    return {
      pid: value.pid,
      ...(typeof value.start === 'string' ? { start: value.start } : {}),
      ...(typeof value.boot === 'string' ? { boot: value.boot } : {}),
      ...(typeof value.token === 'string' ? { token: value.token } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Marks a holder's token as held by this process (a lock taken, a stage being written). */
export function hold(holder: Holder): void {
  if (holder.token !== undefined) held.add(holder.token);
}

/** Whether this process holds the lock or stage `holder` names right now. */
export function holds(holder: Holder): boolean {
  return holder.token !== undefined && held.has(holder.token);
}

export function release(holder: Holder): void {
  if (holder.token !== undefined) held.delete(holder.token);
}

function describe(holder: Holder | undefined): string {
  if (holder === undefined) return 'an unknown process';
  return `pid ${holder.pid}${holder.start === undefined ? '' : `, started at tick ${holder.start}`}`;
}

/**
 * Creates `lock` holding `holder`, or returns false when it exists. The content is written to a
 * file of its own first and then hard-linked into place, which fails when the lock exists: a
 * reader never sees a lock half written.
 */
async function tryLock(lock: string, holder: Holder): Promise<boolean> {
  const draft = `${lock}.${holderName(holder)}`;
  // Held from the draft on, so another writer's sweep never takes the draft for a dead one's.
  hold(holder);
  await writeFile(draft, `${JSON.stringify(holder)}\n`);
  try {
    await link(draft, lock);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    await rm(draft, { force: true });
  }
}

/** The lock's text, or undefined when it is gone. */
async function readLock(lock: string): Promise<{ text: string } | undefined> {
  try {
    return { text: await readFile(lock, 'utf8') };
  } catch {
    return undefined;
  }
}

/**
 * Removes a stale lock only if it still holds the text that was read (every lock's text holds
 * a token of its own): its holder may have finished and another writer taken a new lock
 * meanwhile, which must stay. The check and the removal are synchronous, so no writer of this
 * process runs between them.
 */
function removeIfSame(lock: string, text: string): void {
  try {
    if (readFileSync(lock, 'utf8') === text) rmSync(lock, { force: true });
  } catch {
    // Already gone: nothing to remove.
  }
}

function waited(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

/**
 * Takes the lock file `lock` for `holder`, waiting up to `timeoutMs` for a live holder. A lock
 * whose holder is dead, reused or this very process (left by an earlier life of the same PID) is
 * removed. `shown` names the target in messages.
 */
export async function acquireLock(
  lock: string,
  holder: Holder,
  timeoutMs: number,
  shown: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await tryLock(lock, holder)) return;
    const seen = await readLock(lock);
    // A lock is written whole before it appears (tryLock), so text that does not parse is
    // not one being written: it is damaged, and nobody holds it.
    const other = seen === undefined ? undefined : parseLock(seen.text);
    if (seen !== undefined && (other === undefined || !holderAlive(other))) {
      removeIfSame(lock, seen.text);
      continue;
    }
    if (Date.now() > deadline)
      throw new LabelwiseError(
        'OUT_LOCKED',
        `another labelwise run (${describe(other)}) is writing ${shown}: its lock file ${escapeControl(lock, true)} was still held after waiting ${waited(timeoutMs)}`,
        {
          hint: `wait for that run to finish, or write elsewhere; if no labelwise run is writing there, delete the lock file`,
          kind: 'unavailable',
        },
      );
    await new Promise((done) => setTimeout(done, 25 + Math.random() * 50));
  }
}
