/**
 * The dependency graph of one manifest (spec: Resolution step 6): unresolved references,
 * self-dependencies, cycles (with their path), and a deterministic order: topological, ties
 * broken by reference string. `requires`, `restartOn` and `reloadOn` all order their target first.
 */
import { pushAll } from '../../base/arrays.js';
import { compareText } from '../../base/text.js';

export interface GraphNode {
  readonly ref: string;
  /** Every edge target, any kind. */
  readonly targets: readonly string[];
}

export interface GraphResult {
  /** Every node, dependencies first; nodes on a cycle come last in reference order. */
  readonly order: readonly string[];
  readonly selfLoops: readonly string[];
  /** Each cycle as a path that returns to its start: `[A, B, A]`. */
  readonly cycles: readonly (readonly string[])[];
}

/** A binary min-heap of small integers (node ranks: rank order is reference order). */
class RankHeap {
  private readonly items: number[] = [];
  get size(): number {
    return this.items.length;
  }
  push(item: number): void {
    const items = this.items;
    let i = items.length;
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent] as number;
      if (p <= item) break;
      items[i] = p;
      i = parent;
    }
    items[i] = item;
  }
  pop(): number {
    const items = this.items;
    const top = items[0] as number;
    const last = items.pop() as number;
    const n = items.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && (items[r] as number) < (items[l] as number) ? r : l;
        if ((items[c] as number) >= last) break;
        items[i] = items[c] as number;
        i = c;
      }
      items[i] = last;
    }
    return top;
  }
}

/** The graph of one manifest over node indices `0..n-1`, where index order is reference order. */
export interface IndexedGraphResult {
  readonly order: readonly number[];
  readonly cycles: readonly (readonly number[])[];
}

/**
 * Orders nodes `0..n-1` (index order is reference order, so ties break by reference) and finds
 * cycles. `successors[i]` lists the nodes `i` depends on (no self-loops, no duplicates);
 * undefined means none. Never throws.
 * HOT PATH (once per host): typed arrays and integer heaps only.
 */
export function analyseIndexed(
  n: number,
  successors: readonly (readonly number[] | undefined)[],
): IndexedGraphResult {
  const indegree = new Int32Array(n);
  let dependents: (number[] | undefined)[] | undefined;
  for (let i = 0; i < n; i++) {
    const list = successors[i];
    if (list === undefined) continue;
    dependents ??= new Array<number[] | undefined>(n);
    for (const t of list) {
      indegree[i] = (indegree[i] as number) + 1;
      const d = dependents[t];
      if (d === undefined) dependents[t] = [i];
      else d.push(i);
    }
  }
  const order: number[] = [];
  if (dependents === undefined) {
    for (let i = 0; i < n; i++) order.push(i);
    return { order, cycles: [] };
  }
  const heap = new RankHeap();
  for (let i = 0; i < n; i++) if (indegree[i] === 0) heap.push(i);
  const placed = new Uint8Array(n);
  while (heap.size > 0) {
    const i = heap.pop();
    placed[i] = 1;
    order.push(i);
    const d = dependents[i];
    if (d === undefined) continue;
    for (const j of d) {
      const left = (indegree[j] as number) - 1;
      indegree[j] = left;
      if (left === 0) heap.push(j);
    }
  }
  const cycles: number[][] = [];
  if (order.length < n) {
    const rest: number[] = [];
    for (let i = 0; i < n; i++) if (placed[i] === 0) rest.push(i);
    // One cycle per strongly connected group of what is left, through its smallest node and
    // searched only inside the group. Searching from every leftover node instead cost
    // O(nodes × edges): a long chain of resources above one small cycle took 47 s at 20,000.
    const component = components(n, rest, successors, placed);
    const searched = new Uint8Array(n + 1);
    for (const start of rest) {
      const group = component[start] as number;
      if (group === 0 || searched[group] === 1) continue;
      searched[group] = 1;
      const cycle = findCycle(start, successors, component);
      if (cycle !== undefined) cycles.push(cycle);
    }
    pushAll(order, rest);
  }
  return { order, cycles };
}

/**
 * Strongly connected components among the unplaced nodes (iterative Tarjan, O(nodes + edges)).
 * Returns, per node, a group number ≥ 1 for nodes in a group of two or more (which always holds
 * a cycle: there are no self-loops), and 0 otherwise.
 */
function components(
  n: number,
  nodes: readonly number[],
  successors: readonly (readonly number[] | undefined)[],
  placed: Uint8Array,
): Int32Array {
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const group = new Int32Array(n);
  const stack: number[] = [];
  let counter = 0;
  let groups = 0;
  for (const root of nodes) {
    if ((index[root] as number) >= 0) continue;
    // Each frame: the node and how many of its successors have been looked at.
    const frames: [number, number][] = [[root, 0]];
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as [number, number];
      const [v, next] = frame;
      const targets = successors[v] ?? [];
      if (next < targets.length) {
        frame[1] = next + 1;
        const w = targets[next] as number;
        if (placed[w] === 1) continue;
        if ((index[w] as number) < 0) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          frames.push([w, 0]);
        } else if (onStack[w] === 1) low[v] = Math.min(low[v] as number, index[w] as number);
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent !== undefined)
        low[parent[0]] = Math.min(low[parent[0]] as number, low[v] as number);
      if (low[v] !== index[v]) continue;
      const members: number[] = [];
      for (;;) {
        const w = stack.pop() as number;
        onStack[w] = 0;
        members.push(w);
        if (w === v) break;
      }
      if (members.length > 1) {
        groups++;
        for (const w of members) group[w] = groups;
      }
    }
  }
  return group;
}

/**
 * Orders nodes given by reference and finds self-loops and cycles. Edges to refs that are not
 * nodes are ignored (the caller reports them as unresolved). Never throws.
 */
export function analyseGraph(nodes: readonly GraphNode[]): GraphResult {
  const sorted = [...nodes].sort((a, b) => compareText(a.ref, b.ref));
  const rank = new Map<string, number>();
  sorted.forEach((node, i) => rank.set(node.ref, i));
  const selfLoops: string[] = [];
  const successors = sorted.map((node, i) => {
    const out: number[] = [];
    for (const target of node.targets) {
      const t = rank.get(target);
      if (t === undefined || out.includes(t)) continue;
      if (t === i) {
        if (!selfLoops.includes(node.ref)) selfLoops.push(node.ref);
      } else out.push(t);
    }
    return out.length === 0 ? undefined : out;
  });
  const result = analyseIndexed(sorted.length, successors);
  const refOf = (i: number): string => (sorted[i] as GraphNode).ref;
  return {
    order: result.order.map(refOf),
    selfLoops: selfLoops.sort(compareText),
    cycles: result.cycles.map((cycle) => cycle.map(refOf)),
  };
}

/**
 * A cycle through `start` inside its group (smallest successors first), as `[start, …, start]`,
 * or undefined. Nodes outside the group cannot lead back to `start`, so they are never entered.
 */
function findCycle(
  start: number,
  successors: readonly (readonly number[] | undefined)[],
  component: Int32Array,
): number[] | undefined {
  // Iterative DFS: fleets may be deep, and recursion depth should not depend on input.
  const group = component[start] as number;
  const targetsOf = (i: number): number[] =>
    [...(successors[i] ?? [])].filter((t) => component[t] === group).sort((a, b) => a - b);
  const path: number[] = [start];
  const lists: number[][] = [targetsOf(start)];
  const next: number[] = [0];
  const visited = new Set<number>([start]);
  while (path.length > 0) {
    const top = path.length - 1;
    const targets = lists[top] as number[];
    const i = next[top] as number;
    if (i >= targets.length) {
      path.pop();
      lists.pop();
      next.pop();
      continue;
    }
    next[top] = i + 1;
    const target = targets[i] as number;
    if (target === start) return [...path, start];
    if (!visited.has(target)) {
      visited.add(target);
      path.push(target);
      lists.push(targetsOf(target));
      next.push(0);
    }
  }
  return undefined;
}
