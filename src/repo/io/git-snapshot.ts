/**
 * A repository as it was at one git revision, read from git without touching the work tree,
 * the index or the refs: `git archive` of the revision, unpacked into a fresh temporary folder
 * that is removed afterwards. Revisions are hostile input: they are checked with
 * `git rev-parse --verify` and never reach a shell.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { LabelwiseError, escapeControl } from '../../base/index.js';

export interface Snapshot {
  /** Where the repository directory of that revision now lies. */
  readonly dir: string;
  /** The full commit id. */
  readonly commit: string;
  readonly cleanup: () => void;
}

function git(cwd: string, args: readonly string[]): { ok: boolean; out: string; err: string } {
  const result = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.error !== undefined) {
    const code = (result.error as NodeJS.ErrnoException).code;
    throw new LabelwiseError(
      'DIFF_GIT_UNAVAILABLE',
      code === 'ENOENT'
        ? 'git is not installed or not on PATH'
        : `git could not run: ${code ?? result.error.message}`,
      { hint: 'install git', kind: 'unavailable' },
    );
  }
  return { ok: result.status === 0, out: result.stdout.trim(), err: result.stderr.trim() };
}

/** The git work tree holding `dir`, and `dir` relative to it (with `/`). */
export function gitLocation(dir: string): { top: string; prefix: string } {
  const top = git(dir, ['rev-parse', '--show-toplevel']);
  if (!top.ok)
    throw new LabelwiseError(
      'DIFF_NOT_A_REPOSITORY',
      `${escapeControl(dir, true)} is not inside a git repository`,
      {
        hint: 'labelwise diff compares git revisions; run it in a git checkout',
        kind: 'unavailable',
      },
    );
  const prefix = relative(top.out, resolve(dir)).split('\\').join('/');
  return { top: top.out, prefix };
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
  if (!found.ok || !/^[0-9a-f]{40,64}$/.test(found.out))
    throw new LabelwiseError(
      'DIFF_BAD_REVISION',
      `${JSON.stringify(revision)} names no commit in ${escapeControl(top, true)}`,
      { hint: 'give a branch, tag or commit (git log lists them)' },
    );
  return found.out;
}

/** Unpacks `prefix` of `commit` into a temporary folder. */
export async function snapshot(top: string, prefix: string, commit: string): Promise<Snapshot> {
  const root = mkdtempSync(join(tmpdir(), 'labelwise-diff-'));
  const cleanup = (): void => rmSync(root, { recursive: true, force: true });
  try {
    await new Promise<void>((done, fail) => {
      const archive = spawn(
        'git',
        ['archive', '--format=tar', commit, ...(prefix === '' ? [] : ['--', prefix])],
        {
          cwd: top,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const untar = spawn('tar', ['-x', '-f', '-', '-C', root, '--no-same-owner'], {
        stdio: ['pipe', 'ignore', 'pipe'],
      });
      let errors = '';
      archive.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      untar.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      archive.stdout.pipe(untar.stdin);
      archive.on('error', fail);
      untar.on('error', fail);
      let pending = 2;
      let failed = false;
      const finish = (code: number | null): void => {
        if (code !== 0) failed = true;
        if (--pending > 0) return;
        if (failed) fail(new Error(errors.split('\n')[0] || 'git archive failed'));
        else done();
      };
      archive.on('close', finish);
      untar.on('close', finish);
    });
  } catch (error) {
    cleanup();
    throw new LabelwiseError(
      'DIFF_GIT_FAILED',
      `cannot read ${commit.slice(0, 12)} from git: ${(error as Error).message}`,
      { kind: 'unavailable' },
    );
  }
  return { dir: prefix === '' ? root : join(root, ...prefix.split('/')), commit, cleanup };
}

/**
 * The commit checked out in the work tree holding `dir` (`+dirty` when it has uncommitted
 * changes), or undefined when `dir` is not in a git checkout or git is missing. For the report.
 */
export function currentRevision(dir: string): string | undefined {
  const found = spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (found.status !== 0 || found.error !== undefined) return undefined;
  const status = spawnSync('git', ['status', '--porcelain', '--', '.'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 30_000,
  });
  const dirty = status.status === 0 && status.stdout.trim() !== '';
  return `${found.stdout.trim()}${dirty ? '+dirty' : ''}`;
}
