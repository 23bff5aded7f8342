// Kubernetes selector strings (docs/selector.md, "Kubernetes selector strings"). Each row is its own test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EVERYTHING,
  NOTHING,
  formatKubernetes,
  formatRequirement,
  formatSelector,
  parseSelector,
  requirement,
  selectorOf,
} from '../../src/selector/index.js';
import type { ParseOptions } from '../../src/selector/index.js';
import { expectError, rows } from './helpers.js';
import type { WantError } from './helpers.js';

interface ParseCase {
  name: string;
  input: string;
  profile?: ParseOptions['profile'];
  /** The printed form (docs/selector.md, "Kubernetes selector strings" printing rules). */
  want?: string;
  /** The model, when the printed form alone would hide a detail. */
  model?: ReturnType<typeof rows>;
  error?: WantError;
}

const a63 = 'a'.repeat(63);
const a64 = 'a'.repeat(64);
/** A DNS subdomain of exactly `n` characters: labels of 63 joined by dots. */
function subdomain(n: number): string {
  const parts: string[] = [];
  let left = n;
  while (left > 0) {
    const take = Math.min(63, parts.length === 0 ? left : left - 1);
    parts.push('b'.repeat(take));
    left -= take + (parts.length === 1 ? 0 : 1);
  }
  const text = parts.join('.');
  assert.equal(text.length, n);
  return text;
}

const cases: ParseCase[] = [
  // Forms
  { name: 'k8s string: empty input is Everything', input: '', want: '', model: 'everything' },
  {
    name: 'k8s string: blank input (space, tab, CR, LF) is Everything',
    input: ' \t\r\n ',
    want: '',
    model: 'everything',
  },
  { name: 'k8s string: bare key is Exists', input: 'app', model: [['app', 'Exists', []]] },
  { name: 'k8s string: !key is DoesNotExist', input: '!app', model: [['app', 'DoesNotExist', []]] },
  { name: 'k8s string: k=v is In one value', input: 'app=web', model: [['app', 'In', ['web']]] },
  { name: 'k8s string: k==v is In one value', input: 'app==web', want: 'app=web' },
  {
    name: 'k8s string: k!=v is NotIn one value',
    input: 'app!=web',
    model: [['app', 'NotIn', ['web']]],
  },
  {
    name: 'k8s string: k in (v1,v2)',
    input: 'tier in (web,api)',
    want: 'tier in (api,web)',
    model: [['tier', 'In', ['api', 'web']]],
  },
  {
    name: 'k8s string: k notin (v1,v2)',
    input: 'tier notin (web,api)',
    want: 'tier notin (api,web)',
    model: [['tier', 'NotIn', ['api', 'web']]],
  },
  { name: 'k8s string: single-value set prints as equality', input: 'a in (x)', want: 'a=x' },
  {
    name: 'k8s string: single-value notin prints as inequality',
    input: 'a notin (x)',
    want: 'a!=x',
  },
  // Omitted values and empty set items
  {
    name: 'k8s string: k= is the empty value',
    input: 'a=',
    model: [['a', 'In', ['']]],
    want: 'a in ()',
  },
  { name: 'k8s string: k== is the empty value', input: 'a==', model: [['a', 'In', ['']]] },
  {
    name: 'k8s string: k!= is not the empty value',
    input: 'a!=',
    model: [['a', 'NotIn', ['']]],
    want: 'a notin ()',
  },
  {
    name: 'k8s string: k= before a comma',
    input: 'a=,b',
    model: [
      ['a', 'In', ['']],
      ['b', 'Exists', []],
    ],
  },
  {
    name: 'k8s string: () is {""}, not an empty set',
    input: 'x in ()',
    model: [['x', 'In', ['']]],
  },
  { name: 'k8s string: notin () is {""}', input: 'x notin ()', model: [['x', 'NotIn', ['']]] },
  {
    name: 'k8s string: (a,,b) is {"", a, b}',
    input: 'x in (a,,b)',
    model: [['x', 'In', ['', 'a', 'b']]],
    want: 'x in (,a,b)',
  },
  {
    name: 'k8s string: (,a) has a leading empty value',
    input: 'x in (,a)',
    model: [['x', 'In', ['', 'a']]],
  },
  {
    name: 'k8s string: (a,) has a trailing empty value',
    input: 'x in (a,)',
    model: [['x', 'In', ['', 'a']]],
  },
  { name: 'k8s string: (,) is {""}', input: 'x in (,)', model: [['x', 'In', ['']]] },
  {
    name: 'k8s string: duplicate set values collapse',
    input: 'x in (b,a,b,a)',
    model: [['x', 'In', ['a', 'b']]],
  },
  {
    name: 'k8s string: duplicate empty values collapse',
    input: 'x in (,,)',
    model: [['x', 'In', ['']]],
  },
  // Keywords as identifiers
  { name: 'k8s string: in in (in) is valid', input: 'in in (in)', model: [['in', 'In', ['in']]] },
  {
    name: 'k8s string: notin notin (notin) is valid',
    input: 'notin notin (notin)',
    model: [['notin', 'NotIn', ['notin']]],
  },
  { name: 'k8s string: keyword as a bare key', input: 'in', model: [['in', 'Exists', []]] },
  { name: 'k8s string: keyword after !', input: '!notin', model: [['notin', 'DoesNotExist', []]] },
  { name: 'k8s string: keyword as an equality value', input: 'a=in', model: [['a', 'In', ['in']]] },
  {
    name: 'k8s string: keywords as set values',
    input: 'a in (in,notin)',
    model: [['a', 'In', ['in', 'notin']]],
  },
  // Whitespace kinds
  { name: 'k8s string: spaces around every token', input: ' a = b , c ', want: 'a=b,c' },
  { name: 'k8s string: tabs', input: 'a\tin\t(\tx\t,\ty\t)', want: 'a in (x,y)' },
  { name: 'k8s string: CR and LF', input: 'a\r\n!=\r\nb\r\n,\n!c', want: 'a!=b,!c' },
  {
    name: 'k8s string: whitespace between ! and key',
    input: '! a',
    model: [['a', 'DoesNotExist', []]],
  },
  { name: 'k8s string: no whitespace needed', input: 'a in(x),b notin(y)', want: 'a=x,b!=y' },
  // Several requirements, sorting
  {
    name: 'k8s string: requirements sort by key, stable for equal keys',
    input: 'b=1,a,b!=2,!c',
    model: [
      ['a', 'Exists', []],
      ['b', 'In', ['1']],
      ['b', 'NotIn', ['2']],
      ['c', 'DoesNotExist', []],
    ],
    want: 'a,b=1,b!=2,!c',
  },
  {
    name: 'model: the same key twice is legal (x present and not a)',
    input: 'x,x notin (a)',
    model: [
      ['x', 'Exists', []],
      ['x', 'NotIn', ['a']],
    ],
  },
  {
    name: 'model: contradictions parse (they simply match nothing)',
    input: 'a=1,a=2',
    want: 'a=1,a=2',
  },
  // Comma placement errors
  {
    name: 'k8s string: leading comma is an error',
    input: ',a',
    error: { code: 'SELECTOR_EXPECTED_KEY', offset: 0 },
  },
  {
    name: 'k8s string: trailing comma is an error',
    input: 'a,',
    error: { code: 'SELECTOR_EXPECTED_KEY', offset: 2 },
  },
  {
    name: 'k8s string: doubled comma is an error',
    input: 'a,,b',
    error: { code: 'SELECTOR_EXPECTED_KEY', offset: 2 },
  },
  {
    name: 'k8s string: lone comma is an error',
    input: ' , ',
    error: { code: 'SELECTOR_EXPECTED_KEY', offset: 1 },
  },
  {
    name: 'k8s string: missing comma between requirements',
    input: 'a=1 b=2',
    error: { code: 'SELECTOR_EXPECTED_COMMA', offset: 4 },
  },
  {
    name: 'k8s string: missing comma inside a set',
    input: 'x in (a b)',
    error: { code: 'SELECTOR_EXPECTED_COMMA_OR_CLOSE', offset: 8 },
  },
  {
    name: 'k8s string: unclosed set',
    input: 'x in (a',
    error: { code: 'SELECTOR_EXPECTED_COMMA_OR_CLOSE', offset: 7 },
  },
  {
    name: 'k8s string: unclosed set after a comma',
    input: 'x in (a,',
    error: { code: 'SELECTOR_EXPECTED_VALUE', offset: 8 },
  },
  {
    name: 'k8s string: set without parentheses',
    input: 'x in a',
    error: { code: 'SELECTOR_EXPECTED_OPEN_PAREN', offset: 5 },
  },
  {
    name: 'k8s string: in after in is a value, not a paren',
    input: 'x in in',
    error: { code: 'SELECTOR_EXPECTED_OPEN_PAREN', offset: 5 },
  },
  {
    name: 'k8s string: nested parenthesis',
    input: 'x in ((a))',
    error: { code: 'SELECTOR_EXPECTED_VALUE', offset: 6 },
  },
  // ! rules
  {
    name: 'k8s string: !x=a is an error at the operator',
    input: '!x=a',
    error: { code: 'SELECTOR_EXPECTED_COMMA', offset: 2 },
  },
  {
    name: 'k8s string: !x in (a) is an error',
    input: '!x in (a)',
    error: { code: 'SELECTOR_EXPECTED_COMMA', offset: 3 },
  },
  {
    name: 'k8s string: ! without a key',
    input: '!',
    error: { code: 'SELECTOR_EXPECTED_KEY', offset: 1 },
  },
  {
    name: 'k8s string: !! is an error',
    input: '!!x',
    error: { code: 'SELECTOR_EXPECTED_KEY', offset: 1 },
  },
  // Operators
  {
    name: 'k8s string: k>1 is recognised and refused',
    input: 'k>1',
    error: { code: 'SELECTOR_UNSUPPORTED_OPERATOR', offset: 1 },
  },
  {
    name: 'k8s string: k<1 is recognised and refused',
    input: 'a=1, k < 1',
    error: { code: 'SELECTOR_UNSUPPORTED_OPERATOR', offset: 7 },
  },
  {
    name: 'k8s string: unknown operator word',
    input: 'x y',
    error: { code: 'SELECTOR_EXPECTED_OPERATOR', offset: 2 },
  },
  {
    name: 'k8s string: IN is not an operator (case-sensitive)',
    input: 'x IN (a)',
    error: { code: 'SELECTOR_EXPECTED_OPERATOR', offset: 2 },
  },
  {
    name: 'k8s string: operator where a key belongs',
    input: '=a',
    error: { code: 'SELECTOR_EXPECTED_KEY', offset: 0 },
  },
  {
    name: 'k8s string: value must be an identifier',
    input: 'x=(',
    error: { code: 'SELECTOR_EXPECTED_VALUE', offset: 2 },
  },
  {
    name: 'k8s string: a value cannot contain =',
    input: 'x=a=b',
    error: { code: 'SELECTOR_EXPECTED_COMMA', offset: 3 },
  },
  {
    name: 'k8s string: x=== is == then a stray =',
    input: 'x===',
    error: { code: 'SELECTOR_EXPECTED_VALUE', offset: 3 },
  },
  // Key rules (kubernetes profile, the default)
  { name: 'validation: name of 63 characters', input: a63, model: [[a63, 'Exists', []]] },
  {
    name: 'validation: name of 64 characters is too long',
    input: a64,
    error: { code: 'SELECTOR_INVALID_KEY', offset: 0 },
  },
  { name: 'validation: name of one character', input: 'a', model: [['a', 'Exists', []]] },
  {
    name: 'validation: name with - _ . inside',
    input: 'a-b_c.d',
    model: [['a-b_c.d', 'Exists', []]],
  },
  {
    name: 'validation: name with capitals and digits',
    input: 'A9z',
    model: [['A9z', 'Exists', []]],
  },
  {
    name: 'validation: name must start alphanumeric',
    input: 'x,-a',
    error: { code: 'SELECTOR_INVALID_KEY', offset: 2 },
  },
  {
    name: 'validation: name must end alphanumeric',
    input: 'a_=1',
    error: { code: 'SELECTOR_INVALID_KEY', offset: 0 },
  },
  {
    name: 'validation: name rejects other punctuation',
    input: 'a:b',
    error: { code: 'SELECTOR_INVALID_KEY', offset: 0 },
  },
  {
    name: 'validation: name rejects non-ASCII',
    input: 'clé',
    error: { code: 'SELECTOR_INVALID_KEY', offset: 0 },
  },
  {
    name: 'validation: prefix/name',
    input: 'example.com/app',
    model: [['example.com/app', 'Exists', []]],
  },
  {
    name: 'validation: prefix of 253 characters',
    input: `${subdomain(253)}/x`,
    model: [[`${subdomain(253)}/x`, 'Exists', []]],
  },
  {
    name: 'validation: prefix of 254 characters is too long',
    input: `${subdomain(254)}/x`,
    error: { code: 'SELECTOR_INVALID_KEY', offset: 0 },
  },
  {
    name: 'validation: prefix/name with a 63-character name',
    input: `a.b/${a63}`,
    model: [[`a.b/${a63}`, 'Exists', []]],
  },
  {
    name: 'validation: prefix/name with a 64-character name',
    input: `a.b/${a64}`,
    error: { code: 'SELECTOR_INVALID_KEY', offset: 0 },
  },
  {
    name: 'validation: prefix must be lowercase',
    input: 'Example.com/app',
    error: { code: 'SELECTOR_INVALID_KEY', offset: 0 },
  },
  {
    name: 'validation: prefix label must not start with -',
    input: '-a.com/app',
    error: { code: 'SELECTOR_INVALID_KEY', offset: 0 },
  },
  {
    name: 'validation: prefix label must not end with -',
    input: 'a-.com/app',
    error: { code: 'SELECTOR_INVALID_KEY', offset: 0 },
  },
  {
    name: 'validation: prefix must not contain _',
    input: 'a_b.com/app',
    error: { code: 'SELECTOR_INVALID_KEY', offset: 0 },
  },
  {
    name: 'validation: prefix must not have empty labels',
    input: 'a..com/app',
    error: { code: 'SELECTOR_INVALID_KEY', offset: 0 },
  },
  {
    name: 'validation: empty prefix',
    input: '/app',
    error: { code: 'SELECTOR_INVALID_KEY', offset: 0 },
  },
  {
    name: 'validation: empty name after prefix',
    input: 'a.com/',
    error: { code: 'SELECTOR_INVALID_KEY', offset: 0 },
  },
  {
    name: 'validation: at most one /',
    input: 'a/b/c',
    error: { code: 'SELECTOR_INVALID_KEY', offset: 0 },
  },
  {
    name: 'validation: bad key after ! points at the key',
    input: '! -x',
    error: { code: 'SELECTOR_INVALID_KEY', offset: 2 },
  },
  {
    name: 'k8s string: the first error in the input wins (bad key before a syntax error)',
    // regression: validation used to run after the whole parse and report the later comma.
    input: 'BAD/x=1,,',
    error: { code: 'SELECTOR_INVALID_KEY', offset: 0 },
  },
  {
    name: 'k8s string: a bad key is reported before a bad operator after it',
    input: 'x=1,-y z',
    error: { code: 'SELECTOR_INVALID_KEY', offset: 4 },
  },
  // Value rules
  { name: 'validation: value of 63 characters', input: `a=${a63}`, model: [['a', 'In', [a63]]] },
  {
    name: 'validation: value of 64 characters is too long',
    input: `a=${a64}`,
    error: { code: 'SELECTOR_INVALID_VALUE', offset: 2 },
  },
  {
    name: 'validation: value with - _ . inside',
    input: 'a=1.2-3_4',
    model: [['a', 'In', ['1.2-3_4']]],
  },
  {
    name: 'validation: value must not contain /',
    input: 'a=b/c',
    error: { code: 'SELECTOR_INVALID_VALUE', offset: 2 },
  },
  {
    name: 'validation: value must start alphanumeric',
    input: 'a!=-b',
    error: { code: 'SELECTOR_INVALID_VALUE', offset: 3 },
  },
  {
    name: 'validation: value must end alphanumeric',
    input: 'a=b.',
    error: { code: 'SELECTOR_INVALID_VALUE', offset: 2 },
  },
  {
    name: 'validation: bad value inside a set points at the value',
    input: 'x in (a, -b)',
    error: { code: 'SELECTOR_INVALID_VALUE', offset: 9 },
  },
  // Profiles
  {
    name: 'validation: profile none accepts anything the grammar does',
    input: 'Bad Key!=x',
    profile: 'none',
    error: { code: 'SELECTOR_EXPECTED_OPERATOR', offset: 4 },
  },
  {
    name: 'validation: profile none: free-form key and value',
    input: '-x_=/v/',
    profile: 'none',
    model: [['-x_', 'In', ['/v/']]],
  },
  {
    name: 'validation: profile docker: any non-empty key and any value',
    input: 'com.docker.compose.project=ix-Authentik/1,Key_=',
    profile: 'docker',
    model: [
      ['Key_', 'In', ['']],
      ['com.docker.compose.project', 'In', ['ix-Authentik/1']],
    ],
  },
  {
    name: 'validation: profile datum: datum/host may be used by a matcher',
    input: 'datum/host=web-001',
    profile: 'datum',
    model: [['datum/host', 'In', ['web-001']]],
  },
  {
    name: 'validation: profile datum: other datum/ keys are reserved',
    input: 'role=web,datum/site=x',
    profile: 'datum',
    error: { code: 'SELECTOR_RESERVED_LABEL', offset: 9 },
  },
  {
    name: 'validation: profile datum: values are never empty',
    input: 'role=',
    profile: 'datum',
    error: { code: 'SELECTOR_INVALID_VALUE', offset: 5 },
  },
  {
    name: 'validation: profile datum: + is allowed',
    input: 'version=1.2+build',
    profile: 'datum',
    model: [['version', 'In', ['1.2+build']]],
  },
];

for (const c of cases) {
  test(c.name, () => {
    const options: ParseOptions = c.profile === undefined ? {} : { profile: c.profile };
    if (c.error) {
      expectError(() => parseSelector(c.input, options), c.error);
      return;
    }
    const selector = parseSelector(c.input, options);
    if (c.model !== undefined) assert.deepEqual(rows(selector), c.model);
    const printed = formatSelector(selector);
    if (c.want !== undefined) assert.equal(printed, c.want);
    // docs/selector.md, "Kubernetes selector strings" printing then parsing is a fixed point.
    assert.equal(formatSelector(parseSelector(printed, options)), printed);
  });
}

test('k8s string: blank input is the shared EVERYTHING constant', () => {
  assert.equal(parseSelector(''), EVERYTHING);
  assert.equal(parseSelector('\n\t'), EVERYTHING);
});

test('k8s string: errors name the token found and what was expected', () => {
  const error = expectError(() => parseSelector('x in (a b)'), {
    code: 'SELECTOR_EXPECTED_COMMA_OR_CLOSE',
  });
  assert.match(error.message, /found 'b'/);
  assert.match(error.message, /expected/);
  // At the end of input the token found is the empty literal, as apimachinery says it.
  const atEnd = expectError(() => parseSelector('a,'), { code: 'SELECTOR_EXPECTED_KEY' });
  assert.equal(atEnd.message, "found '', expected: identifier after ','");
});

test('k8s string: a NUL byte is refused at its offset (Kubernetes would end or split the input there)', () => {
  for (const [input, offset] of [
    ['a\0', 1],
    ['a=\0b', 2],
    ['a,\0b', 2],
    ['\0', 0],
  ] as const) {
    expectError(() => parseSelector(input), { code: 'SELECTOR_NUL_BYTE', offset });
  }
});

test('k8s string: formatKubernetes prints as apimachinery String(): spellings kept, Nothing is empty', () => {
  const cases: [string, string][] = [
    ['x=a,y==b,z!=c', 'x=a,y==b,z!=c'],
    ['x=, z= ', 'x=,z='],
    ['x in (b,a,a)', 'x in (a,b)'],
    ['x in (a)', 'x in (a)'],
    ['x notin ()', 'x notin ()'],
    ['b, !a', '!a,b'],
    ['z!=a,z', 'z!=a,z'],
    ['', ''],
  ];
  for (const [input, want] of cases) assert.equal(formatKubernetes(parseSelector(input)), want);
  assert.equal(formatKubernetes(NOTHING), '');
  assert.equal(formatKubernetes(EVERYTHING), '');
  // Terms built in code have no spelling: In and NotIn print with Kubernetes' in/notin.
  assert.equal(
    formatKubernetes(selectorOf([requirement('a', 'In', ['x']), requirement('b', 'NotIn', ['y'])])),
    'a in (x),b notin (y)',
  );
});

test('k8s string: requirements remember their offsets', () => {
  const selector = parseSelector('b=1, !a');
  assert.deepEqual(
    selector.requirements.map((r) => [r.key, r.origin?.offset]),
    [
      ['a', 5],
      ['b', 0],
    ],
  );
});

test('k8s string: printing: no spaces except around in/notin, {""} prints as ()', () => {
  const selector = selectorOf([
    requirement('d', 'DoesNotExist'),
    requirement('b', 'NotIn', ['c']),
    requirement('a', 'In', ['y', 'x']),
    requirement('e', 'In', ['']),
    requirement('f', 'NotIn', ['', 'z']),
  ]);
  assert.equal(formatSelector(selector), 'a in (x,y),b!=c,!d,e in (),f notin (,z)');
  assert.equal(formatRequirement(requirement('k', 'Exists')), 'k');
});

test('k8s string: printing sorts without mutating the input', () => {
  const values = ['z', 'a', 'm'];
  const req = requirement('k', 'In', values);
  assert.deepEqual(values, ['z', 'a', 'm']);
  // A hand-built, unsorted selector object is printed sorted and left as it was.
  const reqs = [requirement('b', 'Exists'), requirement('a', 'Exists')];
  const unsorted = { kind: 'requirements' as const, requirements: reqs };
  assert.equal(formatSelector(unsorted), 'a,b');
  assert.deepEqual(
    unsorted.requirements.map((r) => r.key),
    ['b', 'a'],
  );
  assert.equal(formatSelector(selectorOf([req])), 'k in (a,m,z)');
});

test('k8s string: sorting is by code point (UTF-8 byte order), as Go sorts', () => {
  // U+FFFD sorts before U+1F600 by code point; UTF-16 units would put it after.
  const selector = parseSelector('k in (\u{1F600},\uFFFD)', { profile: 'none' });
  assert.deepEqual(selector.requirements[0]?.values, ['\uFFFD', '\u{1F600}']);
});

test('validation: a value breaking two rules is one error naming both, and its key once', () => {
  const value = `${'a'.repeat(64)}-`;
  const error = expectError(() => parseSelector(`k=${value}`), {
    code: 'SELECTOR_INVALID_VALUE',
    offset: 2,
  });
  assert.equal(error.message.split('; ').length, 2);
  assert.equal(error.message.match(/\(key "k"\)/g)?.length, 1);
});
