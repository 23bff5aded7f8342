/** The policy section: the reachability matrix, every server port and route × client class. */
import type { PolicyMatrix } from '../../policy/index.js';
import { escapeHtml, table, td } from './html.js';

const LABEL = { allow: 'allow', some: 'some', deny: 'deny' } as const;

export function policySection(value: unknown): string {
  const matrix = (value as { matrix?: PolicyMatrix } | undefined)?.matrix;
  if (matrix === undefined) return '';
  const header = ['server port / route', 'matches', ...matrix.clients.map((c) => c.id)];
  const rows = matrix.rows.map((row) => [
    `<th scope="row">${escapeHtml(row.id)}</th>`,
    td(row.matches),
    ...matrix.clients.map((client) => {
      const cell = row.cells[client.id];
      if (cell === undefined) return td('');
      const title = cell.via === undefined ? '' : ` title="${escapeHtml(`via ${cell.via}`)}"`;
      return `<td class="reach-${cell.reach}"${title}>${LABEL[cell.reach]}</td>`;
    }),
  ]);
  const legend = matrix.clients
    .map((c) => `<li><code>${escapeHtml(c.id)}</code>: ${escapeHtml(c.description)}</li>`)
    .join('');
  return `<h2 id="s-policy">Policy: who can reach what</h2>
<p class="meta">Computed from the compiled policy with the selector algebra, not sampled; hover a cell for the authorization that decides it. <code>labelwise policy authorize</code> explains any cell.</p>
${table('policy-matrix', header, rows, 'No server ports or routes.')}
<ul class="legend">${legend}</ul>`;
}
