import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeProjectName, splitCommand } from '../../src/anchor/compose/compose-text.js';
import { interpolate, lookupIn } from '../../src/anchor/compose/interpolate.js';
import { parseDotEnv } from '../../src/anchor/compose/dotenv.js';

const vars = { SET: 'x', EMPTY: '' };
const rows: { name: string; input: string; want: string; problems?: string[] }[] = [
  { name: 'plain text', input: 'a=b', want: 'a=b' },
  { name: '$$ escapes', input: 'cost $$5', want: 'cost $5' },
  { name: 'braced', input: 'v=${SET}', want: 'v=x' },
  { name: 'bare', input: 'v=$SET/y', want: 'v=x/y' },
  { name: ':- on empty', input: '${EMPTY:-d}', want: 'd' },
  { name: '- on empty keeps empty', input: '${EMPTY-d}', want: '' },
  { name: '- on unset', input: '${NOPE-d}', want: 'd' },
  { name: 'unset warns', input: '${NOPE}', want: '', problems: ['warning'] },
  { name: ':? on unset errors', input: '${NOPE:?need it}', want: '', problems: ['error'] },
];
for (const row of rows) {
  test(`interpolate: ${row.name}`, () => {
    const result = interpolate(row.input, lookupIn(vars));
    assert.equal(result.text, row.want);
    assert.deepEqual(
      result.problems.map((p) => p.severity),
      row.problems ?? [],
    );
  });
}

test('splitCommand handles quotes and whitespace', () => {
  assert.deepEqual(splitCommand(`network-anchor  --flag "a b" 'c d' ""`), [
    'network-anchor',
    '--flag',
    'a b',
    'c d',
    '',
  ]);
});

test('parseDotEnv: comments, export, quotes; __proto__ is an ordinary key; a bad line is an error', () => {
  const env = parseDotEnv(
    '# c\nexport A=1\nB="two words"\nC=3 # trailing\n__proto__=x\nbad line\n',
  );
  assert.deepEqual(
    [...env.values],
    [
      ['A', '1'],
      ['B', 'two words'],
      ['C', '3'],
      ['__proto__', 'x'],
    ],
  );
  assert.deepEqual(
    env.problems.map((p) => [p.severity, p.line]),
    [['error', 6]],
  );
});

test('normalizeProjectName follows Compose', () => {
  assert.equal(normalizeProjectName('My Stack.v2'), 'mystackv2');
  assert.equal(normalizeProjectName('_x-Y'), 'x-y');
  // compose-go keeps a leading digit and drops only leading "_" and "-".
  assert.equal(normalizeProjectName('-_42app'), '42app');
});
