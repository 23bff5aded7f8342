/**
 * The build report as pages: `report.html` (summary, diagnostics with filters and search, the
 * fleet matrix, anchors, the catalog's services and service graph, the policy matrix, and the
 * diff view when made by `labelwise diff`), plus one page per fleet host. Self-contained: no
 * external resources, and no script runs but the report's own.
 */
import type { AnchorClaims } from '../../anchor/index.js';
import { hostOutputPath } from '../../fleet/index.js';
import type { FleetMatrix } from '../../fleet/index.js';
import type { RepoDiff } from '../diff/model.js';
import type { BuildReport } from '../build-report.js';
import type { StageRun } from '../stages.js';
import { catalogSection } from './catalog.js';
import { diffSection } from './diff-view.js';
import { fleetSection, hostPage, hostPagePath } from './fleet.js';
import { escapeHtml } from './html.js';
import { page } from './page.js';
import type { PageContext } from './page.js';
import { policySection } from './policy.js';
import { anchorSection, diagnosticsSection, summarySection } from './sections.js';

export { escapeHtml } from './html.js';
export type { PageContext } from './page.js';

/** What the stages hand the pages, from each stage's `data` (each stage documents the shape). */
export interface ReportData {
  readonly fleet?: FleetMatrix;
  readonly anchor?: AnchorClaims;
  readonly catalog?: unknown;
  readonly policy?: unknown;
}

export function reportData(runs: readonly StageRun[]): ReportData {
  const data: { fleet?: FleetMatrix; anchor?: AnchorClaims; catalog?: unknown; policy?: unknown } =
    {};
  for (const run of runs) {
    if (run.module === 'fleet') data.fleet = run.result.data as FleetMatrix;
    if (run.module === 'anchor') data.anchor = run.result.data as AnchorClaims;
    if (run.module === 'catalog') data.catalog = run.result.data;
    if (run.module === 'policy') data.policy = run.result.data;
  }
  return data;
}

export interface ReportOptions extends Partial<PageContext> {
  /** The build's output files: the host pages are made from `fleet/<host>.json`. */
  readonly files?: Readonly<Record<string, string>>;
  /** From the report to the repository root, ending with `/`: links to files and lines. */
  readonly linkBase?: string;
  /** The change, when the report is made by `labelwise diff`. */
  readonly diff?: RepoDiff;
}

const NAV: readonly [string, string][] = [
  ['s-diff', 'Change'],
  ['s-summary', 'Summary'],
  ['s-diagnostics', 'Diagnostics'],
  ['s-fleet', 'Fleet'],
  ['s-catalog', 'Catalog'],
  ['s-policy', 'Policy'],
  ['s-anchors', 'Anchors'],
];

/** report.html alone. */
export function renderReportHtml(
  report: BuildReport,
  data: ReportData = {},
  options: ReportOptions = {},
): string {
  const context: PageContext = {
    version: options.version ?? 'unknown',
    revision: options.revision,
  };
  const verdict = report.ok
    ? `<p id="verdict" class="ok">Build passed: ${report.warnings} warning(s).</p>`
    : `<p id="verdict" class="fail">Build failed: ${report.errors} error(s), ${report.warnings} warning(s).</p>`;
  const sections: string[] = [];
  if (options.diff !== undefined) sections.push(diffSection(options.diff, report.repo));
  sections.push(summarySection(report), diagnosticsSection(report, options.linkBase ?? ''));
  if (data.fleet !== undefined) sections.push(fleetSection(data.fleet));
  if (data.catalog !== undefined) sections.push(catalogSection(data.catalog));
  const policy = policySection(data.policy);
  if (policy !== '') sections.push(policy);
  if (data.anchor !== undefined) sections.push(anchorSection(data.anchor));
  const present = NAV.filter(([id]) => sections.some((s) => s.includes(`id="${id}"`)));
  const nav = `<nav aria-label="Sections">${present.map(([id, label]) => `<a href="#${id}">${label}</a>`).join('')}</nav>`;
  const body = `<h1>labelwise build report</h1>
<p class="meta">Repository <code>${escapeHtml(report.repo)}</code></p>
${verdict}
${nav}
${sections.join('\n')}`;
  return page(`labelwise build report: ${report.repo}`, body, context, true);
}

/** Every page: `report.html` and `hosts/<host>.html` for each host of the fleet. */
export function renderReportPages(
  report: BuildReport,
  data: ReportData,
  options: ReportOptions = {},
): Record<string, string> {
  const context: PageContext = {
    version: options.version ?? 'unknown',
    revision: options.revision,
  };
  const pages: Record<string, string> = { 'report.html': renderReportHtml(report, data, options) };
  const shell = (title: string, body: string): string =>
    page(`labelwise: ${title}`, `<h1>${escapeHtml(title)}</h1>\n${body}`, context, false);
  for (const host of data.fleet?.hosts ?? []) {
    const manifest = options.files?.[hostOutputPath(host)];
    if (manifest === undefined) continue;
    const html = hostPage(manifest, shell);
    if (html !== undefined) pages[hostPagePath(host)] = html;
  }
  return pages;
}
