/**
 * Rendering for `labelwise policy`: decisions
 * as a table and a trace, the matrix as a table. Every input-derived string is escaped before it
 * reaches the terminal: names, paths and trace lines come from files.
 */
import { escapeControl } from '../base/index.js';
import { flowDestination, flowPolicies } from '../policy/index.js';
import type { Decision, OutboundFlow, PolicyMatrix } from '../policy/index.js';
import type { CliIO } from './io.js';
import { paint, renderTable } from './output.js';

const safe = (text: string): string => escapeControl(text, true);

/** The decision as a small table, then the trace as numbered steps. */
export function printDecision(d: Decision, io: CliIO): void {
  const colour = d.decision === 'allow' ? 'green' : 'red';
  const rows: string[][] = [
    ['decision', paint(io, colour, `${d.decision}${d.status === null ? '' : ` (${d.status})`}`)],
    ['server', safe(d.server)],
    [
      'route',
      d.route === null ? '-' : `${safe(d.route)}${d.rule === null ? '' : ` rule ${d.rule}`}`,
    ],
    ['authorization', d.authorization === null ? '-' : safe(d.authorization)],
    ['timeout', d.timeout === null ? '-' : safe(d.timeout)],
    ['precedence', d.precedence],
  ];
  if (d.params !== undefined)
    rows.push([
      'params',
      safe(
        Object.entries(d.params)
          .map(([k, v]) => `${k}=${v}`)
          .join(', '),
      ),
    ]);
  if (d.rewrite !== undefined)
    rows.push([
      'rewrite',
      safe(
        `${d.rewrite.policy}: set ${JSON.stringify(d.rewrite.set)} clear ${JSON.stringify(d.rewrite.clear)}`,
      ),
    ]);
  io.stdout(renderTable(rows));
  io.stdout('\nwhy:\n');
  d.trace.forEach((line, i) => io.stdout(`  ${String(i + 1).padStart(2)}. ${safe(line)}\n`));
}

const MARK: Record<string, string> = { allow: 'allow', some: 'some', deny: '-' };

/** The matrix as one table per namespace: a row per Server port and route, a column per client. */
export function printMatrix(matrix: PolicyMatrix, io: CliIO): void {
  if (matrix.rows.length === 0) {
    io.stdout(
      matrix.outbound.length === 0
        ? 'no pods in the input, so nothing to reach\n'
        : 'no pod port in the input, so nothing to reach inbound\n',
    );
    printOutbound(matrix.outbound, io);
    return;
  }
  const clients = matrix.clients.map((c) => c.id);
  const namespaces = [...new Set(matrix.rows.map((r) => r.namespace))];
  namespaces.forEach((ns, n) => {
    if (n > 0) io.stdout('\n');
    io.stdout(`namespace ${safe(ns)}\n`);
    const table: string[][] = [['SERVER:PORT', 'ROUTE', 'MATCHES', ...clients.map(safe)]];
    for (const row of matrix.rows.filter((r) => r.namespace === ns)) {
      const server = row.server.startsWith(`${ns}/`) ? row.server.slice(ns.length + 1) : row.server;
      table.push([
        `${safe(server)}:${row.port}`,
        safe(row.route),
        safe(row.matches.length > 48 ? `${row.matches.slice(0, 47)}…` : row.matches),
        ...clients.map((c) => {
          const reach = row.cells[c]?.reach ?? 'deny';
          const mark = MARK[reach] ?? reach;
          return reach === 'allow'
            ? paint(io, 'green', mark)
            : reach === 'some'
              ? paint(io, 'yellow', mark)
              : mark;
        }),
      ]);
    }
    io.stdout(renderTable(table));
  });
  io.stdout('\nclients:\n');
  for (const c of matrix.clients) io.stdout(`  ${safe(c.id)}: ${safe(c.description)}\n`);
  const outside = [...new Set(matrix.rows.flatMap((r) => r.alsoAdmits))];
  if (outside.length > 0)
    io.stdout(`also admitted somewhere, outside these columns: ${safe(outside.join(', '))}\n`);
  io.stdout(
    "localhost is always admitted. 'some': part of the column (some addresses or identities). Explain a cell: --explain ROW --client CLIENT (row ids: --json)\n",
  );
  printOutbound(matrix.outbound, io);
}

/** `a, b, c +4`, or `* but x, y`: a flow's client namespaces, shortened. */
function namespaceList(flow: OutboundFlow): string {
  const short = (list: readonly string[]): string =>
    list.length > 3 ? `${list.slice(0, 3).join(', ')} +${list.length - 3}` : list.join(', ');
  if (flow.namespaces[0] !== '*') return short(flow.namespaces);
  return flow.except === undefined || flow.except.length === 0
    ? '*'
    : `* but ${short(flow.except)}`;
}

/** The outbound flows as one table: a row per client namespaces, parent port and rule. */
function printOutbound(flows: readonly OutboundFlow[], io: CliIO): void {
  if (flows.length === 0) return;
  io.stdout('\noutbound: where the clients of each namespace send their requests\n');
  const table: string[][] = [['FROM', 'TO', 'ROUTE', 'MATCHES', 'GOES TO', 'POLICIES']];
  for (const f of flows) {
    const route = f.route === null ? '-' : f.rule === null ? f.route : `${f.route} rule ${f.rule}`;
    const to = flowDestination(f);
    table.push([
      safe(namespaceList(f)),
      safe(f.parent),
      safe(route),
      safe(f.matches.length > 48 ? `${f.matches.slice(0, 47)}…` : f.matches),
      f.decision === 'route' || f.decision === 'forward' ? safe(to) : paint(io, 'red', safe(to)),
      safe(flowPolicies(f) || '-'),
    ]);
  }
  io.stdout(renderTable(table));
  io.stdout(
    "FROM *: every namespace of the input's pods (but those named). Route a flow's witness (--json: outbound[].witness) with labelwise policy route for its trace.\n",
  );
}
