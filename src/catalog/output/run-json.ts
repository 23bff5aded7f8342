/**
 * What `catalog render --json` and `catalog check --json` print (docs/catalog.md), made from a
 * run and every diagnostic the command met around it (its readers' and the run's). The command
 * prints these as they are and reads its text output from them, so the two never disagree.
 */
import { diagnosticsJson } from '../../base/index.js';
import type { Diagnostic, DiagnosticsJson } from '../../base/index.js';
import type { CheckResult } from '../conformance/model.js';
import type { CatalogRun } from '../pipeline.js';
import type { GoldenDiff } from './golden.js';

/** `catalog render --json`: what was rendered, or nothing when there were errors. */
export interface RenderJson extends DiagnosticsJson {
  readonly ok: boolean;
  readonly services: readonly string[];
  readonly files: readonly string[];
  /** The failed checks only. */
  readonly checks: readonly CheckResult[];
}

/** `catalog check --json`: the golden differences and every check, passed or failed. */
export interface CheckJson extends DiagnosticsJson {
  readonly ok: boolean;
  readonly diffs: readonly GoldenDiff[];
  readonly checks: readonly CheckResult[];
}

export function renderJson(run: CatalogRun, diagnostics: readonly Diagnostic[]): RenderJson {
  const counts = diagnosticsJson(diagnostics);
  const ok = counts.errors === 0;
  return {
    ok,
    services: ok ? run.rendered.map((r) => r.service) : [],
    files: ok ? Object.keys(run.files) : [],
    checks: run.checks.filter((c) => !c.ok),
    ...counts,
  };
}

export function checkJson(run: CatalogRun, diagnostics: readonly Diagnostic[]): CheckJson {
  const counts = diagnosticsJson(diagnostics);
  const diffs = run.diffs ?? [];
  return {
    ok: counts.errors === 0 && diffs.length === 0,
    // The documented keys in the documented order, whatever else a diff may come to carry.
    diffs: diffs.map(({ path, change, patch }) => ({ path, change, patch })),
    checks: run.checks,
    ...counts,
  };
}
