/**
 * One build of a repository, in memory: read `labelwise.yaml`, detect the parts, run each
 * selected module's stage through the one repository reader, and assemble the report and the
 * files to write. Writes nothing: `labelwise build` writes the files, `labelwise diff` compares
 * two of these.
 */
import { resolve } from 'node:path';
import { LabelwiseError, RepoReader, escapeControl } from '../base/index.js';
import type { Diagnostic, ModuleName } from '../base/index.js';
import { isSelected, readRepoConfig } from './config.js';
import type { RepoConfig } from './config.js';
import { detectParts } from './detect.js';
import { buildReport } from './build-report.js';
import { hostOutputPath } from '../fleet/index.js';
import { hostPagePath } from './report/fleet.js';
import type { BuildReport } from './build-report.js';
import { plannedStages, runStage } from './stages.js';
import type { StageRun } from './stages.js';

export interface BuildOptions {
  /** The repository, absolute. */
  readonly repo: string;
  /** How the repository is named in the report (`examples/homelab`). */
  readonly name: string;
  /**
   * The repository folder's own name when `repo` is a copy of it (a revision `diff` reads into a
   * temporary folder): a Compose project without `name:` is named after it, as in the repository.
   */
  readonly rootName?: string;
  /** Directories never read (the output directory). */
  readonly excluded?: readonly string[];
  /** `--only` and `--skip` from the command line; they win over labelwise.yaml. */
  readonly only?: readonly ModuleName[];
  readonly skip?: readonly ModuleName[];
  /** Called before each stage (progress on a terminal). */
  readonly onStage?: (index: number, total: number, module: ModuleName, dir: string) => void;
}

export interface BuildRun {
  readonly report: BuildReport;
  readonly runs: readonly StageRun[];
  /** Files for `--out`, report.json and report.html excluded (the caller renders those). */
  readonly files: Readonly<Record<string, string>>;
  /** The input folders read, absolute (never written to). */
  readonly inputs: readonly string[];
}

function relativeTo(reader: RepoReader, dir: string): string {
  return reader.relative(resolve(dir));
}

/** The hosts that get a page of their own in the report. */
function hostPages(runs: readonly StageRun[]): readonly string[] {
  const data = runs.find((run) => run.module === 'fleet')?.result.data as
    { hosts?: string[] } | undefined;
  return data?.hosts ?? [];
}

/**
 * Why there is nothing to build. A part the reader refused (a link in labelwise.yaml or at
 * `policy/` leading out of the repository) is named as such, not as an empty repository.
 */
function nothingToBuild(options: BuildOptions, reader: RepoReader): LabelwiseError {
  const refused = reader.diagnostics[0];
  if (refused !== undefined)
    return new LabelwiseError(
      refused.code,
      `${escapeControl(options.name, true)}: ${refused.message}, so there is nothing to build`,
      { source: { file: refused.file ?? '.' }, hint: refused.hint },
    );
  const picked = options.only !== undefined || options.skip !== undefined;
  return new LabelwiseError(
    'BUILD_NOTHING_FOUND',
    `${escapeControl(options.name, true)} holds nothing to build${picked ? ' with --only/--skip as given' : ''}`,
    {
      hint: 'expected fleet/, catalog/, policy/, compose/ or compose*.yaml (or parts named in labelwise.yaml)',
    },
  );
}

/**
 * The folders a build of `repo` reads (the repository root itself left out: the writer refuses
 * it anyway). Found without excluding the output folder, so an output placed in an input
 * folder (`--out r/policy`, even while `policy/` is empty) is refused, never read around.
 */
export function inputFolders(repo: string): string[] {
  const reader = RepoReader.open(repo);
  const parts = detectParts(reader, readRepoConfig(reader).config.parts);
  const dirs = [parts.fleet, parts.catalog?.dir, parts.policy, parts.compose];
  return dirs.filter((dir): dir is string => dir !== undefined && resolve(dir) !== reader.root);
}

export async function runBuild(options: BuildOptions): Promise<BuildRun> {
  const reader = RepoReader.open(options.repo, { excluded: options.excluded ?? [] });
  const { config, diagnostics: configProblems } = readRepoConfig(reader);
  const selection: Pick<RepoConfig, 'only' | 'skip'> = {
    only: options.only ?? config.only,
    skip: options.skip ?? config.skip,
  };
  const parts = detectParts(reader, config.parts, config.composeProjects !== undefined);
  const compose = {
    ...(options.rootName !== undefined ? { rootName: options.rootName } : {}),
    ...(config.composeProjects !== undefined ? { projects: config.composeProjects } : {}),
  };
  const policy = {
    ...config.policy,
    ...(config.accept !== undefined ? { accept: config.accept } : {}),
  };
  const stages = plannedStages(parts, reader.root, reader, compose, policy).filter((s) =>
    isSelected(s.module, selection),
  );
  if (stages.length === 0 && configProblems.length === 0) throw nothingToBuild(options, reader);
  // Walk every input folder once through the reader, so links leaving the repository and
  // special files are reported whatever a module's own loader does with them.
  // (A policy part that is one file is read by its stage alone.)
  for (const stage of stages)
    if (reader.kind(relativeTo(reader, stage.dir)) === 'dir')
      reader.list(relativeTo(reader, stage.dir));
  const runs: StageRun[] = [];
  for (const [index, stage] of stages.entries()) {
    options.onStage?.(index, stages.length, stage.module, relativeTo(reader, stage.dir));
    runs.push(await runStage(stage, relativeTo(reader, stage.dir)));
  }
  const files: Record<string, string> = {};
  for (const run of runs) {
    for (const [path, content] of Object.entries(run.result.outputs)) {
      if (path in files) throw new Error(`two build stages wrote ${path}`);
      files[path] = content;
    }
  }
  // A file a stage reported on (a link it skipped, under the module's code) is not reported
  // again for the repository: one link to /etc/passwd, one warning.
  const reported = new Set<string>();
  for (const run of runs) for (const d of run.result.diagnostics) if (d.file) reported.add(d.file);
  const repository: Diagnostic[] = [...configProblems];
  for (const d of reader.diagnostics)
    if (d.file === undefined || !reported.has(d.file)) repository.push(d);
  const pages = hostPages(runs)
    .filter((host) => hostOutputPath(host) in files)
    .map(hostPagePath);
  const report = buildReport(
    options.name,
    runs,
    [...Object.keys(files), 'report.json', 'report.html', ...pages],
    repository,
  );
  return { report, runs, files, inputs: inputFolders(options.repo) };
}
