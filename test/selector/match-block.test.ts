// docs/selector.md, "Datum match blocks": Datum match blocks, as objects and as YAML/JSON text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EVERYTHING,
  NOTHING,
  formatSelector,
  fromMatchBlock,
  labelsFrom,
  matches,
  parseSyntax,
  toMatchBlock,
} from '../../src/selector/index.js';
import type { MatchBlockOptions } from '../../src/selector/index.js';
import { checkError, expectError, rows } from './helpers.js';
import type { WantError } from './helpers.js';

interface BlockCase {
  name: string;
  block: unknown;
  options?: MatchBlockOptions;
  want?: string;
  model?: ReturnType<typeof rows>;
  errors?: WantError[];
  warnings?: WantError[];
}

const cases: BlockCase[] = [
  { name: 'match block: absent block matches everything', block: undefined, model: 'everything' },
  { name: 'match block: null block matches everything', block: null, model: 'everything' },
  { name: 'match block: empty block matches everything', block: {}, model: 'everything' },
  {
    name: 'match block: labels → In one value',
    block: { labels: { role: 'web', environment: 'production' } },
    model: [
      ['environment', 'In', ['production']],
      ['role', 'In', ['web']],
    ],
  },
  {
    name: 'match block: oneOf → In',
    block: { oneOf: { site: ['london', 'frankfurt'] } },
    model: [['site', 'In', ['frankfurt', 'london']]],
  },
  {
    name: 'match block: noneOf → NotIn',
    block: { noneOf: { tier: ['legacy'] } },
    model: [['tier', 'NotIn', ['legacy']]],
  },
  {
    name: 'match block: has → Exists',
    block: { has: ['monitoring'] },
    model: [['monitoring', 'Exists', []]],
  },
  {
    name: 'match block: missing → DoesNotExist',
    block: { missing: ['decommissioned'] },
    model: [['decommissioned', 'DoesNotExist', []]],
  },
  {
    name: 'match block: the seed example: all five forms ANDed',
    block: {
      labels: { role: 'web', environment: 'production' },
      oneOf: { site: ['london', 'frankfurt'] },
      noneOf: { tier: ['legacy'] },
      has: ['monitoring'],
      missing: ['decommissioned'],
    },
    want: '!decommissioned,environment=production,monitoring,role=web,site in (frankfurt,london),tier!=legacy',
  },
  {
    name: 'match block: empty forms are fine',
    block: { labels: {}, oneOf: {}, noneOf: {}, has: [], missing: [] },
    model: 'everything',
  },
  {
    name: 'match block: null form bodies are fine',
    block: { labels: null, oneOf: null },
    model: 'everything',
  },
  {
    name: 'match block: numbers given as JS values are printed with String',
    block: { labels: { port: 8080, on: true } },
    model: [
      ['on', 'In', ['true']],
      ['port', 'In', ['8080']],
    ],
  },
  {
    name: 'match block: datum/host may be matched',
    block: { labels: { 'datum/host': 'web-001' } },
    model: [['datum/host', 'In', ['web-001']]],
  },
  // Errors
  {
    name: 'match block: unknown form names it',
    block: { anyOf: { a: ['1'] } },
    errors: [
      {
        code: 'SELECTOR_INVALID_MATCH',
        path: 'match.anyOf',
        message: 'match has no field "anyOf"',
      },
    ],
  },
  {
    name: 'match block: forms are case-sensitive',
    block: { Labels: { a: '1' } },
    errors: [{ code: 'SELECTOR_INVALID_MATCH', message: 'match has no field "Labels"' }],
  },
  {
    name: 'match block: every problem is reported',
    block: { anyOf: {}, labels: { a: ['x'] }, has: 'monitoring' },
    errors: [
      { code: 'SELECTOR_INVALID_MATCH', path: 'match.anyOf' },
      { code: 'SELECTOR_INVALID_MATCH', path: 'match.labels.a' },
      { code: 'SELECTOR_INVALID_MATCH', path: 'match.has' },
    ],
  },
  {
    name: 'match block: the block must be a mapping',
    block: ['labels'],
    errors: [{ code: 'SELECTOR_INVALID_MATCH', path: 'match' }],
  },
  {
    name: 'match block: a scalar block is an error',
    block: 'role=web',
    errors: [{ code: 'SELECTOR_INVALID_MATCH', path: 'match' }],
  },
  {
    name: 'match block: labels must be a mapping',
    block: { labels: ['a'] },
    errors: [{ code: 'SELECTOR_INVALID_MATCH', path: 'match.labels' }],
  },
  {
    name: 'match block: oneOf values must be lists',
    block: { oneOf: { site: 'london' } },
    errors: [{ code: 'SELECTOR_INVALID_MATCH', path: 'match.oneOf.site' }],
  },
  {
    name: 'match block: noneOf lists hold scalars',
    block: { noneOf: { tier: [{ a: 1 }] } },
    errors: [{ code: 'SELECTOR_INVALID_MATCH', path: 'match.noneOf.tier' }],
  },
  {
    name: 'match block: has entries must be keys',
    block: { has: ['ok', 3, ''] },
    errors: [
      { code: 'SELECTOR_INVALID_MATCH', path: 'match.has[1]' },
      { code: 'SELECTOR_INVALID_MATCH', path: 'match.has[2]' },
    ],
  },
  {
    name: 'validation: datum profile: reserved keys other than datum/host',
    block: { labels: { 'datum/site': 'x' } },
    errors: [{ code: 'SELECTOR_RESERVED_LABEL', path: 'match.labels.datum/site' }],
  },
  {
    name: 'validation: datum profile: values are never empty',
    block: { labels: { role: '' } },
    errors: [{ code: 'SELECTOR_INVALID_VALUE', path: 'match.labels.role' }],
  },
  {
    name: 'validation: datum profile: bad key characters',
    block: { has: ['a b'] },
    errors: [{ code: 'SELECTOR_INVALID_KEY', path: 'match.has[0]' }],
  },
  {
    name: 'match block: a bad key is reported even next to an empty oneOf',
    // regression: an empty oneOf used to turn the block into Nothing before validation.
    block: { labels: { 'a b': 'x' }, oneOf: { site: [] } },
    errors: [{ code: 'SELECTOR_INVALID_KEY', path: 'match.labels.a b' }],
  },
  {
    name: 'match block: bad keys are reported together with a malformed form',
    // regression: a structural error used to hide every key and value error until it was fixed.
    block: { noneOf: { tier: 'legacy' }, labels: { 'bad key': 'x', 'datum/foo': 'y' } },
    errors: [
      { code: 'SELECTOR_INVALID_MATCH', path: 'match.noneOf.tier' },
      { code: 'SELECTOR_INVALID_KEY', path: 'match.labels.bad key' },
      { code: 'SELECTOR_RESERVED_LABEL', path: 'match.labels.datum/foo' },
    ],
  },
  {
    name: 'match block: options.path prefixes error paths',
    block: { anyOf: {} },
    options: { path: 'layers[2].match' },
    errors: [{ code: 'SELECTOR_INVALID_MATCH', path: 'layers[2].match.anyOf' }],
  },
  {
    name: 'validation: profile none skips key checks',
    block: { labels: { 'datum/site': '' } },
    options: { profile: 'none' },
    model: [['datum/site', 'In', ['']]],
  },
  {
    name: 'validation: profile kubernetes can be chosen',
    block: { labels: { 'Bad.Prefix/x': 'y' } },
    options: { profile: 'kubernetes' },
    errors: [{ code: 'SELECTOR_INVALID_KEY' }],
  },
  // Warnings
  {
    name: 'match block: empty oneOf can never match: Nothing, with a warning',
    block: { labels: { role: 'web' }, oneOf: { site: [] } },
    model: 'nothing',
    warnings: [{ code: 'SELECTOR_EMPTY_MATCH_LIST', path: 'match.oneOf.site' }],
  },
  {
    name: 'match block: empty noneOf always holds: the term is dropped, with a warning',
    block: { labels: { role: 'web' }, noneOf: { tier: [] } },
    model: [['role', 'In', ['web']]],
    warnings: [{ code: 'SELECTOR_EMPTY_MATCH_LIST', path: 'match.noneOf.tier' }],
  },
];

for (const c of cases) {
  test(c.name, () => {
    const result = fromMatchBlock(c.block, c.options);
    if (c.errors) {
      assert.equal(result.selector, undefined);
      assert.equal(result.errors.length, c.errors.length, JSON.stringify(result.errors));
      c.errors.forEach((want, i) => checkError(result.errors[i]!, want));
      return;
    }
    assert.deepEqual(result.errors, []);
    assert.ok(result.selector !== undefined);
    if (c.model !== undefined) assert.deepEqual(rows(result.selector), c.model);
    if (c.want !== undefined) assert.equal(formatSelector(result.selector), c.want);
    const warnings = c.warnings ?? [];
    assert.equal(result.warnings.length, warnings.length);
    warnings.forEach((want, i) => checkError(result.warnings[i]!, want));
  });
}

test('match block: the empty and absent blocks are EVERYTHING; an empty oneOf is NOTHING', () => {
  assert.equal(fromMatchBlock(undefined).selector, EVERYTHING);
  assert.equal(fromMatchBlock({}).selector, EVERYTHING);
  assert.equal(fromMatchBlock({ oneOf: { a: [] } }).selector, NOTHING);
});

test('match block: seed semantics: noneOf holds when absent, missing only when absent', () => {
  const selector = fromMatchBlock({
    noneOf: { tier: ['legacy'] },
    missing: ['decommissioned'],
  }).selector!;
  assert.equal(matches(selector, labelsFrom({})), true);
  assert.equal(matches(selector, labelsFrom({ tier: 'modern' })), true);
  assert.equal(matches(selector, labelsFrom({ tier: 'legacy' })), false);
  assert.equal(matches(selector, labelsFrom({ decommissioned: 'yes' })), false);
});

interface TextCase {
  name: string;
  text: string;
  want?: string;
  error?: WantError;
}

const textCases: TextCase[] = [
  {
    name: 'match block: YAML values are their literal text (1 → "1", 1.0 → "1.0", yes → "yes")',
    text: 'labels: {a: 1, b: 1.0, c: yes, d: 0x1f, e: +1}',
    want: 'a=1,b=1.0,c=yes,d=0x1f,e=+1',
  },
  {
    name: 'match block: YAML block style',
    text: 'oneOf:\n  site: [london, frankfurt]\nhas:\n  - monitoring\n',
    want: 'monitoring,site in (frankfurt,london)',
  },
  {
    name: 'match block: JSON text',
    text: '{"noneOf": {"tier": ["legacy"]}}',
    want: 'tier!=legacy',
  },
  { name: 'match block: empty text is the empty block', text: '', want: '' },
  { name: 'match block: {} is the empty block', text: '{}', want: '' },
  { name: 'match block: quoted numbers stay text', text: 'labels: {a: "007"}', want: 'a=007' },
  {
    name: 'match block: unknown form in text',
    text: 'anyOf: {a: [x]}',
    error: {
      code: 'SELECTOR_INVALID_MATCH',
      path: 'match.anyOf',
      message: 'match has no field "anyOf"',
    },
  },
  {
    name: 'match block: invalid YAML is a match error',
    text: 'labels: {a: [',
    error: { code: 'SELECTOR_INVALID_MATCH' },
  },
  {
    name: 'match block: duplicate keys in YAML are an error',
    text: 'labels: {a: 1, a: 2}',
    error: { code: 'SELECTOR_INVALID_MATCH' },
  },
  {
    name: 'match block: YAML aliases are refused',
    text: 'labels: &x {a: 1}\noneOf: *x',
    error: { code: 'SELECTOR_INVALID_MATCH' },
  },
  {
    name: 'match block: a YAML scalar is not a block',
    text: 'role=web',
    error: { code: 'SELECTOR_INVALID_MATCH', path: 'match' },
  },
];

for (const c of textCases) {
  test(c.name, () => {
    if (c.error) {
      expectError(() => parseSyntax('match', c.text), c.error);
      return;
    }
    assert.equal(formatSelector(parseSyntax('match', c.text)), c.want);
  });
}

test('match block: toMatchBlock inverts fromMatchBlock', () => {
  const block = {
    labels: { role: 'web' },
    oneOf: { site: ['frankfurt', 'london'] },
    noneOf: { tier: ['legacy'] },
    has: ['monitoring'],
    missing: ['decommissioned'],
  };
  const selector = fromMatchBlock(block).selector!;
  const back = toMatchBlock(selector)!;
  assert.deepEqual(JSON.parse(JSON.stringify(back)), block);
  assert.equal(formatSelector(fromMatchBlock(back).selector!), formatSelector(selector));
  assert.equal(toMatchBlock(NOTHING), undefined);
  assert.deepEqual(toMatchBlock(EVERYTHING), {});
});

test('match block: toMatchBlock merges two requirements of one form on one key', () => {
  // regression: a second `In`/`NotIn` on a key used to overwrite the first one's list.
  const selector = parseSyntax('match', '{}');
  assert.equal(selector, EVERYTHING);
  const twoIn = fromMatchBlock(
    { oneOf: { a: ['x', 'y'] }, labels: { a: 'y' } },
    { profile: 'none' },
  ).selector!;
  assert.deepEqual(JSON.parse(JSON.stringify(toMatchBlock(twoIn))), {
    labels: { a: 'y' },
    oneOf: { a: ['x', 'y'] },
  });
  const fromText = (text: string) => toMatchBlock(parseSyntax('k8s', text, { profile: 'none' }));
  assert.deepEqual(JSON.parse(JSON.stringify(fromText('a in (p,q),a in (,q)'))), {
    oneOf: { a: ['q'] },
  });
  assert.deepEqual(JSON.parse(JSON.stringify(fromText('a notin (p,q),a notin (,q)'))), {
    noneOf: { a: ['', 'p', 'q'] },
  });
});

test('match block: match block problems come back as shared diagnostics too, warnings as warnings', () => {
  const result = fromMatchBlock({ oneOf: { site: [] }, has: [''] });
  assert.deepEqual(
    result.diagnostics.map((d) => [d.severity, d.code, d.path, d.module]),
    [
      ['error', 'SELECTOR_INVALID_MATCH', 'match.has[0]', 'selector'],
      ['warning', 'SELECTOR_EMPTY_MATCH_LIST', 'match.oneOf.site', 'selector'],
    ],
  );
});
