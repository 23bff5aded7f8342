/**
 * `report.html`: one self-contained page (inline CSS, no scripts, no external assets) for people
 * who would rather look than read: the summary, every finding, the fleet's host × layer matrix
 * and the anchors' claim table. Every piece of text is escaped — label values are hostile.
 */
import type { AnchorClaims } from '../anchor/index.js';
import type { FleetMatrix } from '../fleet/index.js';
import type { BuildReport } from './report.js';
import type { StageRun } from './stages.js';
import { findingLocation } from './report.js';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function table(
  id: string,
  header: readonly string[],
  rows: readonly (readonly string[])[],
  empty: string,
): string {
  if (rows.length === 0) return `<p id="${id}" class="empty">${escapeHtml(empty)}</p>`;
  const head = header.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('');
  const body = rows.map((row) => `<tr>${row.join('')}</tr>`).join('\n');
  return `<table id="${id}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const td = (text: string, cls?: string): string =>
  cls === undefined
    ? `<td>${escapeHtml(text)}</td>`
    : `<td class="${cls}">${escapeHtml(text)}</td>`;

function fleetSection(matrix: FleetMatrix): string {
  const header = ['host', ...matrix.layers];
  const rows = matrix.hosts.map((host, h) => [
    `<th scope="row">${escapeHtml(host)}</th>`,
    ...matrix.layers.map((_, l) =>
      matrix.applies[h]?.[l] === true ? td('●', 'yes') : td('', 'no'),
    ),
  ]);
  return `<h2>Fleet: hosts × layers</h2>\n${table('fleet-matrix', header, rows, 'The fleet has no hosts.')}`;
}

function anchorSection(claims: AnchorClaims): string {
  const rows: string[][] = [];
  for (const project of claims.projects) {
    for (const anchor of project.anchors) {
      const scope = anchor.scope === '' ? '(everything)' : anchor.scope;
      if (anchor.backends.length === 0) {
        rows.push([
          td(project.project),
          td(anchor.anchor),
          td(scope),
          td('(none yet)', 'no'),
          td(''),
          td(''),
        ]);
      }
      for (const backend of anchor.backends) {
        const entries = backend.entries.length > 0 ? backend.entries : [undefined];
        for (const entry of entries) {
          rows.push([
            td(project.project),
            td(anchor.anchor),
            td(scope),
            td(backend.backend),
            td(entry === undefined ? '' : `${entry.family} ${entry.proto}/${entry.port}`),
            td(entry === undefined ? '' : String(entry.backendPort)),
          ]);
        }
      }
    }
  }
  return `<h2>Anchors: what each one claims</h2>\n${table(
    'anchor-claims',
    ['project', 'anchor', 'scope', 'backend', 'entry', 'backend port'],
    rows,
    'No anchors were found.',
  )}`;
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1d2330}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{margin-top:2rem;font-size:1.2rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{border:1px solid #d5d9e0;padding:.3rem .5rem;text-align:left;vertical-align:top}
thead th{background:#f1f3f7}.ok{color:#13723a;font-weight:600}.fail{color:#b3261e;font-weight:600}
td.error{color:#b3261e;font-weight:600}td.warning{color:#8a5a00;font-weight:600}
td.yes{text-align:center;color:#1d4ed8}td.no{background:#fafbfc}.empty{color:#667}code{font-family:ui-monospace,monospace}
`;

/** What the stages hand over for the page: the fleet matrix and the anchors' claim table. */
export interface ReportData {
  readonly fleet?: FleetMatrix;
  readonly anchor?: AnchorClaims;
}

/** What each stage hands the page, taken from its `data` (each stage documents the shape). */
export function reportData(runs: readonly StageRun[]): ReportData {
  const data: { fleet?: FleetMatrix; anchor?: AnchorClaims } = {};
  for (const run of runs) {
    if (run.module === 'fleet') data.fleet = run.result.data as FleetMatrix;
    if (run.module === 'anchor') data.anchor = run.result.data as AnchorClaims;
  }
  return data;
}

/** Renders the report page. */
export function renderReportHtml(report: BuildReport, data: ReportData = {}): string {
  const errors = report.diagnostics.filter((f) => f.severity === 'error').length;
  const warnings = report.diagnostics.length - errors;
  const verdict = report.ok
    ? `<p id="verdict" class="ok">Build passed: ${warnings} warning(s).</p>`
    : `<p id="verdict" class="fail">Build failed: ${errors} error(s), ${warnings} warning(s).</p>`;
  const summaryRows = report.modules.map((m) => [
    td(m.module),
    td(m.input),
    td(
      Object.entries(m.counts)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    ),
    td(String(m.errors), m.errors > 0 ? 'error' : undefined),
    td(String(m.warnings), m.warnings > 0 ? 'warning' : undefined),
  ]);
  const findingRows = report.diagnostics.map((f) => [
    td(f.severity, f.severity),
    td(f.module ?? ''),
    td(f.code),
    td(f.object ?? ''),
    td(findingLocation(f)),
    td(f.message),
  ]);
  const sections = [
    `<h2>Summary</h2>\n${table('summary', ['module', 'input', 'found', 'errors', 'warnings'], summaryRows, 'Nothing to build was found.')}`,
    `<h2>Findings</h2>\n${table('findings', ['severity', 'module', 'code', 'object', 'where', 'message'], findingRows, 'No findings.')}`,
  ];
  if (data.fleet !== undefined) sections.push(fleetSection(data.fleet));
  if (data.anchor !== undefined) sections.push(anchorSection(data.anchor));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>labelwise build report: ${escapeHtml(report.repo)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>labelwise build report</h1>
<p>Repository <code>${escapeHtml(report.repo)}</code></p>
${verdict}
${sections.join('\n')}
</body>
</html>
`;
}
