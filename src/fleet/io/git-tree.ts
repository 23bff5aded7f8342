/**
 * Reads a fleet directory as it was at a git revision, without touching the working tree, through
 * base's one commit reader: `git ls-tree` lists the committed blobs (never `git archive`, which
 * obeys the commit's own `.gitattributes`), `git cat-file --batch` reads them, and every git call
 * runs with the repository's config disarmed. A revision starting with `-` is refused outright.
 */
import {
  GitReadError,
  LabelwiseError,
  escapeBytes,
  listCommitTree,
  readBlobs,
  runGit,
} from '../../base/index.js';
import type { Diagnostic, GitTreeEntry } from '../../base/index.js';
import { isCandidate } from '../documents/load-fleet.js';
import { MAX_FILE_BYTES, assertDirectory } from './read-tree.js';
import type { FleetTree } from './read-tree.js';

function fromGitError(error: unknown): unknown {
  if (!(error instanceof GitReadError)) return error;
  return error.unavailable
    ? new LabelwiseError('FLEET_GIT_UNAVAILABLE', error.message, { kind: 'unavailable' })
    : new LabelwiseError('FLEET_GIT_FAILED', error.message);
}

async function git(cwd: string, args: readonly string[]): Promise<{ ok: boolean; out: Buffer }> {
  const result = await runGit(cwd, args, { timeoutMs: 120_000 });
  if (result.spawnError !== undefined)
    throw new LabelwiseError('FLEET_GIT_UNAVAILABLE', 'git is not installed or not on PATH', {
      kind: 'unavailable',
    });
  const out = result.stdout.at(-1) === 10 ? result.stdout.subarray(0, -1) : result.stdout;
  return { ok: result.status === 0, out };
}

/** The repository top level and `dir`'s path inside it (`''` or ending in `/`, as bytes). */
async function locate(dir: string): Promise<{ top: string; prefix: Buffer }> {
  // Checked first: git run in a missing directory fails as if git itself were missing.
  await assertDirectory(dir);
  const bare = await git(dir, ['rev-parse', '--is-bare-repository']);
  const top = await git(dir, ['rev-parse', '--show-toplevel']);
  if (bare.out.toString('utf8') === 'true' || !top.ok)
    throw new LabelwiseError(
      'FLEET_GIT_FAILED',
      bare.out.toString('utf8') === 'true'
        ? `${dir} is a bare git repository: it has no work tree`
        : `${dir} is not inside a git repository`,
      {
        source: { file: dir },
        hint: '`fleet affected` compares git revisions of a fleet kept in git',
      },
    );
  const prefix = await git(dir, ['rev-parse', '--show-prefix']);
  return { top: top.out.toString('utf8'), prefix: prefix.ok ? prefix.out : Buffer.alloc(0) };
}

function checkRevision(revision: string): void {
  if (
    revision === '' ||
    revision.startsWith('-') ||
    /\s/.test(revision) ||
    revision.includes('\u0000')
  )
    throw new LabelwiseError('FLEET_BAD_REVISION', `invalid revision ${JSON.stringify(revision)}`);
}

async function resolveCommit(top: string, revision: string): Promise<string> {
  const found = await git(top, [
    'rev-parse',
    '--verify',
    '--quiet',
    '--end-of-options',
    `${revision}^{commit}`,
  ]);
  if (found.ok) return found.out.toString('utf8').trim();
  const shallow = (await git(top, ['rev-parse', '--is-shallow-repository'])).out.toString('utf8');
  throw new LabelwiseError('FLEET_BAD_REVISION', `unknown revision ${JSON.stringify(revision)}`, {
    hint:
      shallow === 'true'
        ? 'this clone is shallow: fetch the history (actions/checkout with `fetch-depth: 0`, or `git fetch --unshallow`)'
        : 'use a commit, branch or tag name, such as HEAD~1',
  });
}

/** The tree's entries sorted into what a fleet reads, what it only lists, and what it reports. */
function classify(entries: readonly GitTreeEntry[]) {
  const blobs: { path: string; sha: string }[] = [];
  const paths: string[] = [];
  const links: string[] = [];
  const oversized: { path: string; size: number }[] = [];
  const others = new Map<string, string>();
  const diagnostics: Diagnostic[] = [];
  for (const entry of entries) {
    if (entry.type !== 'blob') continue;
    const rel = entry.path;
    if (entry.undecodable) {
      if (isCandidate(rel)) diagnostics.push(notUtf8(entry.raw));
      continue;
    }
    paths.push(rel);
    const big = entry.size > MAX_FILE_BYTES;
    if (!isCandidate(rel)) {
      if (entry.mode !== '120000' && !big) others.set(rel, entry.sha);
    } else if (entry.mode === '120000') {
      // A symbolic link is a blob holding the target's name: never read, as on disk.
      links.push(rel);
    } else if (big) oversized.push({ path: rel, size: entry.size });
    else blobs.push({ path: rel, sha: entry.sha });
  }
  return { blobs, paths, links, oversized, others, diagnostics };
}

function notUtf8(raw: Buffer): Diagnostic {
  return {
    severity: 'error',
    code: 'READ_NAME_NOT_UTF8',
    file: escapeBytes(raw),
    message: 'file name is not valid UTF-8; it cannot be read',
    hint: 'rename the file (git mv) to a UTF-8 name',
  };
}

/**
 * The YAML files under `dir` at `revision`, paths relative to `dir`. Throws `FLEET_GIT_FAILED`
 * for an unknown revision or a directory outside a git repository.
 */
export async function readFleetFilesAt(dir: string, revision: string): Promise<FleetTree> {
  checkRevision(revision);
  const { top, prefix } = await locate(dir);
  const commit = await resolveCommit(top, revision);
  try {
    const tree = classify(await listCommitTree(top, commit, prefix));
    const contents = await readBlobs(
      top,
      tree.blobs.map((b) => b.sha),
    );
    const { paths, links, oversized, others, diagnostics } = tree;
    const read = async (wanted: readonly string[]): Promise<Map<string, Uint8Array>> => {
      const found = wanted.filter((path) => others.has(path));
      const data = await readBlobs(
        top,
        found.map((path) => others.get(path) as string),
      ).catch((error: unknown) => {
        throw fromGitError(error);
      });
      return new Map(found.map((path, i) => [path, data[i] as Buffer]));
    };
    const files = tree.blobs.map((b, i) => ({ path: b.path, bytes: contents[i] as Buffer }));
    return { files, paths, links, oversized, diagnostics, read };
  } catch (error) {
    throw fromGitError(error);
  }
}
