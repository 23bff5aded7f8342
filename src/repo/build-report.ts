/**
 * The build report (`report.json`, and `--json` output): every diagnostic in the one order and
 * shape, plus a per-module summary. Deterministic: no timings, keys in a fixed order.
 */
import { compareText, countDiagnostics, sortDiagnostics } from '../base/index.js';
import type { Diagnostic, ModuleName } from '../base/index.js';
import type { StageRun } from './stages.js';

export interface ModuleSummary {
  readonly module: ModuleName;
  readonly input: string;
  readonly counts: Readonly<Record<string, number>>;
  readonly errors: number;
  readonly warnings: number;
}

export interface BuildReport {
  readonly repo: string;
  readonly ok: boolean;
  readonly modules: readonly ModuleSummary[];
  readonly diagnostics: readonly Diagnostic[];
  readonly errors: number;
  readonly warnings: number;
  readonly outputs: readonly string[];
}

function sortedCounts(counts: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  // `errors` and `warnings` are derived from the diagnostics below; a stage's own copies would
  // only be a second source of truth.
  for (const key of Object.keys(counts).sort(compareText)) {
    if (key !== 'errors' && key !== 'warnings') out[key] = counts[key] as number;
  }
  return out;
}

/**
 * Assembles the report from the stage runs. `outputs` lists every file written under --out;
 * `repository` holds what reading the repository itself found (links skipped, files too large).
 */
export function buildReport(
  repo: string,
  runs: readonly StageRun[],
  outputs: readonly string[],
  repository: readonly Diagnostic[] = [],
): BuildReport {
  const diagnostics = sortDiagnostics([
    ...repository,
    ...runs.flatMap((run) => run.result.diagnostics),
  ]);
  const counts = countDiagnostics(diagnostics);
  const modules = runs.map((run) => ({
    module: run.module,
    input: run.input,
    counts: sortedCounts(run.result.counts),
    ...countDiagnostics(run.result.diagnostics),
  }));
  return {
    repo,
    ok: counts.errors === 0,
    modules,
    diagnostics,
    ...counts,
    outputs: [...outputs].sort(compareText),
  };
}

/** `file:line` (or `file`, or `-`) for tables. */
export function findingLocation(f: Diagnostic): string {
  if (f.file === undefined) return '-';
  return f.line === undefined ? f.file : `${f.file}:${f.line}`;
}
