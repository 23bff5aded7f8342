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

/**
 * Orders nodes and finds self-loops and cycles. Edges to refs that are not nodes are ignored
 * here (the caller reports them as unresolved). Never throws.
 * HOT PATH (once per host): nodes are ranked by reference once, then everything runs on ranks.
 */
export function analyseGraph(nodes: readonly GraphNode[]): GraphResult {
  const sorted = [...nodes].sort((a, b) => compareStrings(a.ref, b.ref));
  const n = sorted.length;
  const rank = new Map<string, number>();
  for (let i = 0; i < n; i++) rank.set((sorted[i] as GraphNode).ref, i);
  const indegree = new Int32Array(n);
  const dependents: number[][] = Array.from({ length: n }, () => []);
  const successors: number[][] = Array.from({ length: n }, () => []);
  const selfLoops: string[] = [];
  for (let i = 0; i < n; i++) {
    const node = sorted[i] as GraphNode;
    for (const target of node.targets) {
      const t = rank.get(target);
      if (t === undefined) continue;
      if (t === i) {
        if (!selfLoops.includes(node.ref)) selfLoops.push(node.ref);
        continue;
      }
      if ((successors[i] as number[]).includes(t)) continue;
      (successors[i] as number[]).push(t);
      indegree[i]++;
      (dependents[t] as number[]).push(i);
    }
  }
  const heap = new RankHeap();
  for (let i = 0; i < n; i++) if (indegree[i] === 0) heap.push(i);
  const order: string[] = [];
  const placed = new Uint8Array(n);
  while (heap.size > 0) {
    const i = heap.pop();
    placed[i] = 1;
    order.push((sorted[i] as GraphNode).ref);
    for (const d of dependents[i] as number[]) if (--indegree[d] === 0) heap.push(d);
  }
  const cycles: string[][] = [];
  if (order.length < n) {
    const rest: number[] = [];
    for (let i = 0; i < n; i++) if (placed[i] === 0) rest.push(i);
    const onCycle = new Uint8Array(n);
    for (const start of rest) {
      if (onCycle[start] === 1) continue;
      const cycle = findCycle(start, successors, placed);
      if (cycle !== undefined && !cycle.some((i) => onCycle[i] === 1)) {
        cycles.push(cycle.map((i) => (sorted[i] as GraphNode).ref));
        for (const i of cycle) onCycle[i] = 1;
      }
    }
    for (const i of rest) order.push((sorted[i] as GraphNode).ref);
  }
  return { order, selfLoops: selfLoops.sort(compareStrings), cycles };
}

/** A cycle through `start` (smallest successors first), as `[start, …, start]`, or undefined. */
function findCycle(
  start: number,
  successors: readonly (readonly number[])[],
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
