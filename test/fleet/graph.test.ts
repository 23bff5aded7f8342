// Graph checks and order (spec: Resolution step 6), through real fleets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyseGraph } from '../../src/fleet/resolve/graph.js';
import { FLEET, doc, errorsOf, host, layer, resolveIn } from './helpers.js';

const pkg = (name: string, edges = ''): string =>
  doc('Package', name, `${edges}desired:\n  state: present\n`);
const base = (...docs: string[]): Record<string, string | string[]> => ({
  'fleet.yaml': FLEET,
  'h.yaml': host('web-001', { role: 'web' }),
  'l/l.yaml': [layer('base', 0), ...docs],
});

test('order is topological with ties broken by reference string', () => {
  const m = resolveIn(
    base(
      pkg('c', 'requires:\n  - Package[a]\n'),
      pkg('b'),
      pkg('a', 'requires:\n  - Package[d]\n'),
      pkg('d'),
    ),
    'web-001',
  );
  assert.deepEqual(m.problems, []);
  assert.deepEqual(
    m.resources.map((r) => r.ref),
    ['Package[b]', 'Package[d]', 'Package[a]', 'Package[c]'],
  );
});

test('an unresolved reference names the host', () => {
  const m = resolveIn(base(pkg('a', 'requires:\n  - Package[missing]\n')), 'web-001');
  assert.deepEqual(errorsOf(m.problems), ['l/l.yaml:10 FLEET_UNRESOLVED_REFERENCE']);
  assert.equal(m.problems[0]?.host, 'web-001');
  assert.match(m.problems[0]?.message ?? '', /Package\[a\] requires Package\[missing\]/);
});

test('a self-dependency is an error', () => {
  const m = resolveIn(base(pkg('a', 'requires:\n  - Package[a]\n')), 'web-001');
  assert.deepEqual(
    m.problems.map((p) => p.code),
    ['FLEET_SELF_DEPENDENCY'],
  );
});

test('a cycle is reported with its path', () => {
  const m = resolveIn(
    base(
      pkg('a', 'requires:\n  - Package[b]\n'),
      pkg('b', 'restartOn:\n  - Package[c]\n'),
      pkg('c', 'reloadOn:\n  - Package[a]\n'),
      pkg('z'),
    ),
    'web-001',
  );
  assert.deepEqual(
    m.problems.map((p) => p.message),
    ['dependency cycle: Package[a] -> Package[b] -> Package[c] -> Package[a]'],
  );
  assert.deepEqual(
    m.resources.map((r) => r.ref),
    ['Package[z]', 'Package[a]', 'Package[b]', 'Package[c]'],
  );
});

test('two resources of one type with the same target identity', () => {
  const m = resolveIn(
    base(
      doc('File', 'a', 'desired:\n  path: /etc/x\n'),
      doc('File', 'b', 'desired:\n  path: /etc/x\n'),
      doc('Directory', 'c', 'desired:\n  path: /etc/x\n'),
    ),
    'web-001',
  );
  assert.deepEqual(
    m.problems.map((p) => p.message),
    ['File[a] and File[b] both manage "/etc/x"'],
  );
});

test('analyseGraph finds every disjoint cycle and ignores unknown targets', () => {
  const result = analyseGraph([
    { ref: 'a', targets: ['b'] },
    { ref: 'b', targets: ['a', 'zz'] },
    { ref: 'c', targets: ['d'] },
    { ref: 'd', targets: ['c'] },
    { ref: 'e', targets: [] },
  ]);
  assert.deepEqual(result.cycles, [
    ['a', 'b', 'a'],
    ['c', 'd', 'c'],
  ]);
  assert.deepEqual(result.order, ['e', 'a', 'b', 'c', 'd']);
});

test('analyseGraph handles long chains without recursion limits', () => {
  const n = 20000;
  const nodes = Array.from({ length: n }, (_, i) => ({
    ref: `r${String(i).padStart(6, '0')}`,
    targets:
      i === 0 ? [`r${String(n - 1).padStart(6, '0')}`] : [`r${String(i - 1).padStart(6, '0')}`],
  }));
  const result = analyseGraph(nodes);
  assert.equal(result.cycles.length, 1);
  assert.equal(result.cycles[0]?.length, n + 1);
});

// regression: every node left over after ordering searched for a cycle through itself, so a long
// chain above one small cycle cost O(nodes²) (47 s at 20,000 nodes, per host). The timeout only
// turns such a hang into a failure; it asserts nothing about speed.
test(
  'a long chain of dependants above one cycle reports that cycle once',
  { timeout: 60_000 },
  () => {
    const n = 20000;
    const ref = (i: number): string => `r${String(i).padStart(6, '0')}`;
    const result = analyseGraph(
      Array.from({ length: n }, (_, i) => ({ ref: ref(i), targets: [ref(i === 0 ? 1 : i - 1)] })),
    );
    assert.deepEqual(result.cycles, [[ref(0), ref(1), ref(0)]]);
    assert.equal(result.order.length, n);
  },
);
