// docs/selector.md, "Kubernetes LabelSelector objects": Kubernetes LabelSelector objects (null vs {}, operators, arity, round trip).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EVERYTHING,
  NOTHING,
  formatSelector,
  fromLabelSelector,
  labelsFrom,
  matches,
  parseSelector,
  toLabelSelector,
} from '../../src/selector/index.js';
import type { LabelSelectorOptions } from '../../src/selector/index.js';
import { checkError, rows } from './helpers.js';
import type { WantError } from './helpers.js';

interface ObjectCase {
  name: string;
  object: unknown;
  options?: LabelSelectorOptions;
  model?: ReturnType<typeof rows>;
  errors?: WantError[];
}

const cases: ObjectCase[] = [
  { name: 'LabelSelector: null is Nothing', object: null, model: 'nothing' },
  { name: 'LabelSelector: absent (undefined) is Nothing', object: undefined, model: 'nothing' },
  { name: 'LabelSelector: {} is Everything', object: {}, model: 'everything' },
  {
    name: 'LabelSelector: empty matchLabels is Everything',
    object: { matchLabels: {} },
    model: 'everything',
  },
  {
    name: 'LabelSelector: null fields are Everything',
    object: { matchLabels: null, matchExpressions: null },
    model: 'everything',
  },
  {
    name: 'LabelSelector: matchLabels → In',
    object: { matchLabels: { app: 'web', tier: '' } },
    model: [
      ['app', 'In', ['web']],
      ['tier', 'In', ['']],
    ],
  },
  {
    name: 'LabelSelector: every operator',
    object: {
      matchExpressions: [
        { key: 'a', operator: 'In', values: ['x', 'y'] },
        { key: 'b', operator: 'NotIn', values: ['z'] },
        { key: 'c', operator: 'Exists' },
        { key: 'd', operator: 'DoesNotExist', values: [] },
      ],
    },
    model: [
      ['a', 'In', ['x', 'y']],
      ['b', 'NotIn', ['z']],
      ['c', 'Exists', []],
      ['d', 'DoesNotExist', []],
    ],
  },
  {
    name: 'LabelSelector: [""] is a legal value list',
    object: { matchExpressions: [{ key: 'a', operator: 'In', values: [''] }] },
    model: [['a', 'In', ['']]],
  },
  {
    name: 'LabelSelector: matchLabels and matchExpressions are ANDed',
    object: {
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['api'] }],
    },
    model: [
      ['app', 'In', ['web']],
      ['app', 'NotIn', ['api']],
    ],
  },
  {
    name: 'LabelSelector: operators are case-sensitive: in',
    object: { matchExpressions: [{ key: 'a', operator: 'in', values: ['x'] }] },
    errors: [
      {
        code: 'SELECTOR_INVALID_LABEL_SELECTOR',
        path: 'matchExpressions[0].operator',
        message: 'unknown operator "in", expected one of In, NotIn, Exists, DoesNotExist',
      },
    ],
  },
  {
    name: 'LabelSelector: operators are case-sensitive: EXISTS',
    object: { matchExpressions: [{ key: 'a', operator: 'EXISTS' }] },
    errors: [{ code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'matchExpressions[0].operator' }],
  },
  {
    name: 'LabelSelector: Gt is not an operator here',
    object: { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
    errors: [{ code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'matchExpressions[0].operator' }],
  },
  {
    name: 'LabelSelector: missing operator',
    object: { matchExpressions: [{ key: 'a' }] },
    errors: [{ code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'matchExpressions[0].operator' }],
  },
  {
    name: 'LabelSelector: In needs at least one value',
    object: { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
    errors: [{ code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'matchExpressions[0].values' }],
  },
  {
    name: 'LabelSelector: NotIn needs at least one value (values absent)',
    object: { matchExpressions: [{ key: 'a', operator: 'NotIn' }] },
    errors: [{ code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'matchExpressions[0].values' }],
  },
  {
    name: 'LabelSelector: Exists takes no values',
    object: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
    errors: [{ code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'matchExpressions[0].values' }],
  },
  {
    name: 'LabelSelector: DoesNotExist takes no values',
    object: { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: [''] }] },
    errors: [{ code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'matchExpressions[0].values' }],
  },
  {
    name: 'LabelSelector: values must be strings',
    object: { matchExpressions: [{ key: 'a', operator: 'In', values: [1] }] },
    errors: [{ code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'matchExpressions[0].values[0]' }],
  },
  {
    name: 'LabelSelector: values must be a list',
    object: { matchExpressions: [{ key: 'a', operator: 'In', values: 'x' }] },
    errors: [{ code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'matchExpressions[0].values' }],
  },
  {
    name: 'LabelSelector: a bad key and a bad value are both reported (apimachinery paths)',
    object: { matchExpressions: [{ key: '-key', operator: 'In', values: ['-value'] }] },
    errors: [
      { code: 'SELECTOR_INVALID_KEY', path: 'matchExpressions[0].key' },
      { code: 'SELECTOR_INVALID_VALUE', path: 'matchExpressions[0].values[0]' },
    ],
  },
  {
    name: 'LabelSelector: a bad operator does not hide a bad key',
    object: { matchExpressions: [{ key: '-key', operator: 'abc' }] },
    errors: [
      { code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'matchExpressions[0].operator' },
      { code: 'SELECTOR_INVALID_KEY', path: 'matchExpressions[0].key' },
    ],
  },
  {
    name: 'LabelSelector: an arity error does not hide bad values',
    object: { matchExpressions: [{ key: 'k', operator: 'Exists', values: ['-v'] }] },
    errors: [
      { code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'matchExpressions[0].values' },
      { code: 'SELECTOR_INVALID_VALUE', path: 'matchExpressions[0].values[0]' },
    ],
  },
  {
    name: 'LabelSelector: matchLabels values must be strings',
    object: { matchLabels: { a: 1 } },
    errors: [{ code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'matchLabels.a' }],
  },
  {
    name: 'LabelSelector: unknown fields are errors',
    object: {
      matchLabel: { a: 'x' },
      matchExpressions: [{ key: 'a', operator: 'Exists', value: 1 }],
    },
    errors: [
      { code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'matchLabel' },
      { code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'matchExpressions[0].value' },
    ],
  },
  {
    name: 'LabelSelector: the selector must be a mapping',
    object: 'app=web',
    errors: [{ code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: '' }],
  },
  {
    name: 'LabelSelector: matchExpressions must be a list',
    object: { matchExpressions: { key: 'a' } },
    errors: [{ code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'matchExpressions' }],
  },
  {
    name: 'LabelSelector: every problem is reported, with the base path',
    object: {
      matchExpressions: [
        { key: 'a', operator: 'in', values: ['x'] },
        { key: 7, operator: 'Exists' },
      ],
    },
    options: { path: 'spec.selector' },
    errors: [
      {
        code: 'SELECTOR_INVALID_LABEL_SELECTOR',
        path: 'spec.selector.matchExpressions[0].operator',
      },
      { code: 'SELECTOR_INVALID_LABEL_SELECTOR', path: 'spec.selector.matchExpressions[1].key' },
    ],
  },
  {
    name: 'validation: kubernetes profile by default: bad key',
    object: { matchLabels: { 'bad key': 'x' } },
    errors: [{ code: 'SELECTOR_INVALID_KEY', path: 'matchLabels.bad key' }],
  },
  {
    name: 'validation: kubernetes profile by default: bad value',
    object: { matchExpressions: [{ key: 'a', operator: 'In', values: ['ok', 'not ok'] }] },
    errors: [{ code: 'SELECTOR_INVALID_VALUE', path: 'matchExpressions[0].values[1]' }],
  },
  {
    name: 'validation: profile none accepts any key',
    object: { matchLabels: { 'bad key': 'x' } },
    options: { profile: 'none' },
    model: [['bad key', 'In', ['x']]],
  },
];

for (const c of cases) {
  test(c.name, () => {
    const result = fromLabelSelector(c.object, c.options);
    if (c.errors) {
      assert.equal(result.selector, undefined);
      assert.equal(result.errors.length, c.errors.length, JSON.stringify(result.errors));
      c.errors.forEach((want, i) => checkError(result.errors[i]!, want));
      return;
    }
    assert.deepEqual(result.errors, []);
    assert.deepEqual(rows(result.selector!), c.model);
  });
}

test('LabelSelector: null and {} are the distinct NOTHING and EVERYTHING constants', () => {
  assert.equal(fromLabelSelector(null).selector, NOTHING);
  assert.equal(fromLabelSelector({}).selector, EVERYTHING);
  assert.notEqual(NOTHING, EVERYTHING);
  assert.ok(Object.isFrozen(NOTHING) && Object.isFrozen(EVERYTHING));
  assert.equal(matches(NOTHING, labelsFrom({})), false);
  assert.equal(matches(EVERYTHING, labelsFrom({})), true);
  assert.equal(toLabelSelector(NOTHING), null);
  assert.deepEqual(toLabelSelector(EVERYTHING), {});
});

/** JSON view of an object, so prototype-free mappings compare equal to literals. */
function json(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

const roundTrips: { name: string; object: unknown }[] = [
  { name: 'matchLabels only', object: { matchLabels: { app: 'web', tier: 'api' } } },
  {
    name: 'expressions keep their order, even when keys are unsorted',
    object: {
      matchExpressions: [
        { key: 'z', operator: 'Exists' },
        { key: 'a', operator: 'NotIn', values: ['x', 'y'] },
        { key: 'm', operator: 'In', values: ['1'] },
        { key: 'b', operator: 'DoesNotExist' },
      ],
    },
  },
  {
    name: 'a single-value In expression stays an expression',
    object: { matchExpressions: [{ key: 'a', operator: 'In', values: ['x'] }] },
  },
  {
    name: 'both parts, same key in both',
    object: {
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'app', operator: 'In', values: ['web', 'api'].sort() },
        { key: 'app', operator: 'Exists' },
      ],
    },
  },
  { name: 'the empty value', object: { matchLabels: { a: '' } } },
  { name: '[""]', object: { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [''] }] } },
];

for (const c of roundTrips) {
  test(`LabelSelector: round trip object → model → object: ${c.name}`, () => {
    const { selector, errors } = fromLabelSelector(c.object);
    assert.deepEqual(errors, []);
    assert.deepEqual(json(toLabelSelector(selector!)), c.object);
    // And once more through the model: stable.
    const again = fromLabelSelector(json(toLabelSelector(selector!)));
    assert.equal(formatSelector(again.selector!), formatSelector(selector!));
  });
}

test('LabelSelector: round trip: value lists come back sorted and de-duplicated (a set)', () => {
  const object = { matchExpressions: [{ key: 'a', operator: 'In', values: ['y', 'x', 'y'] }] };
  assert.deepEqual(json(toLabelSelector(fromLabelSelector(object).selector!)), {
    matchExpressions: [{ key: 'a', operator: 'In', values: ['x', 'y'] }],
  });
});

test('LabelSelector: strings convert to objects: equality to matchLabels, the rest to expressions', () => {
  const object = toLabelSelector(parseSelector('app=web,app=api,tier in (a,b),!legacy,canary'));
  assert.deepEqual(json(object), {
    matchLabels: { app: 'web' },
    matchExpressions: [
      { key: 'app', operator: 'In', values: ['api'] },
      { key: 'canary', operator: 'Exists' },
      { key: 'legacy', operator: 'DoesNotExist' },
      { key: 'tier', operator: 'In', values: ['a', 'b'] },
    ],
  });
  // Same meaning after the trip.
  const back = fromLabelSelector(json(object)).selector!;
  for (const labels of [
    { app: 'api', canary: '', tier: 'a' },
    { app: 'web', canary: '', tier: 'a' },
  ]) {
    assert.equal(
      matches(back, labelsFrom(labels)),
      matches(parseSelector('app=web,app=api,tier in (a,b),!legacy,canary'), labelsFrom(labels)),
    );
  }
});

test('LabelSelector: a __proto__ label key survives the object round trip', () => {
  const object = JSON.parse('{"matchLabels": {"__proto__": "x"}}') as unknown;
  const { selector } = fromLabelSelector(object, { profile: 'docker' });
  assert.deepEqual(rows(selector!), [['__proto__', 'In', ['x']]]);
  const back = toLabelSelector(selector!)!;
  assert.equal(JSON.stringify(back), '{"matchLabels":{"__proto__":"x"}}');
});

test('LabelSelector: LabelSelector problems come back as shared diagnostics with their paths', () => {
  const result = fromLabelSelector(
    { matchExpressions: [{ key: '-key', operator: 'In', values: ['-value'] }] },
    { path: 'spec.selector' },
  );
  assert.deepEqual(
    result.diagnostics.map((d) => [d.severity, d.code, d.path, d.module]),
    [
      ['error', 'SELECTOR_INVALID_KEY', 'spec.selector.matchExpressions[0].key', 'selector'],
      [
        'error',
        'SELECTOR_INVALID_VALUE',
        'spec.selector.matchExpressions[0].values[0]',
        'selector',
      ],
    ],
  );
});
