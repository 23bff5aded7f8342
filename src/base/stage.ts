/**
 * What each module's stage returns to `labelwise build`: its diagnostics, the files to write
 * under `--out`, figures for the summary table and data for the report. A leaf file: modules
 * implement it, `src/repo` consumes it.
 */
import type { Diagnostic } from './diagnostic.js';

export type ModuleName = 'selector' | 'fleet' | 'catalog' | 'policy' | 'anchor';

export interface StageResult {
  /** Every problem found, each with `module` set and `file` relative to the repository root. */
  readonly diagnostics: readonly Diagnostic[];
  /** Files to write, keyed by path relative to the output directory (`fleet/web-001.json`). */
  readonly outputs: Readonly<Record<string, string>>;
  /** Figures for the summary table, e.g. `{ hosts: 5, layers: 9, resources: 31 }`. */
  readonly counts: Readonly<Record<string, number>>;
  /** Extra structured data for the HTML report (fleet: host × layer matrix; anchor: claims). */
  readonly data?: unknown;
}
