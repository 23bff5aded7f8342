/**
 * Everything `--out` receives, assembled once for `build` and `diff`: the stages' files,
 * report.json and the report pages, with the revision they show and the link base from the
 * output folder back to the repository.
 */
import { relative, sep } from 'node:path';
import type { BuildRun } from './build-run.js';
import type { RepoDiff } from './diff/model.js';
import { currentRevision } from './io/git-snapshot.js';
import { renderReportPages, reportData } from './report/index.js';

export interface OutputFilesOptions {
  /** The output folder, absolute: links in the pages are relative to it. */
  readonly out: string;
  /** The repository, absolute. */
  readonly repo: string;
  /** labelwise's version, shown in the page footer. */
  readonly version: string;
  /** The revision shown (`abc123+dirty`); undefined outside git. */
  readonly revision?: string;
  /** The change, when `labelwise diff` writes the report. */
  readonly diff?: RepoDiff;
}

/** The path from `out` to `repo`, with `/` and a trailing `/`, for links to input files. */
export function linkBase(out: string, repo: string): string {
  return `${relative(out, repo).split(sep).join('/')}/`;
}

/** The files of a build's `--out`: its outputs, report.json and the report pages. */
export function outputFiles(build: BuildRun, options: OutputFilesOptions): Record<string, string> {
  const files: Record<string, string> = { ...build.files };
  files['report.json'] = `${JSON.stringify(build.report, null, 2)}\n`;
  Object.assign(
    files,
    renderReportPages(build.report, reportData(build.runs), {
      files: build.files,
      version: options.version,
      revision: options.revision,
      linkBase: linkBase(options.out, options.repo),
      ...(options.diff === undefined ? {} : { diff: options.diff }),
    }),
  );
  return files;
}

/** As {@link outputFiles} for `labelwise build`: the revision is the work tree's (`+dirty`). */
export function buildOutputFiles(
  build: BuildRun,
  options: Omit<OutputFilesOptions, 'revision' | 'diff'>,
): Record<string, string> {
  return outputFiles(build, { ...options, revision: currentRevision(options.repo) });
}
