/**
 * Policy: every cell of the reachability matrix (server port or route × client class) whose
 * decision flips between two builds — allow ↔ some ↔ deny, a route appearing or going — with
 * the authorization that decides it after the change (or before, when access was lost).
 */
import { compareText } from '../../base/index.js';
import type { MatrixCell, PolicyMatrix } from '../../policy/index.js';
import type { MatrixCellChange } from './model.js';

interface Cell {
  readonly target: string;
  readonly client: string;
  readonly decision: string;
  readonly via?: string;
}

/** The matrix of a policy stage's data, keyed `row\u0000client`. */
export function matrixCells(data: unknown): Map<string, Cell> | undefined {
  const matrix = (data as { matrix?: PolicyMatrix } | undefined)?.matrix;
  if (matrix === undefined || !Array.isArray(matrix.rows)) return undefined;
  const out = new Map<string, Cell>();
  for (const row of matrix.rows)
    for (const [client, cell] of Object.entries(row.cells) as [string, MatrixCell][])
      out.set(`${row.id}\u0000${client}`, {
        target: row.id,
        client,
        decision: cell.reach,
        ...(cell.via !== undefined ? { via: cell.via } : {}),
      });
  return out;
}

export function diffMatrix(from: unknown, to: unknown): MatrixCellChange[] {
  const a = matrixCells(from) ?? new Map<string, Cell>();
  const b = matrixCells(to) ?? new Map<string, Cell>();
  const changes: MatrixCellChange[] = [];
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort(compareText)) {
    const x = a.get(key);
    const y = b.get(key);
    // A row that appears or goes is a route (or port) the change adds or removes: "404".
    const before = x?.decision ?? '404';
    const after = y?.decision ?? '404';
    if (before === after) continue;
    const cause = (after === 'deny' || after === '404' ? x?.via : y?.via) ?? y?.via ?? x?.via;
    const cell = (y ?? x) as Cell;
    changes.push({
      target: cell.target,
      client: cell.client,
      before,
      after,
      ...(cause !== undefined ? { cause } : {}),
    });
  }
  return changes;
}
