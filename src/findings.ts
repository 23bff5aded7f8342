/**
 * The shape every module reports to `labelwise build`: findings for `report.json`, files to write
 * under `--out`, and counts for the summary table. A leaf file: modules import it, it imports
 * nothing.
 */

export type ModuleName = 'selector' | 'fleet' | 'catalog' | 'policy' | 'anchor';

/** One problem or remark, located as precisely as the input allows. */
export interface Finding {
  readonly module: ModuleName;
  readonly severity: 'error' | 'warning';
  /** A stable code, e.g. `FLEET_UNRESOLVED_REFERENCE`. */
  readonly code: string;
  /** What it is about: `host web-001`, `File[nginx-config]`, `Server books/books-http`. */
  readonly object?: string;
  /** Path relative to the repository root given to `build`. */
  readonly file?: string;
  readonly line?: number;
  readonly col?: number;
  readonly message: string;
}

/** What one module's build stage returns. */
export interface StageResult {
  readonly findings: readonly Finding[];
  /** Files to write, keyed by path relative to the output directory (`fleet/web-001.json`). */
  readonly outputs: Readonly<Record<string, string>>;
  /** Figures for the summary table, e.g. `{ hosts: 5, layers: 9, resources: 31 }`. */
  readonly counts: Readonly<Record<string, number>>;
  /** Extra structured data for the HTML report (fleet: host × layer matrix; anchor: claims). */
  readonly data?: unknown;
}
