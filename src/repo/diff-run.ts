/**
 * `labelwise diff` as one call: build both revisions (a revision is read from its committed
 * blobs into a temporary folder, removed afterwards) and compare them; the files of `--out`.
 */
import { realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { LabelwiseError } from '../base/index.js';
import { runBuild } from './build-run.js';
import type { BuildRun } from './build-run.js';
import { compareBuilds } from './diff/compare.js';
import type { Side } from './diff/compare.js';
import type { RepoDiff } from './diff/model.js';
import { currentRevision, gitLocation, resolveRevision, snapshot } from './io/git-snapshot.js';
import { outputFiles } from './output-files.js';

export interface DiffOptions {
  /** The repository folder, absolute (it may be a symbolic link). */
  readonly repo: string;
  /** How the repository is named in messages. */
  readonly name: string;
  readonly from: string;
  /** A revision, or `worktree` for the files as they are. */
  readonly to: string;
}

export interface DiffRun {
  readonly before: Side;
  readonly after: Side;
  readonly result: RepoDiff;
}

/** A build of one side, or undefined when that revision holds nothing to build. */
async function buildSide(
  dir: string,
  name: string,
  rootName?: string,
): Promise<BuildRun | undefined> {
  try {
    return await runBuild({ repo: dir, name, ...(rootName !== undefined ? { rootName } : {}) });
  } catch (error) {
    if (error instanceof LabelwiseError && error.code === 'BUILD_NOTHING_FOUND') return undefined;
    throw error;
  }
}

async function side(repo: string, name: string, revision: string): Promise<Side> {
  if (revision === 'worktree') return { revision, build: await buildSide(repo, name) };
  const location = gitLocation(repo);
  const commit = resolveRevision(location.top, revision);
  const snap = await snapshot(location, commit, repo);
  try {
    // The snapshot lies in a temporary folder: name what it holds as the repository is named.
    return {
      revision,
      commit,
      build: await buildSide(snap.dir, name, basename(realpathSync(repo))),
    };
  } finally {
    snap.cleanup();
  }
}

export async function runDiff(options: DiffOptions): Promise<DiffRun> {
  // Both revisions are checked before either is built: a bad --to fails fast.
  if (options.to !== 'worktree' || options.from !== 'worktree') {
    const { top } = gitLocation(options.repo);
    for (const revision of [options.from, options.to])
      if (revision !== 'worktree') resolveRevision(top, revision);
  }
  const before = await side(options.repo, options.name, options.from);
  const after = await side(options.repo, options.name, options.to);
  return { before, after, result: compareBuilds(before, after) };
}

/** The files `diff --out` writes: the build of `--to` with report pages showing the change. */
export function diffOutputFiles(
  run: DiffRun,
  options: { readonly out: string; readonly repo: string; readonly version: string },
): Record<string, string> {
  const diffJson = `${JSON.stringify(run.result, null, 2)}\n`;
  const build = run.after.build;
  if (build === undefined) return { 'diff.json': diffJson };
  const revision = run.after.commit?.slice(0, 12) ?? currentRevision(options.repo);
  return {
    ...outputFiles(build, { ...options, revision, diff: run.result }),
    'diff.json': diffJson,
  };
}
