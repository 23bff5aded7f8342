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

/** A small binary heap of strings in {@link compareStrings} order. */
class MinHeap {
  private readonly items: string[] = [];
  get size(): number {
    return this.items.length;
  }
  push(item: string): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (compareStrings(items[parent] as string, item) <= 0) break;
      items[i] = items[parent] as string;
      i = parent;
    }
    items[i] = item;
  }
  pop(): string {
    const items = this.items;
    const top = items[0] as string;
    const last = items.pop() as string;
    if (items.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        let best = last;
        if (l < items.length && compareStrings(items[l] as string, best) < 0) {
          m = l;
          best = items[l] as string;
        }
        if (r < items.length && compareStrings(items[r] as string, best) < 0) m = r;
        if (m === i) break;
        items[i] = items[m] as string;
        i = m;
      }
      items[i] = last;
    }
    return top;
  }
}

/**
 * Orders nodes and finds self-loops and cycles. Edges to refs that are not nodes are ignored
 * here (the caller reports them as unresolved). Never throws.
 */
export function analyseGraph(nodes: readonly GraphNode[]): GraphResult {
  const known = new Set(nodes.map((n) => n.ref));
  const indegree = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  const selfLoops: string[] = [];
  for (const node of nodes) indegree.set(node.ref, 0);
  for (const node of nodes) {
    for (const target of new Set(node.targets)) {
      if (!known.has(target)) continue;
      if (target === node.ref) {
        selfLoops.push(node.ref);
        continue;
      }
      indegree.set(node.ref, (indegree.get(node.ref) as number) + 1);
      const list = dependents.get(target);
      if (list === undefined) dependents.set(target, [node.ref]);
      else list.push(node.ref);
    }
  }
  const heap = new MinHeap();
  for (const [ref, degree] of indegree) if (degree === 0) heap.push(ref);
  const order: string[] = [];
  while (heap.size > 0) {
    const ref = heap.pop();
    order.push(ref);
    for (const dependent of dependents.get(ref) ?? []) {
      const degree = (indegree.get(dependent) as number) - 1;
      indegree.set(dependent, degree);
      if (degree === 0) heap.push(dependent);
    }
  }
  const cycles: string[][] = [];
  if (order.length < nodes.length) {
    const placed = new Set(order);
    const rest = nodes
      .map((n) => n.ref)
      .filter((ref) => !placed.has(ref))
      .sort(compareStrings);
    const targetsOf = new Map(
      nodes.map((n) => [
        n.ref,
        [...new Set(n.targets)]
          .filter((t) => t !== n.ref && !placed.has(t) && known.has(t))
          .sort(compareStrings),
      ]),
    );
    const onCycle = new Set<string>();
    for (const start of rest) {
      if (onCycle.has(start)) continue;
      const cycle = findCycle(start, targetsOf);
      if (cycle !== undefined && !cycle.some((ref) => onCycle.has(ref))) {
        cycles.push(cycle);
        for (const ref of cycle) onCycle.add(ref);
      }
    }
    order.push(...rest);
  }
  return { order, selfLoops: selfLoops.sort(compareStrings), cycles };
}

/** A cycle through `start` (smallest successors first), as `[start, …, start]`, or undefined. */
function findCycle(
  start: string,
  targetsOf: ReadonlyMap<string, readonly string[]>,
): string[] | undefined {
  // Iterative DFS: fleets may be deep, and recursion depth should not depend on input.
  const path: string[] = [start];
  const next: number[] = [0];
  const visited = new Set<string>([start]);
  while (path.length > 0) {
    const top = path[path.length - 1] as string;
    const targets = targetsOf.get(top) ?? [];
    const i = next[next.length - 1] as number;
    if (i >= targets.length) {
      path.pop();
      next.pop();
      continue;
    }
    next[next.length - 1] = i + 1;
    const target = targets[i] as string;
    if (target === start) return [...path, start];
    if (!visited.has(target)) {
      visited.add(target);
      path.push(target);
      next.push(0);
    }
  }
  return undefined;
}
