/**
 * The dependency graph of one manifest (spec: Resolution step 6): unresolved references,
 * self-dependencies, cycles (with their path), and a deterministic order: topological, ties
 * broken by reference string. `requires`, `restartOn` and `reloadOn` all order their target first.
 */
import { compareStrings } from '../../selector/index.js';

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
    const onCycle = new Uint8Array(n);
    for (const start of rest) {
      if (onCycle[start] === 1) continue;
      const cycle = findCycle(start, successors, placed);
      if (cycle !== undefined && !cycle.some((i) => onCycle[i] === 1)) {
        cycles.push(cycle);
        for (const i of cycle) onCycle[i] = 1;
      }
    }
    order.push(...rest);
  }
  return { order, cycles };
}

/**
 * Orders nodes given by reference and finds self-loops and cycles. Edges to refs that are not
 * nodes are ignored (the caller reports them as unresolved). Never throws.
 */
export function analyseGraph(nodes: readonly GraphNode[]): GraphResult {
  const sorted = [...nodes].sort((a, b) => compareStrings(a.ref, b.ref));
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
    selfLoops: selfLoops.sort(compareStrings),
    cycles: result.cycles.map((cycle) => cycle.map(refOf)),
  };
}

/** A cycle through `start` (smallest successors first), as `[start, …, start]`, or undefined. */
function findCycle(
  start: number,
  successors: readonly (readonly number[] | undefined)[],
  placed: Uint8Array,
): number[] | undefined {
  // Iterative DFS: fleets may be deep, and recursion depth should not depend on input.
  const targetsOf = (i: number): number[] =>
    [...(successors[i] ?? [])].filter((t) => placed[t] === 0).sort((a, b) => a - b);
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
