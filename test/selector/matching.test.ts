// docs/selector.md, "The model" (the absent-key table), docs/selector.md, "Validation profiles" (validation profiles) and docs/selector.md, "Matching semantics" (compile, explain), plus the
// hostile keys __proto__ / constructor / toString on every path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EVERYTHING,
  LabelIndex,
  NOTHING,
  SelectorIndex,
  compile,
  explain,
  labelsFrom,
  matches,
  parseEqualityList,
  parseLabelJson,
  parseLabelList,
  parseSelector,
  requirement,
  selectorOf,
  validateLabels,
  validateSelector,
} from '../../src/selector/index.js';
import type { Labels, Operator, Selector } from '../../src/selector/index.js';
import { LabelwiseError } from '../../src/base/errors.js';
import { expectError, plain } from './helpers.js';

/** Every matcher the toolkit offers must agree: interpreter, compiled predicate, explain, indexes. */
function allAgree(selector: Selector, labels: Labels): boolean {
  const interpreted = matches(selector, labels);
  assert.equal(compile(selector)(labels), interpreted, 'compile');
  assert.equal(explain(selector, labels).matched, interpreted, 'explain');
  const selectors = new SelectorIndex<string>();
  selectors.add('s', selector);
  assert.deepEqual(selectors.match(labels), interpreted ? ['s'] : [], 'SelectorIndex');
  const sets = new LabelIndex<string>();
  sets.add('l', labels);
  assert.deepEqual(sets.select(selector), interpreted ? ['l'] : [], 'LabelIndex');
  return interpreted;
}

// docs/selector.md, "The model" table: operator × (present with a value in S, present outside S, present with "", absent).
const table: { op: Operator; values: string[]; labels: Record<string, string>; want: boolean }[] = [
  { op: 'In', values: ['a', 'b'], labels: { k: 'a' }, want: true },
  { op: 'In', values: ['a', 'b'], labels: { k: 'c' }, want: false },
  { op: 'In', values: ['a', 'b'], labels: { k: '' }, want: false },
  { op: 'In', values: [''], labels: { k: '' }, want: true },
  { op: 'In', values: ['a', 'b'], labels: {}, want: false },
  { op: 'In', values: [''], labels: {}, want: false },
  { op: 'NotIn', values: ['a', 'b'], labels: { k: 'a' }, want: false },
  { op: 'NotIn', values: ['a', 'b'], labels: { k: 'c' }, want: true },
  { op: 'NotIn', values: ['a', 'b'], labels: { k: '' }, want: true },
  { op: 'NotIn', values: [''], labels: { k: '' }, want: false },
  { op: 'NotIn', values: ['a', 'b'], labels: {}, want: true },
  { op: 'NotIn', values: [''], labels: {}, want: true },
  { op: 'Exists', values: [], labels: { k: 'a' }, want: true },
  { op: 'Exists', values: [], labels: { k: '' }, want: true },
  { op: 'Exists', values: [], labels: {}, want: false },
  { op: 'Exists', values: [], labels: { other: 'k' }, want: false },
  { op: 'DoesNotExist', values: [], labels: { k: 'a' }, want: false },
  { op: 'DoesNotExist', values: [], labels: { k: '' }, want: false },
  { op: 'DoesNotExist', values: [], labels: {}, want: true },
];

for (const row of table) {
  test(`model: ${row.op} (${row.values.map((v) => JSON.stringify(v)).join(',')}) on ${JSON.stringify(row.labels)} is ${row.want}`, () => {
    const selector = selectorOf([requirement('k', row.op, row.values)]);
    assert.equal(allAgree(selector, labelsFrom(row.labels)), row.want);
  });
}

const stringCases: {
  name: string;
  selector: string;
  labels: Record<string, string>;
  want: boolean;
}[] = [
  {
    name: 'model: tier!=frontend holds when tier is absent',
    selector: 'tier!=frontend',
    labels: {},
    want: true,
  },
  { name: 'model: !tier holds when tier is absent', selector: '!tier', labels: {}, want: true },
  {
    name: 'model: env notin (x) holds when env is absent',
    selector: 'env notin (x)',
    labels: {},
    want: true,
  },
  {
    name: 'model: compare is case-sensitive',
    selector: 'app=Web',
    labels: { app: 'web' },
    want: false,
  },
  {
    name: 'model: compare is exact (no trimming)',
    selector: 'app=web',
    labels: { app: 'web ' },
    want: false,
  },
  {
    name: 'model: compare is exact (no prefix match)',
    selector: 'app=we',
    labels: { app: 'web' },
    want: false,
  },
  {
    name: 'model: x, x notin (a): present and not a',
    selector: 'x,x notin (a)',
    labels: { x: 'b' },
    want: true,
  },
  {
    name: 'model: x, x notin (a): absent fails',
    selector: 'x,x notin (a)',
    labels: {},
    want: false,
  },
  {
    name: 'model: x, x notin (a): a fails',
    selector: 'x,x notin (a)',
    labels: { x: 'a' },
    want: false,
  },
  {
    name: 'model: contradiction a=1,a=2 matches nothing',
    selector: 'a=1,a=2',
    labels: { a: '1' },
    want: false,
  },
  {
    name: 'model: AND of all requirements',
    selector: 'a=1,b=2',
    labels: { a: '1', b: '3' },
    want: false,
  },
  { name: 'model: Everything matches the empty set', selector: '', labels: {}, want: true },
  {
    name: 'model: extra labels do not matter',
    selector: 'a=1',
    labels: { a: '1', b: '2', c: '3' },
    want: true,
  },
  {
    name: 'matching: large sets (compiled to a Set) match',
    selector: 'a in (v1,v2,v3,v4,v5,v6,v7)',
    labels: { a: 'v6' },
    want: true,
  },
  {
    name: 'matching: large notin sets (compiled to a Set)',
    selector: 'a notin (v1,v2,v3,v4,v5,v6,v7)',
    labels: { a: 'v6' },
    want: false,
  },
];

for (const c of stringCases) {
  test(c.name, () => {
    assert.equal(allAgree(parseSelector(c.selector), labelsFrom(c.labels)), c.want);
  });
}

test('model: Nothing matches no label set, Everything every one', () => {
  const sets: Record<string, string>[] = [{}, { a: '' }, { a: '1', b: '2' }];
  for (const labels of sets) {
    assert.equal(allAgree(NOTHING, labelsFrom(labels)), false);
    assert.equal(allAgree(EVERYTHING, labelsFrom(labels)), true);
  }
});

// Hostile keys: __proto__, constructor and toString, as labels and as selector keys, on plain
// objects and on prototype-free ones.
const hostile = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
for (const key of hostile) {
  test(`model: hostile key ${key}: absent on a plain object, present when set`, () => {
    for (const op of ['Exists', 'DoesNotExist', 'In', 'NotIn'] as const) {
      const values = op === 'In' || op === 'NotIn' ? ['x'] : [];
      const selector = selectorOf([requirement(key, op, values)]);
      // A plain {} inherits `constructor`, `toString`… which must count as absent.
      const absent = op === 'DoesNotExist' || op === 'NotIn';
      assert.equal(allAgree(selector, {}), absent, `${op} on {}`);
      assert.equal(allAgree(selector, labelsFrom({})), absent, `${op} on labelsFrom({})`);
      const present = labelsFrom([[key, 'x']]);
      assert.equal(Object.keys(present).length, 1);
      assert.equal(
        allAgree(selector, present),
        op === 'Exists' || op === 'In',
        `${op} on {${key}: x}`,
      );
    }
  });
}

test('model: hostile keys through the parsers and label readers', () => {
  const selector = parseEqualityList('__proto__=x,constructor=y,toString=z');
  assert.equal(selector.requirements.length, 3);
  const labels = parseLabelList('__proto__=x,constructor=y,toString=z');
  assert.deepEqual(Object.keys(labels).sort(), ['__proto__', 'constructor', 'toString']);
  assert.equal(Object.getPrototypeOf(labels), null);
  assert.equal(allAgree(selector, labels), true);
  const fromJson = parseLabelJson('{"__proto__":"x","constructor":"y","toString":"z"}');
  assert.equal(Object.getPrototypeOf(fromJson), null);
  assert.equal(allAgree(selector, fromJson), true);
  assert.deepEqual(plain(fromJson), plain(labels));
  // Prototype pollution never happens.
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

test('model: labelsFrom builds prototype-free sets, later entries win', () => {
  const labels = labelsFrom([
    ['a', '1'],
    ['a', '2'],
  ]);
  assert.equal(Object.getPrototypeOf(labels), null);
  assert.equal(labels.a, '2');
  const fromObject = labelsFrom({ b: '3' });
  assert.equal(Object.getPrototypeOf(fromObject), null);
  assert.equal(fromObject.b, '3');
});

test('matching: matching never throws on odd label sets', () => {
  const selector = parseSelector('a,b!=1,!c,d in (x,y,z,w,v,u)');
  const odd = [
    Object.create(null) as Labels,
    { a: 1, b: null, c: undefined } as unknown as Labels,
    { a: { toString: () => 'x' } } as unknown as Labels,
  ];
  for (const labels of odd) {
    assert.doesNotThrow(() => allAgree(selector, labels));
  }
  // Non-string values count as absent.
  assert.equal(matches(parseSelector('!a'), { a: 1 } as unknown as Labels), true);
});

test('matching: compile gives the shared predicates for Nothing and Everything', () => {
  assert.equal(compile(NOTHING)({}), false);
  assert.equal(compile(EVERYTHING)({}), true);
});

test('matching: compile embeds keys and values safely (quotes, backslashes, newlines, U+2028)', () => {
  const nasty = ['"', '\\', '\n', '\u2028', '`${x}`', "'); throw 1; ('", '</script>'];
  for (const text of nasty) {
    const selector = selectorOf([
      requirement(text, 'In', [text]),
      requirement(`${text}2`, 'DoesNotExist'),
    ]);
    const predicate = compile(selector);
    assert.equal(predicate(labelsFrom([[text, text]])), true);
    assert.equal(predicate(labelsFrom([[text, 'other']])), false);
  }
});

test('matching: explain: every requirement in order, with ok and the actual value', () => {
  const selector = parseSelector('tier in (api,web),!canary,env!=dev,region');
  const result = explain(selector, labelsFrom({ tier: 'web', canary: '', env: 'prod' }));
  assert.equal(result.matched, false);
  assert.deepEqual(
    result.terms.map((t) => ({ requirement: t.requirement, ok: t.ok, actual: t.actual })),
    [
      { requirement: '!canary', ok: false, actual: '' },
      { requirement: 'env!=dev', ok: true, actual: 'prod' },
      { requirement: 'region', ok: false, actual: null },
      { requirement: 'tier in (api,web)', ok: true, actual: 'web' },
    ],
  );
  assert.equal(result.terms[0]?.source, selector.requirements[0]);
});

test('matching: explain of Nothing says why it matched nothing', () => {
  const result = explain(NOTHING, labelsFrom({}));
  assert.equal(result.matched, false);
  assert.deepEqual(result.terms, []);
  assert.ok(result.note !== undefined && /Nothing/.test(result.note));
  assert.deepEqual(explain(EVERYTHING, labelsFrom({})), { matched: true, terms: [] });
});

// docs/selector.md, "Validation profiles" validation profiles on label sets.
const labelProfiles: {
  name: string;
  profile: 'kubernetes' | 'datum' | 'docker';
  labels: Record<string, string>;
  codes: string[];
}[] = [
  {
    name: 'validation: kubernetes: valid keys and values',
    profile: 'kubernetes',
    labels: { app: 'web', 'example.com/tier': '', 'a.b-c_d': 'X.y-z_9' },
    codes: [],
  },
  {
    name: 'validation: kubernetes: bad key, bad value',
    profile: 'kubernetes',
    labels: { 'Bad.Com/x': 'v', ok: 'has space' },
    codes: ['SELECTOR_INVALID_LABEL_KEY', 'SELECTOR_INVALID_LABEL_VALUE'],
  },
  {
    name: 'validation: kubernetes: a bad key does not hide a bad value ({"-k": "-v"} is two errors)',
    profile: 'kubernetes',
    labels: { '-k': '-v' },
    codes: ['SELECTOR_INVALID_LABEL_KEY', 'SELECTOR_INVALID_LABEL_VALUE'],
  },
  {
    name: 'validation: kubernetes: each rule a key breaks is its own error (too long and a bad character)',
    profile: 'kubernetes',
    labels: { [`${'a'.repeat(64)}^`]: 'v' },
    codes: ['SELECTOR_INVALID_LABEL_KEY', 'SELECTOR_INVALID_LABEL_KEY'],
  },
  {
    name: 'validation: kubernetes: limits count UTF-8 bytes, as Go does (32 × é is 64 bytes)',
    profile: 'kubernetes',
    labels: { a: 'é'.repeat(32) },
    codes: ['SELECTOR_INVALID_LABEL_VALUE', 'SELECTOR_INVALID_LABEL_VALUE'],
  },
  {
    name: 'validation: datum: a reserved key does not hide a bad value',
    profile: 'datum',
    labels: { 'datum/site': '' },
    codes: ['SELECTOR_RESERVED_LABEL', 'SELECTOR_INVALID_LABEL_VALUE'],
  },
  {
    name: 'validation: kubernetes: 64-character value',
    profile: 'kubernetes',
    labels: { a: 'v'.repeat(64) },
    codes: ['SELECTOR_INVALID_LABEL_VALUE'],
  },
  {
    name: 'validation: datum: seed host labels are valid',
    profile: 'datum',
    labels: { environment: 'production', site: 'london', role: 'web', architecture: 'amd64' },
    codes: [],
  },
  {
    name: 'validation: datum: + allowed, one / allowed',
    profile: 'datum',
    labels: { 'team/owner': 'a+b', 'x.y': 'Z' },
    codes: [],
  },
  {
    name: 'validation: datum: empty values are refused',
    profile: 'datum',
    labels: { role: '' },
    codes: ['SELECTOR_INVALID_LABEL_VALUE'],
  },
  {
    name: 'validation: datum: a Host may not set datum/ labels, not even datum/host',
    profile: 'datum',
    labels: { 'datum/host': 'web-001', 'datum/site': 'x' },
    codes: ['SELECTOR_RESERVED_LABEL', 'SELECTOR_RESERVED_LABEL'],
  },
  {
    name: 'validation: datum: two slashes, spaces',
    profile: 'datum',
    labels: { 'a/b/c': 'x', 'a b': 'x' },
    codes: ['SELECTOR_INVALID_LABEL_KEY', 'SELECTOR_INVALID_LABEL_KEY'],
  },
  {
    name: 'validation: docker: anything but the empty key',
    profile: 'docker',
    labels: { 'com.docker.compose.project': 'ix-authentik', 'Any Key/x=y': '', '': 'x' },
    codes: ['SELECTOR_INVALID_LABEL_KEY'],
  },
  {
    name: 'validation: hostile keys are validated like any other',
    profile: 'kubernetes',
    labels: Object.fromEntries([
      ['__proto__', 'x'],
      ['constructor', 'y'],
    ]) as Record<string, string>,
    codes: ['SELECTOR_INVALID_LABEL_KEY'],
  },
];

for (const c of labelProfiles) {
  test(c.name, () => {
    const labels = labelsFrom(Object.entries(c.labels));
    const errors = validateLabels(labels, c.profile);
    assert.ok(errors.every((e) => e instanceof LabelwiseError));
    assert.deepEqual(
      errors.map((e) => e.code),
      c.codes,
    );
    for (const error of errors) assert.ok(error.source.label !== undefined);
  });
}

test('validation: validateLabels reports every problem in key order, with the label', () => {
  const errors = validateLabels(labelsFrom({ 'z z': '1', 'a a': '2' }), 'kubernetes');
  assert.deepEqual(
    errors.map((e) => e.source.label),
    ['a a', 'z z'],
  );
});

test('validation: validateLabels carries the path it is given', () => {
  const errors = validateLabels(labelsFrom({ '-k': 'ok' }), 'kubernetes', {
    path: 'metadata.labels',
  });
  assert.deepEqual(
    errors.map((e) => [e.source.label, e.source.path]),
    [['-k', 'metadata.labels']],
  );
});

test('validation: validateSelector returns every problem with the origin', () => {
  const selector = parseSelector('A:=1,b=-x,datum/site=z', { profile: 'none' });
  const kubernetes = validateSelector(selector, 'kubernetes');
  assert.deepEqual(
    kubernetes.map((e) => [e.code, e.source.offset]),
    [
      ['SELECTOR_INVALID_KEY', 0],
      ['SELECTOR_INVALID_VALUE', 5],
    ],
  );
  const datum = validateSelector(selector, 'datum');
  assert.deepEqual(
    datum.map((e) => e.code),
    ['SELECTOR_INVALID_KEY', 'SELECTOR_RESERVED_LABEL'],
  );
  assert.deepEqual(validateSelector(selector, 'docker'), []);
});

test('model: requirement() checks arity and copies its values', () => {
  expectError(() => requirement('a', 'In', []), { code: 'SELECTOR_INVALID_REQUIREMENT' });
  expectError(() => requirement('a', 'NotIn'), { code: 'SELECTOR_INVALID_REQUIREMENT' });
  expectError(() => requirement('a', 'Exists', ['x']), { code: 'SELECTOR_INVALID_REQUIREMENT' });
  expectError(() => requirement('a', 'DoesNotExist', ['']), {
    code: 'SELECTOR_INVALID_REQUIREMENT',
  });
  expectError(() => requirement('a', 'Gt' as Operator, ['1']), {
    code: 'SELECTOR_INVALID_OPERATOR',
  });
  const values = ['b', 'a', 'b'];
  const req = requirement('k', 'In', values);
  assert.deepEqual(req.values, ['a', 'b']);
  assert.deepEqual(values, ['b', 'a', 'b']);
  assert.ok(Object.isFrozen(req) && Object.isFrozen(req.values));
});

test('model: selectorOf sorts by key, stable, and gives EVERYTHING for no requirements', () => {
  assert.equal(selectorOf([]), EVERYTHING);
  const selector = selectorOf([
    requirement('b', 'In', ['2']),
    requirement('a', 'Exists'),
    requirement('b', 'In', ['1']),
  ]);
  assert.deepEqual(
    selector.requirements.map((r) => `${r.key}${r.values.join('')}`),
    ['a', 'b2', 'b1'],
  );
});
