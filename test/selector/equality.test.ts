// docs/selector.md, "Equality lists": the anchord equality list (anchord). The three error messages are an
// interface, so these rows compare the exact text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EVERYTHING,
  formatEqualityList,
  labelsFrom,
  matches,
  parseEqualityList,
  parseSelector,
} from '../../src/selector/index.js';
import { expectError, rows } from './helpers.js';
import type { WantError } from './helpers.js';

interface EqualityCase {
  name: string;
  input: string;
  model?: ReturnType<typeof rows>;
  error?: WantError;
}

const cases: EqualityCase[] = [
  // Seed 000 acceptance cases
  { name: 'anchord docs: "" is empty, no error', input: '', model: 'everything' },
  { name: 'anchord docs: a=1', input: 'a=1', model: [['a', 'In', ['1']]] },
  {
    name: 'anchord docs: a=1, b = 2 strips whitespace',
    input: 'a=1, b = 2',
    model: [
      ['a', 'In', ['1']],
      ['b', 'In', ['2']],
    ],
  },
  {
    name: 'anchord docs: a=1,a=2 is a conflict',
    input: 'a=1,a=2',
    error: {
      code: 'SELECTOR_EQUALITY_CONFLICT',
      offset: 4,
      message: 'label selector has duplicate key "a" with conflicting values "1" and "2"',
    },
  },
  {
    name: 'anchord docs: nokey is missing =',
    input: 'nokey',
    error: {
      code: 'SELECTOR_EQUALITY_MISSING_EQUALS',
      offset: 0,
      message: `label selector entry "nokey" missing '='`,
    },
  },
  // The rest of docs/selector.md, "Equality lists"
  { name: 'equality list: blank input is empty', input: '  \t ', model: 'everything' },
  { name: 'equality list: only commas is empty', input: ' , ,', model: 'everything' },
  {
    name: 'equality list: seed example: anchord.role=ldap-outpost',
    input: 'anchord.role=ldap-outpost',
    model: [['anchord.role', 'In', ['ldap-outpost']]],
  },
  {
    name: 'equality list: seed example: team=infra,env=prod (AND-joined)',
    input: 'team=infra,env=prod',
    model: [
      ['env', 'In', ['prod']],
      ['team', 'In', ['infra']],
    ],
  },
  {
    name: 'equality list: whitespace around = and commas, tabs too',
    input: '\ta \t=\t1 ,\tb= 2\t',
    model: [
      ['a', 'In', ['1']],
      ['b', 'In', ['2']],
    ],
  },
  { name: 'equality list: split at the first =', input: 'a=b=c', model: [['a', 'In', ['b=c']]] },
  { name: 'equality list: value may start with =', input: 'a==b', model: [['a', 'In', ['=b']]] },
  { name: 'equality list: key= is the empty value', input: 'a=', model: [['a', 'In', ['']]] },
  {
    name: 'equality list: key = with spaces is the empty value',
    input: ' a = ',
    model: [['a', 'In', ['']]],
  },
  {
    name: 'equality list: empty items are skipped',
    input: 'a=1,,b=2',
    model: [
      ['a', 'In', ['1']],
      ['b', 'In', ['2']],
    ],
  },
  { name: 'equality list: trailing comma is skipped', input: 'a=1,', model: [['a', 'In', ['1']]] },
  { name: 'equality list: leading comma is skipped', input: ',a=1', model: [['a', 'In', ['1']]] },
  {
    name: 'equality list: repeated key, same value, collapses',
    input: 'a=1, a = 1',
    model: [['a', 'In', ['1']]],
  },
  {
    name: 'equality list: no character-set validation (Docker labels are free-form)',
    input: 'Weird Key!/x=Välue (1)',
    model: [['Weird Key!/x', 'In', ['Välue (1)']]],
  },
  {
    name: 'equality list: keys containing dots and slashes',
    input: 'com.docker.compose.project=ix-authentik',
    model: [['com.docker.compose.project', 'In', ['ix-authentik']]],
  },
  {
    name: 'equality list: != is not an operator: key "a!" and value "1"',
    input: 'a!=1',
    model: [['a!', 'In', ['1']]],
  },
  {
    name: 'equality list: missing = names the trimmed item',
    input: 'a=1,  role ',
    error: {
      code: 'SELECTOR_EQUALITY_MISSING_EQUALS',
      offset: 6,
      message: `label selector entry "role" missing '='`,
    },
  },
  {
    name: 'equality list: set syntax is not supported (missing =)',
    input: 'tier in (a)',
    error: {
      code: 'SELECTOR_EQUALITY_MISSING_EQUALS',
      message: `label selector entry "tier in (a)" missing '='`,
    },
  },
  {
    name: 'equality list: empty key',
    input: '=x',
    error: {
      code: 'SELECTOR_EQUALITY_EMPTY_KEY',
      offset: 0,
      message: 'label selector entry "=x" has empty key',
    },
  },
  {
    name: 'equality list: empty key after trimming',
    input: 'a=1, = x',
    error: {
      code: 'SELECTOR_EQUALITY_EMPTY_KEY',
      offset: 5,
      message: 'label selector entry "= x" has empty key',
    },
  },
  {
    name: 'equality list: lone = is an empty key',
    input: '=',
    error: {
      code: 'SELECTOR_EQUALITY_EMPTY_KEY',
      message: 'label selector entry "=" has empty key',
    },
  },
  {
    name: 'equality list: conflict with the empty value',
    input: 'a=,a=x',
    error: {
      code: 'SELECTOR_EQUALITY_CONFLICT',
      message: 'label selector has duplicate key "a" with conflicting values "" and "x"',
    },
  },
  {
    name: 'equality list: conflict after trimming keys',
    input: 'a = 1 , a=2',
    error: {
      code: 'SELECTOR_EQUALITY_CONFLICT',
      message: 'label selector has duplicate key "a" with conflicting values "1" and "2"',
    },
  },
  {
    name: 'equality list: quotes in an item are quoted in the message',
    input: 'say"hi"',
    error: {
      code: 'SELECTOR_EQUALITY_MISSING_EQUALS',
      message: `label selector entry "say\\"hi\\"" missing '='`,
    },
  },
];

for (const c of cases) {
  test(c.name, () => {
    if (c.error) {
      expectError(() => parseEqualityList(c.input), c.error);
      return;
    }
    const selector = parseEqualityList(c.input);
    if (c.model !== undefined) assert.deepEqual(rows(selector), c.model);
  });
}

test('equality list: blank input is the EVERYTHING constant (the caller decides what it means)', () => {
  assert.equal(parseEqualityList(''), EVERYTHING);
});

test('equality list: key= matches only the empty value', () => {
  const selector = parseEqualityList('a=');
  assert.equal(matches(selector, labelsFrom({ a: '' })), true);
  assert.equal(matches(selector, labelsFrom({ a: 'x' })), false);
  assert.equal(matches(selector, labelsFrom({})), false);
});

test('anchord docs: discovery filter semantics on the three candidate containers', () => {
  const containers = {
    ldap: labelsFrom({ role: 'ldap', 'anchord.expose': 'tcp/389' }),
    proxy: labelsFrom({ role: 'proxy', 'anchord.expose': 'tcp/443' }),
    bare: labelsFrom({ 'anchord.expose': 'tcp/80' }),
  };
  const pick = (text: string): string[] =>
    Object.entries(containers)
      .filter(([, labels]) => matches(parseEqualityList(text), labels))
      .map(([name]) => name);
  assert.deepEqual(pick('role=ldap'), ['ldap']);
  assert.deepEqual(pick('role=ldap,env=prod'), []);
  assert.deepEqual(pick(''), ['ldap', 'proxy', 'bare']);
});

test('equality list: formatEqualityList prints k=v pairs sorted, and refuses other forms', () => {
  assert.equal(formatEqualityList(parseEqualityList(' b = 2 , a=1')), 'a=1,b=2');
  assert.equal(formatEqualityList(parseEqualityList('')), '');
  assert.equal(formatEqualityList(parseSelector('a!=1')), undefined);
  assert.equal(formatEqualityList(parseSelector('a in (1,2)')), undefined);
  assert.equal(formatEqualityList(parseSelector('a')), undefined);
});
