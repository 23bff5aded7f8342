/** Rendering for `labelwise policy`: findings as text and JSON, decisions as a table and a trace. */
import type { Decision, PolicyProblem } from '../policy/index.js';
import type { CliIO } from './io.js';
import { paint, renderTable } from './output.js';

function location(p: PolicyProblem): string {
  const parts = [p.file, p.line].filter((x) => x !== undefined).join(':');
  return parts === '' ? '' : `${parts}: `;
}

/** `file:line: severity CODE [object]: path: message`, then witness and hint lines. */
export function formatProblem(p: PolicyProblem, io: CliIO): string {
  const severity =
    p.severity === 'error' ? paint(io, 'red', 'error') : paint(io, 'yellow', 'warning');
  const object = p.object === undefined ? '' : ` [${p.object}]`;
  const path = p.path === undefined ? '' : `${p.path}: `;
  let text = `${location(p)}${severity} ${p.code}${object}: ${path}${p.message}`;
  if (p.witness !== undefined) text += `\n  witness: ${JSON.stringify(p.witness)}`;
  if (p.hint !== undefined) text += `\n  hint: ${p.hint}`;
  return text;
}

/** A finding as JSON with a stable key order. */
export function problemJson(p: PolicyProblem): Record<string, unknown> {
  const out: Record<string, unknown> = { severity: p.severity, code: p.code };
  if (p.object !== undefined) out.object = p.object;
  if (p.file !== undefined) out.file = p.file;
  if (p.line !== undefined) out.line = p.line;
  if (p.path !== undefined) out.path = p.path;
  out.message = p.message;
  if (p.hint !== undefined) out.hint = p.hint;
  if (p.witness !== undefined) out.witness = p.witness;
  return out;
}

/** The decision as a small table, then the trace as numbered steps. */
export function printDecision(d: Decision, io: CliIO): void {
  const colour = d.decision === 'allow' ? 'green' : 'red';
  const rows: string[][] = [
    ['decision', paint(io, colour, `${d.decision}${d.status === null ? '' : ` (${d.status})`}`)],
    ['server', d.server],
    ['route', d.route === null ? '-' : `${d.route}${d.rule === null ? '' : ` rule ${d.rule}`}`],
    ['authorization', d.authorization ?? '-'],
    ['timeout', d.timeout ?? '-'],
    ['precedence', d.precedence],
  ];
  if (d.params !== undefined)
    rows.push([
      'params',
      Object.entries(d.params)
        .map(([k, v]) => `${k}=${v}`)
        .join(', '),
    ]);
  if (d.rewrite !== undefined)
    rows.push([
      'rewrite',
      `${d.rewrite.policy}: set ${JSON.stringify(d.rewrite.set)} clear ${JSON.stringify(d.rewrite.clear)}`,
    ]);
  io.stdout(renderTable(rows));
  io.stdout('\nwhy:\n');
  d.trace.forEach((line, i) => io.stdout(`  ${String(i + 1).padStart(2)}. ${line}\n`));
}
