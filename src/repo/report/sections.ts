/** The report's general sections: the summary, the diagnostics (grouped) and the anchors. */
import { compareText, formatLocation } from '../../base/index.js';
import type { Diagnostic } from '../../base/index.js';
import type { AnchorClaims } from '../../anchor/index.js';
import type { BuildReport } from '../build-report.js';
import { escapeHtml, fileHref, table, td } from './html.js';

export function summarySection(report: BuildReport): string {
  const rows = report.modules.map((m) => [
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
  return `<h2 id="s-summary">Summary</h2>\n${table('summary', ['module', 'input', 'found', 'errors', 'warnings'], rows, 'Nothing to build was found.', { cards: true })}`;
}

interface Group {
  readonly first: Diagnostic;
  readonly all: Diagnostic[];
}

/** Identical diagnostics (same severity, module, code, object and message) become one row. */
function groups(list: readonly Diagnostic[]): Group[] {
  const byKey = new Map<string, Group>();
  for (const d of list) {
    const key = JSON.stringify([d.severity, d.module, d.code, d.object, d.message]);
    const group = byKey.get(key);
    if (group === undefined) byKey.set(key, { first: d, all: [d] });
    else group.all.push(d);
  }
  return [...byKey.values()];
}

function locations(group: Group, linkBase: string): string {
  const shown = group.all.slice(0, 5).map((d) => {
    const where = formatLocation(d);
    if (where === '') return '';
    return d.file === undefined
      ? escapeHtml(where)
      : `<a href="${escapeHtml(fileHref(linkBase, d.file, d.line))}">${escapeHtml(where)}</a>`;
  });
  const more = group.all.length > 5 ? ` and ${group.all.length - 5} more` : '';
  return `<td>${shown.filter(Boolean).join('<br>')}${more}</td>`;
}

export function diagnosticsSection(report: BuildReport, linkBase: string): string {
  const modules = [...new Set(report.diagnostics.map((d) => d.module ?? ''))]
    .filter(Boolean)
    .sort(compareText);
  const options = modules
    .map((m) => `<option value="${escapeHtml(m)}">${escapeHtml(m)}</option>`)
    .join('');
  const controls = `<div class="controls" role="search">
<input type="search" id="search" placeholder="Search diagnostics and hosts" aria-label="Search">
<select id="filter-module" aria-label="Module"><option value="">every module</option>${options}</select>
<select id="filter-severity" aria-label="Severity"><option value="">every severity</option><option value="error">errors</option><option value="warning">warnings</option></select>
</div>`;
  const grouped = groups(report.diagnostics);
  const rows = grouped.map((g) => {
    const d = g.first;
    const message =
      d.hint === undefined
        ? escapeHtml(d.message)
        : `${escapeHtml(d.message)}<br><span class="note">hint: ${escapeHtml(d.hint)}</span>`;
    return [
      td(d.severity, d.severity),
      td(d.module ?? ''),
      td(d.code),
      td(d.object ?? ''),
      locations(g, linkBase),
      `<td class="message">${message}</td>`,
      `<td><span class="count">${g.all.length}</span></td>`,
    ];
  });
  // Data attributes let the filters work without reading cell text.
  const rowAttributes = grouped.map(
    (g) => ` data-module="${escapeHtml(g.first.module ?? '')}" data-severity="${g.first.severity}"`,
  );
  const tagged = table(
    'diagnostics',
    ['severity', 'module', 'code', 'object', 'where', 'message', 'count'],
    rows,
    'No diagnostics: nothing to fix.',
    { rowAttributes, cards: true },
  );
  return `<h2 id="s-diagnostics">Diagnostics</h2>\n${controls}\n${tagged}`;
}

export function anchorSection(claims: AnchorClaims): string {
  const rows: string[][] = [];
  for (const project of claims.projects) {
    for (const anchor of project.anchors) {
      const scope = anchor.scope === '' ? '(everything)' : anchor.scope;
      if (anchor.backends.length === 0)
        rows.push([
          td(project.project),
          td(anchor.anchor),
          td(scope),
          td('(none yet)', 'no'),
          td(''),
          td(''),
        ]);
      for (const backend of anchor.backends) {
        const entries = backend.entries.length > 0 ? backend.entries : [undefined];
        for (const entry of entries)
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
  const notRead = (claims.notRead ?? []).map((n) => `<code>${escapeHtml(n.file)}</code>`);
  const note =
    notRead.length === 0
      ? ''
      : `\n<p class="note" id="compose-not-read">Not read, as <code>docker compose</code> with no <code>-f</code> does not read them (list them under <code>compose.projects</code> in labelwise.yaml to check them): ${notRead.join(', ')}.</p>`;
  return `<h2 id="s-anchors">Anchors: what each one claims</h2>\n${table(
    'anchor-claims',
    ['project', 'anchor', 'scope', 'backend', 'entry', 'backend port'],
    rows,
    'No anchors were found.',
  )}${note}`;
}
