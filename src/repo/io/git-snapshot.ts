/**
 * A repository as it was at one git revision, for `labelwise diff`: the committed blobs of the
 * repository's folder written to a private temporary folder (base's `writeCommitSnapshot`; never
 * `git archive`, which obeys the reviewed commit's own `export-ignore`/`export-subst`). The work
 * tree, the index and the refs are never touched. Revisions are hostile input: they are checked
 * with `git rev-parse --verify` and never reach a shell; every git call goes through base's
 * hardened runner, so the repository's config runs nothing.
 */
import { basename, resolve } from 'node:path';
import {
  GitReadError,
  LabelwiseError,
  escapeControl,
  runGitSync,
  writeCommitSnapshot,
} from '../../base/index.js';

export interface Snapshot {
  /** Where the repository directory of that revision now lies. */
  readonly dir: string;
  /** The full commit id. */
  readonly commit: string;
  readonly cleanup: () => void;
}

export interface GitLocation {
  /** The work tree's top level. */
  readonly top: string;
  /** The repository folder below `top`: `''` or ending in `/`, as bytes (names need not be UTF-8). */
  readonly prefix: Buffer;
}

function git(cwd: string, args: readonly string[]): { ok: boolean; out: string; raw: Buffer } {
  const result = runGitSync(cwd, args, { timeoutMs: 60_000 });
  if (result.spawnError !== undefined) {
    const code = result.spawnError.code;
    throw new LabelwiseError(
      'DIFF_GIT_UNAVAILABLE',
      code === 'ENOENT' ? 'git is not installed or not on PATH' : `git could not run: ${code}`,
      { hint: 'install git', kind: 'unavailable' },
    );
  }
  const raw = result.stdout.subarray(
    0,
    result.stdout.at(-1) === 10 ? result.stdout.length - 1 : result.stdout.length,
  );
  return { ok: result.status === 0, out: raw.toString('utf8'), raw };
}

function notARepository(dir: string, bare: boolean): LabelwiseError {
  return new LabelwiseError(
    'DIFF_NOT_A_REPOSITORY',
    bare
      ? `${escapeControl(dir, true)} is a bare git repository: it has no work tree to build`
      : `${escapeControl(dir, true)} is not inside a git repository`,
    {
      hint: bare
        ? 'run labelwise diff in a clone with a work tree, not one made by `git clone --bare`'
        : 'labelwise diff compares git revisions; run it in a git checkout',
    },
  );
}

/** The git work tree holding `dir` (which may be a symbolic link), and `dir` inside it. */
export function gitLocation(dir: string): GitLocation {
  const bare = git(dir, ['rev-parse', '--is-bare-repository']);
  if (bare.ok && bare.out === 'true') throw notARepository(dir, true);
  const top = git(dir, ['rev-parse', '--show-toplevel']);
  if (!top.ok) throw notARepository(dir, false);
  // git names the prefix from the real directory, so a REPO given as a link finds its folder.
  const prefix = git(dir, ['rev-parse', '--show-prefix']);
  return { top: top.out, prefix: prefix.ok ? prefix.raw : Buffer.alloc(0) };
}

function isShallow(top: string): boolean {
  const found = git(top, ['rev-parse', '--is-shallow-repository']);
  return found.ok && found.out === 'true';
}

/** The commit a revision names, or a clear error. */
export function resolveRevision(top: string, revision: string): string {
  // eslint-disable-next-line no-control-regex -- a revision with control characters is refused
  if (revision === '' || revision.startsWith('-') || /[\u0000-\u001f\u007f]/.test(revision))
    throw new LabelwiseError('DIFF_BAD_REVISION', `not a revision: ${JSON.stringify(revision)}`);
  const found = git(top, [
    'rev-parse',
    '--verify',
    '--quiet',
    '--end-of-options',
    `${revision}^{commit}`,
  ]);
  if (found.ok && /^[0-9a-f]{40,64}$/.test(found.out)) return found.out;
  const shallow = isShallow(top);
  throw new LabelwiseError(
    'DIFF_BAD_REVISION',
    `${JSON.stringify(revision)} names no commit in ${escapeControl(top, true)}${shallow ? ' (a shallow clone)' : ''}`,
    {
      hint: shallow
        ? 'this clone is shallow: fetch the history (actions/checkout with `fetch-depth: 0`, or `git fetch --unshallow`)'
        : 'give a branch, tag or commit (git log lists them)',
    },
  );
}

/** Writes the repository folder of `commit` to a temporary folder (see the file comment). */
export async function snapshot(
  location: GitLocation,
  commit: string,
  repo: string,
): Promise<Snapshot> {
  try {
    const snap = await writeCommitSnapshot(location.top, location.prefix, commit, {
      folderName: basename(resolve(repo)),
    });
    return { dir: snap.dir, commit, cleanup: snap.cleanup };
  } catch (error) {
    if (!(error instanceof GitReadError)) throw error;
    throw new LabelwiseError(
      'DIFF_GIT_FAILED',
      `cannot read ${commit.slice(0, 12)} from git: ${escapeControl(error.message, true)}`,
      { kind: 'unavailable' },
    );
  }
}

/**
 * The commit checked out in the work tree holding `dir` (`+dirty` when it has uncommitted
 * changes), or undefined when `dir` is not in a git checkout or git is missing. For the report.
 * `git status` runs without optional locks, so it never rewrites `.git/index`.
 */
export function currentRevision(dir: string): string | undefined {
  const found = runGitSync(dir, ['rev-parse', '--short=12', 'HEAD'], { timeoutMs: 10_000 });
  if (found.status !== 0 || found.spawnError !== undefined) return undefined;
  const status = runGitSync(
    dir,
    ['status', '--porcelain', '-z', '--ignore-submodules=all', '--', '.'],
    { timeoutMs: 30_000 },
  );
  const dirty = status.status === 0 && status.stdout.length > 0;
  return `${found.stdout.toString('utf8').trim()}${dirty ? '+dirty' : ''}`;
}
