/**
 * A directory of a repository exactly as one commit holds it: `git ls-tree -r -z` lists the
 * entries (names as bytes) and `git cat-file --batch` streams the blobs. Nothing here obeys the
 * commit's own `.gitattributes` (`git archive` would drop `export-ignore` files and rewrite
 * `export-subst` ones, which lets a commit hide what it changes), and no filter or textconv runs.
 */
import { runGit } from './git.js';
import type { GitResult } from './git.js';

/** One entry of a commit's tree below the directory asked for. */
export interface GitTreeEntry {
  /** The path below the directory, as git stores it (bytes; not necessarily UTF-8). */
  readonly raw: Buffer;
  /** {@link raw} decoded as UTF-8 (invalid bytes become U+FFFD). */
  readonly path: string;
  /** True when {@link raw} is not valid UTF-8. */
  readonly undecodable: boolean;
  /** `100644`, `100755`, `120000` (a symbolic link), `160000` (a submodule). */
  readonly mode: string;
  readonly type: 'blob' | 'commit' | 'tree';
  readonly sha: string;
  /** Bytes of a blob; 0 for other types. */
  readonly size: number;
}

/** Why git could not answer, for the caller to turn into its own error code. */
export class GitReadError extends Error {
  constructor(
    message: string,
    readonly unavailable: boolean,
  ) {
    super(message);
  }
}

function check(result: GitResult, what: string): Buffer {
  if (result.spawnError !== undefined)
    throw new GitReadError(
      result.spawnError.code === 'ENOENT'
        ? 'git is not installed or not on PATH'
        : `git could not run: ${result.spawnError.code ?? result.spawnError.message}`,
      true,
    );
  if (result.status !== 0)
    throw new GitReadError(`git ${what} failed: ${result.stderr.split('\n')[0] ?? ''}`, false);
  return result.stdout;
}

function isUtf8(bytes: Buffer): boolean {
  return Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}

/** Parses `<mode> SP <type> SP <object> SP+ <size> TAB <path>` records. */
function parseListing(listing: Buffer, prefix: Buffer): GitTreeEntry[] {
  const entries: GitTreeEntry[] = [];
  let at = 0;
  while (at < listing.length) {
    let end = listing.indexOf(0, at);
    if (end < 0) end = listing.length;
    const record = listing.subarray(at, end);
    at = end + 1;
    const tab = record.indexOf(9);
    if (tab < 0) continue;
    const [mode = '', type = '', sha = '', size = ''] = record
      .subarray(0, tab)
      .toString('latin1')
      .split(/ +/);
    const full = record.subarray(tab + 1);
    if (!full.subarray(0, prefix.length).equals(prefix)) continue;
    if (type !== 'blob' && type !== 'commit' && type !== 'tree') continue;
    const raw = Buffer.from(full.subarray(prefix.length));
    entries.push({
      raw,
      path: raw.toString('utf8'),
      undecodable: !isUtf8(raw),
      mode,
      type,
      sha,
      size: type === 'blob' ? Number(size) : 0,
    });
  }
  return entries;
}

/**
 * The entries of `commit` below `prefix` (`''` or a path ending in `/`, relative to the top
 * level `top`), paths relative to `prefix`. Throws {@link GitReadError}.
 */
export async function listCommitTree(
  top: string,
  commit: string,
  prefix: Buffer | string,
): Promise<GitTreeEntry[]> {
  const bytes = typeof prefix === 'string' ? Buffer.from(prefix, 'utf8') : prefix;
  const args = ['ls-tree', '-r', '-z', '-l', '--full-tree', commit];
  // A pathspec is a string; one that is not UTF-8 cannot be passed, so filter after listing.
  if (bytes.length > 0 && isUtf8(bytes)) args.push('--', bytes.toString('utf8'));
  const listing = check(await runGit(top, args), 'ls-tree');
  return parseListing(listing, bytes);
}

/** Reads blobs through one `git cat-file --batch` process, in the order asked. */
export async function readBlobs(top: string, shas: readonly string[]): Promise<Buffer[]> {
  if (shas.length === 0) return [];
  for (const sha of shas)
    if (!/^[0-9a-f]{40,64}$/.test(sha)) throw new GitReadError(`not an object id: ${sha}`, false);
  const all = check(
    await runGit(top, ['cat-file', '--batch'], { input: `${shas.join('\n')}\n` }),
    'cat-file',
  );
  const out: Buffer[] = [];
  let at = 0;
  for (const sha of shas) {
    const eol = all.indexOf(10, at);
    const header = all.subarray(at, eol < 0 ? all.length : eol).toString('latin1');
    const [id, type, size] = header.split(' ');
    const length = Number(size);
    if (eol < 0 || id !== sha || type !== 'blob' || !Number.isSafeInteger(length))
      throw new GitReadError(`git cat-file returned ${JSON.stringify(header)} for ${sha}`, false);
    out.push(all.subarray(eol + 1, eol + 1 + length));
    at = eol + 1 + length + 1;
  }
  return out;
}
