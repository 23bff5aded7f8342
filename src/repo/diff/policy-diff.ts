/**
 * Policy: every cell of the reachability matrix (server port or route × client class) whose
 * decision flips between two builds — allow ↔ some ↔ deny, a route appearing or going — with
 * the object that decides it, and the flips grouped by that object.
 *
 * Both revisions are evaluated over the same clients (the columns of both models together): a
 * client a change introduces (a ServiceAccount a new policy names) was a client before it too,
 * only not a column of its own. Comparing each side's own columns would show every cell of that
 * client as "404" before the change, on rows the change never touched.
 */
import { compareText } from '../../base/index.js';
import { clientClasses, computeMatrix } from '../../policy/index.js';
import type { MatrixCell, PolicyMatrix, PolicyModel } from '../../policy/index.js';
import type { MatrixCellChange, PolicyCause } from './model.js';

interface Cell {
  readonly target: string;
  readonly client: string;
  readonly decision: string;
  readonly via?: string;
}

interface PolicyData {
  readonly matrix?: PolicyMatrix;
  readonly model?: PolicyModel;
}

/** The matrix as `row\u0000client` → cell. */
function cellsOf(matrix: PolicyMatrix | undefined): Map<string, Cell> | undefined {
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

/** The matrix of a policy stage's data, keyed `row\u0000client`. */
export function matrixCells(data: unknown): Map<string, Cell> | undefined {
  return cellsOf((data as PolicyData | undefined)?.matrix);
}

/**
 * Both sides' matrices over one set of columns. A side without a model (no policy part at that
 * revision) keeps its own matrix, which is then empty or absent.
 */
export function sharedMatrices(
  from: unknown,
  to: unknown,
): [PolicyMatrix | undefined, PolicyMatrix | undefined] {
  const a = from as PolicyData | undefined;
  const b = to as PolicyData | undefined;
  if (a?.model === undefined || b?.model === undefined) return [a?.matrix, b?.matrix];
  const clients = clientClasses(a.model, b.model);
  return [computeMatrix(a.model, { clients }), computeMatrix(b.model, { clients })];
}

/**
 * What decides a flip: the route (or port) when the row appears or goes, else the authorization
 * that admits after the change (or admitted before it, when access is lost).
 */
function causeOf(
  x: Cell | undefined,
  y: Cell | undefined,
): Pick<MatrixCellChange, 'cause' | 'causeKind'> {
  if (x === undefined || y === undefined)
    return {
      cause: (y ?? x)?.target ?? '',
      causeKind: x === undefined ? 'route added' : 'route removed',
    };
  const gained = (RANK[y.decision] ?? 0) > (RANK[x.decision] ?? 0);
  const via = gained ? (y.via ?? x.via) : (x.via ?? y.via);
  return via === undefined
    ? { cause: '(no authorization)', causeKind: 'authorization' }
    : { cause: via, causeKind: 'authorization' };
}

const RANK: Readonly<Record<string, number>> = { '404': -1, deny: 0, some: 1, allow: 2 };

export function diffMatrix(from: unknown, to: unknown): MatrixCellChange[] {
  const [before, after] = sharedMatrices(from, to);
  const a = cellsOf(before) ?? new Map<string, Cell>();
  const b = cellsOf(after) ?? new Map<string, Cell>();
  const changes: MatrixCellChange[] = [];
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort(compareText)) {
    const x = a.get(key);
    const y = b.get(key);
    // A row that appears or goes is a route (or port) the change adds or removes: "404".
    const was = x?.decision ?? '404';
    const now = y?.decision ?? '404';
    if (was === now) continue;
    const cell = (y ?? x) as Cell;
    changes.push({
      target: cell.target,
      client: cell.client,
      before: was,
      after: now,
      ...causeOf(x, y),
    });
  }
  return changes;
}

/** The flips by the object that decides them, the largest group first. */
export function groupByCause(changes: readonly MatrixCellChange[]): PolicyCause[] {
  const groups = new Map<string, MatrixCellChange[]>();
  for (const change of changes) {
    const key = `${change.causeKind}\u0000${change.cause}`;
    const list = groups.get(key);
    if (list === undefined) groups.set(key, [change]);
    else list.push(change);
  }
  const out: PolicyCause[] = [];
  for (const list of groups.values()) {
    const first = list[0] as MatrixCellChange;
    const transitions = new Set(list.map((c) => `${c.before} → ${c.after}`));
    out.push({
      cause: first.cause,
      kind: first.causeKind,
      cells: list.length,
      targets: [...new Set(list.map((c) => c.target))].sort(compareText),
      clients: [...new Set(list.map((c) => c.client))].sort(compareText),
      transitions: [...transitions].sort(compareText),
    });
  }
  return out.sort(
    (p, q) => q.cells - p.cells || compareText(p.kind, q.kind) || compareText(p.cause, q.cause),
  );
}
