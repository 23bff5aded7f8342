/**
 * The static Compose check, as one function for `labelwise anchor check` and the build stage,
 * so both judge the same files the same way: load the project as Compose does (`.env`, project
 * name rules, merge, interpolation, profiles, `extends`, `env_file`), then check its anchors.
 * This entry point never loads the Docker client or the daemon.
 */
import { diagnosticsJson } from '../base/index.js';
import type { DiagnosticsJson } from '../base/index.js';
import { checkAnchors } from './compose/check.js';
import type { CheckReport } from './compose/check.js';
import { loadComposeProject } from './compose/load-project.js';
import type { ComposeFileSystem } from './compose/load-project.js';

export interface ComposeCheckOptions {
  /** Compose files, relative to the reader's root, merged in order. */
  readonly files: readonly string[];
  /** The shared `RepoReader` (or any {@link ComposeFileSystem}). */
  readonly fs: ComposeFileSystem;
  /** The project directory's own name (the last fallback for the project name). */
  readonly directoryName: string;
  /** `--project`. Default: none. */
  readonly project?: string | undefined;
  /**
   * The shell environment, over the project's `.env`. Default: none — the build stage passes
   * none, so a repository revision alone decides its result.
   */
  readonly environment?: Readonly<Record<string, string | undefined>> | undefined;
  /**
   * `--profile`. Default: `COMPOSE_PROFILES`, else every profile: the proof then covers every
   * combination, and claims and overlaps that need a profile name it.
   */
  readonly profiles?: readonly string[] | undefined;
}

/** Loads and checks one Compose project. Never throws for bad input; deterministic. */
export function checkComposeProject(options: ComposeCheckOptions): CheckReport {
  const loaded = loadComposeProject({ ...options, everyProfile: true });
  return checkAnchors(loaded.project, loaded.diagnostics);
}

/** The `--json` shape of a report: the base diagnostics shape plus the claims. */
export function checkReportJson(
  report: CheckReport,
): Omit<CheckReport, 'diagnostics'> & DiagnosticsJson {
  return {
    project: report.project,
    anchors: report.anchors,
    overlaps: report.overlaps,
    ...diagnosticsJson(report.diagnostics),
  };
}

export type { CheckReport, CheckedAnchor, CheckEntry, CheckOverlap } from './compose/check.js';

export { checkAnchors } from './compose/check.js';
export type {
  ComposeFileSystem,
  ComposeLoadOptions,
  ComposeLoadResult,
} from './compose/load-project.js';
export { loadComposeProject } from './compose/load-project.js';
export type { ComposeProject, ComposeService, Located } from './compose/compose-model.js';
export { projectSnapshot } from './compose/compose-model.js';
export { memoryFileSystem } from './compose/memory-files.js';
