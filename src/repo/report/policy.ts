/**
 * The policy section: the reachability matrix, every server port and route × client class, then
 * the outbound flows (where each client namespace's requests go).
 */
import { flowDestination, flowPolicies } from '../../policy/index.js';
import type { OutboundFlow, PolicyMatrix } from '../../policy/index.js';
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
<ul class="legend">${legend}</ul>${outboundTable(matrix.outbound ?? [])}`;
}

function outboundTable(flows: readonly OutboundFlow[]): string {
  if (flows.length === 0) return '';
  const header = ['from namespaces', 'to', 'route', 'matches', 'goes to', 'timeouts, retries'];
  const rows = flows.map((f) => [
    td(
      f.namespaces[0] === '*'
        ? `every namespace${f.except === undefined || f.except.length === 0 ? '' : ` but ${f.except.join(', ')}`}`
        : f.namespaces.join(', '),
    ),
    `<th scope="row">${escapeHtml(f.parent)}</th>`,
    td(f.route === null ? '-' : f.rule === null ? f.route : `${f.route} rule ${f.rule}`),
    td(f.matches),
    td(flowDestination(f)),
    td(flowPolicies(f) || '-'),
  ]);
  return `
<h3>Outbound: where each namespace's requests go</h3>
<p class="meta">From Linkerd's outbound policy (Service routes, timeout, retry and failure-accrual annotations, EgressNetworks); <code>labelwise policy route</code> explains a flow's witness request.</p>
${table('policy-outbound', header, rows, '')}`;
}
