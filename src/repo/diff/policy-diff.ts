/**
 * Policy: every cell of the reachability matrix (server port or route × client) whose decision
 * flips between two builds — allow ↔ deny, 404 ↔ route. The matrix comes from the policy stage's
 * data; without one, only whether the compiled policy changed is known.
 */
import { compareText } from '../../base/index.js';
import type { MatrixCellChange } from './model.js';

interface MatrixCell {
  readonly target: string;
  readonly client: string;
  readonly decision: string;
}

/** The matrix cells of a policy stage's data, keyed `target\u0000client`. */
export function matrixCells(data: unknown): Map<string, MatrixCell> | undefined {
  const matrix = (data as { matrix?: unknown } | undefined)?.matrix;
  const cells = (matrix as { cells?: unknown } | undefined)?.cells ?? matrix;
  if (!Array.isArray(cells)) return undefined;
  const out = new Map<string, MatrixCell>();
  for (const raw of cells as Record<string, unknown>[]) {
    const target = String(raw.target ?? raw.server ?? raw.route ?? '');
    const client = String(raw.client ?? '');
    const decision = String(raw.decision ?? raw.outcome ?? raw.result ?? '');
    if (target !== '' && client !== '')
      out.set(`${target}\u0000${client}`, { target, client, decision });
  }
  return out;
}

export function diffMatrix(from: unknown, to: unknown): MatrixCellChange[] {
  const a = matrixCells(from) ?? new Map<string, MatrixCell>();
  const b = matrixCells(to) ?? new Map<string, MatrixCell>();
  const changes: MatrixCellChange[] = [];
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort(compareText)) {
    const x = a.get(key);
    const y = b.get(key);
    const before = x?.decision ?? '(absent)';
    const after = y?.decision ?? '(absent)';
    if (before !== after)
      changes.push({
        target: (y ?? x)?.target as string,
        client: (y ?? x)?.client as string,
        before,
        after,
      });
  }
  return changes;
}
