/**
 * The build report (`report.json`, and `--json` output): every finding with module, severity,
 * code, object, file:line and message, plus a per-module summary. Deterministic: no timings,
 * findings sorted, keys in a fixed order.
 */
import type { Finding, ModuleName } from '../findings.js';
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
  readonly findings: readonly Finding[];
  readonly outputs: readonly string[];
}

const MODULE_ORDER: readonly ModuleName[] = ['selector', 'fleet', 'catalog', 'policy', 'anchor'];

function compareFindings(a: Finding, b: Finding): number {
  return (
    MODULE_ORDER.indexOf(a.module) - MODULE_ORDER.indexOf(b.module) ||
    (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1) ||
    (a.file ?? '').localeCompare(b.file ?? '') ||
    (a.line ?? 0) - (b.line ?? 0) ||
    (a.col ?? 0) - (b.col ?? 0) ||
    a.code.localeCompare(b.code) ||
    (a.object ?? '').localeCompare(b.object ?? '') ||
    a.message.localeCompare(b.message)
  );
}

/** A finding with its keys in the documented order and absent parts left out. */
function normalFinding(f: Finding): Finding {
  return {
    module: f.module,
    severity: f.severity,
    code: f.code,
    ...(f.object !== undefined ? { object: f.object } : {}),
    ...(f.file !== undefined ? { file: f.file } : {}),
    ...(f.line !== undefined ? { line: f.line } : {}),
    ...(f.col !== undefined ? { col: f.col } : {}),
    message: f.message,
  };
}

function sortedCounts(counts: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  // `errors` and `warnings` are derived from the findings below; a stage's own copies would
  // only be a second source of truth.
  for (const key of Object.keys(counts).sort()) {
    if (key !== 'errors' && key !== 'warnings') out[key] = counts[key] as number;
  }
  return out;
}

/** Assembles the report from the stage runs. `outputs` lists every file written under --out. */
export function buildReport(
  repo: string,
  runs: readonly StageRun[],
  outputs: readonly string[],
): BuildReport {
  const findings = runs
    .flatMap((run) => run.result.findings.map(normalFinding))
    .sort(compareFindings);
  const modules = runs.map((run) => ({
    module: run.module,
    input: run.input,
    counts: sortedCounts(run.result.counts),
    errors: run.result.findings.filter((f) => f.severity === 'error').length,
    warnings: run.result.findings.filter((f) => f.severity === 'warning').length,
  }));
  return {
    repo,
    ok: findings.every((f) => f.severity !== 'error'),
    modules,
    findings,
    outputs: [...outputs].sort(),
  };
}

/** `file:line` (or `file`, or `-`) for tables. */
export function findingLocation(f: Finding): string {
  if (f.file === undefined) return '-';
  return f.line === undefined ? f.file : `${f.file}:${f.line}`;
}
