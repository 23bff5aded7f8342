/**
 * Policy: every cell of the reachability matrix (server port or route × client class) whose
 * decision flips between two builds — allow ↔ some ↔ deny, a route appearing or going — with
 * the object that decides it, and the flips grouped by that object. Outbound flows flip the same
 * way, per client namespace: where a rule's requests go (backends and shares, timeouts, retries,
 * circuit breaker, egress decision) reads differently after the change.
 *
 * Both revisions are evaluated over the same clients (the columns of both models together): a
 * client a change introduces (a ServiceAccount a new policy names) was a client before it too,
 * only not a column of its own. Comparing each side's own columns would show every cell of that
 * client as "404" before the change, on rows the change never touched.
 */
import { compareText, pushAll } from '../../base/index.js';
import { clientClasses, computeMatrix, flowNamespaces, flowSummary } from '../../policy/index.js';
import type { MatrixCell, OutboundFlow, PolicyMatrix, PolicyModel } from '../../policy/index.js';
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

/** What an outbound flow is before or after a change that adds or removes it. */
export const NO_FLOW = '(no flow)';

interface FlowCell {
  readonly target: string;
  readonly client: string;
  readonly summary: string;
  /** The route that decides the flow, or the parent for its default route and 404. */
  readonly cause: string;
}

/** The outbound flows as `flow\u0000ns:<namespace>` → the flow in one line. */
function flowCells(matrix: PolicyMatrix | undefined): Map<string, FlowCell> {
  const out = new Map<string, FlowCell>();
  const flows: readonly OutboundFlow[] = Array.isArray(matrix?.outbound) ? matrix.outbound : [];
  const clients = matrix?.clientNamespaces ?? [];
  for (const flow of flows) {
    const summary = flowSummary(flow);
    const cause =
      flow.route !== null && flow.rule !== null ? flow.route : `${flow.parent} (no route rule)`;
    for (const ns of flowNamespaces(flow, clients))
      out.set(`${flow.id}\u0000ns:${ns}`, {
        target: flow.id,
        client: `ns:${ns}`,
        summary,
        cause,
      });
  }
  return out;
}

/** A cell whose value differs between two revisions, and the two sides it was read from. */
interface Flip<C> {
  readonly change: Pick<MatrixCellChange, 'target' | 'client' | 'before' | 'after'>;
  readonly x: C | undefined;
  readonly y: C | undefined;
  readonly cell: C;
}

/** The cells of two revisions whose value (`value` of a missing cell too) differs, in key order. */
function flips<C extends { readonly target: string; readonly client: string }>(
  a: ReadonlyMap<string, C>,
  b: ReadonlyMap<string, C>,
  value: (cell: C | undefined) => string,
): Flip<C>[] {
  const out: Flip<C>[] = [];
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort(compareText)) {
    const x = a.get(key);
    const y = b.get(key);
    const before = value(x);
    const after = value(y);
    if (before === after) continue;
    const cell = (y ?? x) as C;
    out.push({ change: { target: cell.target, client: cell.client, before, after }, x, y, cell });
  }
  return out;
}

/** Outbound flows whose line differs, appears or goes, per client namespace. */
function diffFlows(
  before: PolicyMatrix | undefined,
  after: PolicyMatrix | undefined,
): MatrixCellChange[] {
  return flips(flowCells(before), flowCells(after), (c) => c?.summary ?? NO_FLOW).map(
    ({ change, cell }): MatrixCellChange => ({
      ...change,
      cause: cell.cause,
      causeKind: 'outbound',
    }),
  );
}

export function diffMatrix(from: unknown, to: unknown): MatrixCellChange[] {
  const [before, after] = sharedMatrices(from, to);
  const a = cellsOf(before) ?? new Map<string, Cell>();
  const b = cellsOf(after) ?? new Map<string, Cell>();
  // A row that appears or goes is a route (or port) the change adds or removes: "404".
  const changes = flips(a, b, (c) => c?.decision ?? '404').map(
    ({ change, x, y }): MatrixCellChange => ({ ...change, ...causeOf(x, y) }),
  );
  pushAll(changes, diffFlows(before, after));
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
