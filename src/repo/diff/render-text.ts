/** `labelwise diff` as text for a terminal: one section per module, then the diagnostics. */
import { escapeControl, formatDiagnostic } from '../../base/index.js';
import { checkedSentence } from './checked.js';
import type { FieldChange, RepoDiff } from './model.js';

const one = (text: string): string => escapeControl(text, true);
const SIGN = {
  added: '+',
  removed: '-',
  changed: '~',
  gained: '+',
  lost: '-',
  moved: '~',
} as const;

export function fieldLine(f: FieldChange): string {
  const layers = f.layers.length > 0 ? `  (${f.layers.join(', ')})` : '';
  return one(
    `${f.resource} ${f.field} ${f.before ?? '(unset)'} -> ${f.after ?? '(unset)'}${layers}`,
  );
}

/** `3 reachability cell(s)`, and `and 2 outbound flow(s)` when outbound flows change. */
export function policyCounts(diff: RepoDiff): string {
  const flows = diff.policy.changes.filter((c) => c.causeKind === 'outbound').length;
  const cells = `${diff.policy.changes.length - flows} reachability cell(s)`;
  return flows === 0 ? cells : `${cells} and ${flows} outbound flow(s)`;
}

export function renderDiffText(diff: RepoDiff, name: string): string {
  const out: string[] = [
    `labelwise diff ${one(name)}: ${one(diff.from.revision)}..${one(diff.to.revision)}`,
    '',
  ];
  if (!diff.changed) {
    const checked = checkedSentence(diff.checked);
    out.push(`No change to what reaches what.${checked === undefined ? '' : ` ${checked}`}`);
    for (const n of diff.checked.composeNotRead) out.push(`  not read: ${one(n.file)}`);
    return `${out.join('\n')}\n`;
  }
  const { fleet, catalog, policy, anchor } = diff;
  if (fleet.changes.length > 0) {
    out.push(`fleet: ${fleet.changes.length} host(s) changed`);
    for (const host of fleet.changes) {
      out.push(
        `  ${SIGN[host.change]} ${one(host.host)}${host.change === 'changed' ? '' : ` (${host.change})`}`,
      );
      for (const layer of host.layersAdded) out.push(`      + layer ${one(layer)}`);
      for (const layer of host.layersRemoved) out.push(`      - layer ${one(layer)}`);
      for (const field of host.fields) out.push(`      ${fieldLine(field)}`);
    }
    out.push('');
  }
  if (catalog.changes.length > 0 || catalog.flows.length > 0 || catalog.hazards.length > 0) {
    out.push(
      `catalog: ${catalog.changes.length} manifest(s) changed, ${catalog.flows.length} flow(s) changed`,
    );
    for (const m of catalog.changes) {
      out.push(`  ${SIGN[m.change]} ${one(m.file)}`);
      if (m.patch !== undefined)
        out.push(escapeControl(m.patch).replace(/^/gm, '      ').trimEnd());
    }
    for (const flow of catalog.flows)
      out.push(`  ${flow.change === 'allowed' ? '+' : '-'} flow ${one(flow.flow)}`);
    for (const hazard of catalog.hazards) out.push(`  ! ${formatDiagnostic(hazard)}`);
    out.push('');
  }
  if (policy.changes.length > 0 || policy.compiledChanged) {
    out.push(`policy: ${policyCounts(diff)} flip, from ${policy.causes.length} cause(s)`);
    for (const cause of policy.causes) {
      const unit = cause.kind === 'outbound' ? 'flow(s)' : 'cell(s)';
      out.push(`  ${cause.kind} ${one(cause.cause)}: ${cause.cells} ${unit}`);
      for (const cell of policy.changes)
        if (cell.cause === cause.cause && cell.causeKind === cause.kind)
          out.push(
            `    ~ ${one(cell.target)} from ${one(cell.client)}: ${one(cell.before)} -> ${one(cell.after)}`,
          );
    }
    if (policy.changes.length === 0)
      out.push('  the compiled policy changed (policy/compiled.json)');
    out.push('');
  }
  if (anchor.changes.length > 0 || anchor.overlapsIntroduced.length > 0) {
    out.push(`anchors: ${anchor.changes.length} claim(s) changed`);
    for (const claim of anchor.changes)
      out.push(
        `  ${SIGN[claim.change]} ${one(claim.project)}/${one(claim.backend)}: ${one(claim.before ?? '(none)')} -> ${one(claim.after ?? '(none)')}`,
      );
    for (const overlap of anchor.overlapsIntroduced) out.push(`  ! ${formatDiagnostic(overlap)}`);
    out.push('');
  }
  if (diff.introduced.length > 0 || diff.resolved.length > 0) {
    out.push(`diagnostics: ${diff.introduced.length} introduced, ${diff.resolved.length} resolved`);
    for (const d of diff.introduced)
      out.push(`  + ${formatDiagnostic(d).replace(/\n/g, '\n    ')}`);
    for (const d of diff.resolved) out.push(`  - ${formatDiagnostic(d).replace(/\n/g, '\n    ')}`);
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
