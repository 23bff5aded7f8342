// Properties of the dependency graph analysis against naive references on small random graphs:
// the order holds every node once with dependencies first, every reported cycle is a real path,
// and there is exactly one cycle per group of mutually dependent nodes (found by brute force).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyseGraph } from '../../src/fleet/resolve/graph.js';

const graph = fc
  .integer({ min: 1, max: 9 })
  .chain((n) =>
    fc.tuple(
      fc.constant(n),
      fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: n * 3 }),
    ),
  )
  .map(([n, edges]) => {
    const names = Array.from({ length: n }, (_, i) => `r${i}`);
    return names.map((ref, i) => ({
      ref,
      targets: edges.filter(([from, to]) => from === i && to !== i).map(([, to]) => `r${to}`),
    }));
  });

/** Groups of two or more nodes that reach each other, by brute-force reachability. */
function naiveGroups(nodes: { ref: string; targets: string[] }[]): number {
  const refs = nodes.map((n) => n.ref);
  const reach = new Map(refs.map((r) => [r, new Set<string>()]));
  for (const node of nodes) for (const t of node.targets) reach.get(node.ref)?.add(t);
  for (const k of refs)
    for (const i of refs)
      if (reach.get(i)?.has(k)) for (const j of reach.get(k) ?? []) reach.get(i)?.add(j);
  const seen = new Set<string>();
  let groups = 0;
  for (const r of refs) {
    if (seen.has(r)) continue;
    const members = refs.filter((o) => o === r || (reach.get(r)?.has(o) && reach.get(o)?.has(r)));
    for (const m of members) seen.add(m);
    if (members.length > 1) groups++;
  }
  return groups;
}

test('graph analysis agrees with brute force on small graphs', () => {
  fc.assert(
    fc.property(graph, (nodes) => {
      const result = analyseGraph(nodes);
      assert.deepEqual([...result.order].sort(), nodes.map((n) => n.ref).sort());
      const edges = new Set(nodes.flatMap((n) => n.targets.map((t) => `${n.ref}>${t}`)));
      for (const cycle of result.cycles) {
        assert.equal(cycle[0], cycle[cycle.length - 1]);
        for (let i = 0; i + 1 < cycle.length; i++)
          assert.ok(edges.has(`${cycle[i]}>${cycle[i + 1]}`), `${cycle.join(' -> ')}`);
      }
      assert.equal(result.cycles.length, naiveGroups(nodes));
      if (result.cycles.length === 0) {
        const position = new Map(result.order.map((r, i) => [r, i]));
        for (const node of nodes)
          for (const t of node.targets)
            assert.ok((position.get(t) as number) < (position.get(node.ref) as number));
      }
    }),
    { numRuns: 1000 },
  );
});
