// docs/selector.md, "The algebra": satisfiable, overlap, subsumes, equivalent and the canonical form, with the absent-key
// traps of docs/selector.md, "The model". Every witness and counterexample is also checked against the interpreter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EVERYTHING,
  NOTHING,
  canonicalForm,
  equivalent,
  labelsFrom,
  matches,
  overlap,
  parseSelector,
  satisfiable,
  subsumes,
} from '../../src/selector/index.js';
import type { Requirement, Selector } from '../../src/selector/index.js';
import { plain } from './helpers.js';

const s = (text: string): Selector => parseSelector(text, { profile: 'none' });

interface OverlapCase {
  name: string;
  a: string;
  b: string;
  /** The witness, or the key the proof names. */
  witness?: Record<string, string>;
  key?: string;
}

const overlaps: OverlapCase[] = [
  {
    name: 'algebra: tier!=frontend and !tier overlap with witness {}',
    a: 'tier!=frontend',
    b: '!tier',
    witness: {},
  },
  {
    name: 'algebra: two equalities on different keys',
    a: 'a=1',
    b: 'b=2',
    witness: { a: '1', b: '2' },
  },
  { name: 'algebra: same key, same value', a: 'a=1', b: 'a in (1,2)', witness: { a: '1' } },
  {
    name: 'algebra: sets intersect: smallest common value',
    a: 'a in (3,2,1)',
    b: 'a in (2,3)',
    witness: { a: '2' },
  },
  {
    name: 'algebra: same key, different values: disjoint',
    a: 'role=ldap',
    b: 'role=proxy',
    key: 'role',
  },
  {
    name: 'algebra: = and != on the same value: disjoint',
    a: 'tier=a',
    b: 'tier notin (a)',
    key: 'tier',
  },
  { name: 'algebra: Exists and DoesNotExist: disjoint', a: 'x', b: '!x', key: 'x' },
  { name: 'algebra: In and DoesNotExist: disjoint', a: 'x in (a,b)', b: 'a,!x', key: 'x' },
  {
    name: 'algebra: In minus NotIn leaves a value',
    a: 'x in (a,b)',
    b: 'x notin (a)',
    witness: { x: 'b' },
  },
  { name: 'algebra: In covered by NotIn: disjoint', a: 'x in (a,b)', b: 'x notin (b,a)', key: 'x' },
  {
    name: 'algebra: Exists and NotIn: a fresh value',
    a: 'x',
    b: 'x notin (v,v1)',
    witness: { x: 'v2' },
  },
  { name: 'algebra: NotIn and NotIn: absent works', a: 'x!=a', b: 'x!=b', witness: {} },
  {
    name: 'algebra: DoesNotExist and NotIn overlap when absent',
    a: '!x',
    b: 'x notin (a)',
    witness: {},
  },
  { name: 'algebra: the empty value is a value', a: 'x=', b: 'x', witness: { x: '' } },
  { name: 'algebra: x in () and x!= are disjoint', a: 'x in ()', b: 'x!=', key: 'x' },
  {
    name: 'algebra: Everything overlaps anything satisfiable',
    a: '',
    b: 'a,b!=1',
    witness: { a: 'v' },
  },
  { name: 'algebra: a selector contradicting itself', a: 'a=1,a=2', b: 'b', key: 'a' },
  {
    name: 'algebra: anchord docs: the three anchords are pairwise disjoint',
    a: 'anchord.role=ldap-outpost',
    b: 'anchord.role=frigate-proxy',
    key: 'anchord.role',
  },
  {
    name: 'algebra: the first conflicting key (sorted) is named',
    a: 'b=1,a=1',
    b: 'b=2,a=2',
    key: 'a',
  },
];

for (const c of overlaps) {
  test(c.name, () => {
    const a = s(c.a);
    const b = s(c.b);
    const result = overlap(a, b);
    const reverse = overlap(b, a);
    assert.equal(reverse.overlap, result.overlap, 'overlap is symmetric');
    if (c.witness !== undefined) {
      assert.ok(result.overlap, JSON.stringify(result));
      assert.deepEqual(plain(result.witness), c.witness);
      assert.ok(matches(a, result.witness) && matches(b, result.witness));
      return;
    }
    assert.ok(!result.overlap);
    assert.equal(result.proof.key, c.key);
    // The proof names the requirements on that key from each side, with their positions.
    for (const req of [...result.proof.a, ...result.proof.b]) assert.equal(req.key, c.key);
    assert.ok(result.proof.a.length + result.proof.b.length > 0);
    const inA: readonly Requirement[] = a.requirements;
    const inB: readonly Requirement[] = b.requirements;
    for (const req of result.proof.a) assert.ok(inA.includes(req));
    for (const req of result.proof.b) assert.ok(inB.includes(req));
    assert.ok(result.proof.reason.includes(JSON.stringify(c.key)), result.proof.reason);
  });
}

test('algebra: proofs carry source positions and readable reasons', () => {
  const a = parseSelector('app=web, role=ldap');
  const b = parseSelector('role in (proxy,web)');
  const result = overlap(a, b);
  assert.ok(!result.overlap);
  assert.deepEqual(
    result.proof.a.map((r) => r.origin?.offset),
    [9],
  );
  assert.deepEqual(
    result.proof.b.map((r) => r.origin?.offset),
    [0],
  );
  assert.equal(
    result.proof.reason,
    'key "role": role=ldap and role in (proxy,web) cannot both hold',
  );
});

test('algebra: overlap with Nothing is disjoint, with no key to blame', () => {
  for (const [a, b] of [
    [NOTHING, EVERYTHING],
    [EVERYTHING, NOTHING],
  ] as const) {
    const result = overlap(a, b);
    assert.ok(!result.overlap);
    assert.equal(result.proof.key, undefined);
    assert.match(result.proof.reason, /Nothing/);
  }
});

test('algebra: satisfiable gives the smallest deterministic witness', () => {
  const cases: [string, Record<string, string>][] = [
    ['', {}],
    ['a', { a: 'v' }],
    ['a,a notin (v,v1,v3)', { a: 'v2' }],
    ['a in (z,b,m)', { b: undefined as unknown as string, a: 'b' }],
    ['!a,b!=1', {}],
    ['a in (x,y),a!=x', { a: 'y' }],
  ];
  for (const [text, witness] of cases) {
    const result = satisfiable(s(text));
    assert.ok(result.satisfiable, text);
    const want = Object.fromEntries(Object.entries(witness).filter(([, v]) => v !== undefined));
    assert.deepEqual(plain(result.witness), want, text);
    assert.ok(matches(s(text), result.witness));
    // Deterministic: same answer twice.
    assert.deepEqual(plain((satisfiable(s(text)) as { witness: object }).witness as never), want);
  }
});

test('algebra: unsatisfiable selectors come with a proof naming the key', () => {
  for (const [text, key] of [
    ['a=1,a=2', 'a'],
    ['a,!a', 'a'],
    ['a in (1,2),a notin (1,2)', 'a'],
    ['b,x=,x!=', 'x'],
  ] as const) {
    const result = satisfiable(s(text));
    assert.ok(!result.satisfiable, text);
    assert.equal(result.proof.key, key);
    assert.ok(result.proof.a.length >= 2);
    assert.deepEqual(result.proof.b, []);
  }
  const nothing = satisfiable(NOTHING);
  assert.ok(!nothing.satisfiable && nothing.proof.key === undefined);
});

interface SubsumesCase {
  name: string;
  a: string;
  b: string;
  /** undefined: subsumes; otherwise the counterexample. */
  counterexample?: Record<string, string>;
}

const subsumptions: SubsumesCase[] = [
  {
    name: 'algebra: env notin (x) does not subsume env (env=x)',
    a: 'env notin (x)',
    b: 'env',
    counterexample: { env: 'x' },
  },
  {
    name: 'algebra: env does not subsume env notin (x) (absent env)',
    a: 'env',
    b: 'env notin (x)',
    counterexample: {},
  },
  { name: 'algebra: env subsumes env,env notin (x)', a: 'env', b: 'env,env notin (x)' },
  { name: 'algebra: wider set subsumes narrower', a: 'a in (1,2,3)', b: 'a in (1,2)' },
  {
    name: 'algebra: narrower set does not subsume wider',
    a: 'a in (1,2)',
    b: 'a in (1,2,3)',
    counterexample: { a: '3' },
  },
  { name: 'algebra: fewer requirements subsume more', a: 'a=1', b: 'a=1,b=2' },
  { name: 'algebra: Exists subsumes In', a: 'a', b: 'a=1' },
  { name: 'algebra: NotIn subsumes a disjoint In', a: 'a!=1', b: 'a=2' },
  { name: 'algebra: NotIn subsumes DoesNotExist', a: 'a notin (1,2)', b: '!a' },
  {
    name: 'algebra: DoesNotExist does not subsume NotIn',
    a: '!a',
    b: 'a notin (1,2)',
    counterexample: { a: 'v' },
  },
  { name: 'algebra: bigger exclusion subsumed by smaller one', a: 'a!=1', b: 'a notin (1,2)' },
  {
    name: 'algebra: smaller exclusion does not subsume bigger',
    a: 'a notin (1,2)',
    b: 'a!=1',
    counterexample: { a: '2' },
  },
  { name: 'algebra: Everything subsumes anything', a: '', b: 'a,b!=1' },
  {
    name: 'algebra: anything non-trivial does not subsume Everything',
    a: 'a!=1',
    b: '',
    counterexample: { a: '1' },
  },
  { name: 'algebra: anything subsumes an unsatisfiable selector', a: 'z=1', b: 'a=1,a=2' },
  {
    name: 'algebra: an unsatisfiable selector subsumes nothing satisfiable',
    a: 'a=1,a=2',
    b: 'b',
    counterexample: { b: 'v' },
  },
  {
    name: 'algebra: the counterexample keeps b satisfied on other keys',
    a: 'c',
    b: 'a=1,b in (x,y)',
    counterexample: { a: '1', b: 'x' },
  },
];

for (const c of subsumptions) {
  test(c.name, () => {
    const a = s(c.a);
    const b = s(c.b);
    const result = subsumes(a, b);
    if (c.counterexample === undefined) {
      assert.ok(result.subsumes, JSON.stringify(result));
      return;
    }
    assert.ok(!result.subsumes);
    assert.deepEqual(plain(result.counterexample), c.counterexample);
    assert.ok(matches(b, result.counterexample), 'B matches the counterexample');
    assert.ok(!matches(a, result.counterexample), 'A does not');
  });
}

test('algebra: subsumes with Nothing', () => {
  assert.deepEqual(subsumes(EVERYTHING, NOTHING), { subsumes: true });
  assert.deepEqual(subsumes(NOTHING, NOTHING), { subsumes: true });
  const result = subsumes(NOTHING, EVERYTHING);
  assert.ok(!result.subsumes);
  assert.deepEqual(plain(result.counterexample), {});
});

const equivalences: [string, string, boolean][] = [
  ['a in (1,2),a in (2,3)', 'a=2', true],
  ['a,a!=1', 'a,a notin (1)', true],
  ['a!=1,a!=2', 'a notin (1,2)', true],
  ['a in (1,2),a!=1', 'a=2', true],
  ['a,a=1', 'a=1', true],
  ['!a,a!=1', '!a', true],
  ['a=1,a=2', 'b,!b', true],
  ['a in (x,y)', 'a in (y,x,x)', true],
  ['a', 'a!=', false],
  ['a!=1', 'a,a!=1', false],
  ['', 'a notin ()', false],
  ['x=', 'x', false],
];

for (const [a, b, want] of equivalences) {
  test(`algebra: equivalent(${JSON.stringify(a)}, ${JSON.stringify(b)}) is ${want}`, () => {
    assert.equal(equivalent(s(a), s(b)), want);
    assert.equal(equivalent(s(b), s(a)), want);
  });
}

test('docs/selector.md, "Kubernetes selector strings"/docs/selector.md, "The algebra" canonical form: per key merged, keys sorted, unsatisfiable as <nothing>', () => {
  assert.equal(
    canonicalForm(s('c!=1,a,a notin (x),b in (1,2),b in (2,3),c!=2')),
    'a,a!=x,b=2,c notin (1,2)',
  );
  assert.equal(canonicalForm(s('a=1,a=2')), '<nothing>');
  assert.equal(canonicalForm(NOTHING), '<nothing>');
  assert.equal(canonicalForm(EVERYTHING), '');
  assert.equal(canonicalForm(s('a notin ()')), 'a notin ()');
  // The canonical form parses back to an equivalent selector with the same canonical form.
  const text = canonicalForm(s('z,z notin (q),!y,x in (b,a),x!=a'));
  assert.equal(canonicalForm(s(text)), text);
  assert.ok(equivalent(s(text), s('z,z notin (q),!y,x in (b,a),x!=a')));
});

test('algebra: witnesses use values valid under every profile', () => {
  const result = satisfiable(parseSelector('app,app notin (v)'));
  assert.ok(result.satisfiable);
  assert.equal(result.witness.app, 'v1');
  assert.ok(matches(parseSelector('app=v1'), labelsFrom({ app: result.witness.app! })));
});
