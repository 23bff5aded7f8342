import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { MANIFEST_YAML_OPTIONS, ManifestYamlWriter } from '../../src/base/index.js';

/** What the yaml library writes: the writer must give the same bytes. */
const library = (value: unknown): string => stringify(value, MANIFEST_YAML_OPTIONS);

/** Writes `value` with a fresh writer; `fallbacks` says whether the library wrote it. */
function written(value: unknown): { text: string; fallbacks: number } {
  const writer = new ManifestYamlWriter();
  const text = writer.write(value);
  return { text, fallbacks: writer.fallbacks };
}

test('block layout: nested mappings, sequences under keys, mappings and lists in lists', () => {
  const value = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { labels: { 'app.kubernetes.io/name': 'web' }, name: 'web' },
    spec: {
      ports: [{ name: 'http', port: 8080, targetPort: 'http' }],
      selector: {},
      matrix: [['a', 'b'], [], [{ x: 1 }], {}],
      flags: [true, false, null, 0.5, -0, 1e21],
    },
  };
  const { text, fallbacks } = written(value);
  assert.equal(fallbacks, 0);
  assert.equal(text, library(value));
  assert.match(text, /^ {2}flags:\n {4}- true\n/m);
  assert.match(text, /^ {4}- - a\n {6}- b\n {4}- \[\]\n {4}- - x: 1\n {4}- \{\}$/m);
});

test('scalars a YAML 1.1 reader would misread are quoted as the library quotes them', () => {
  const strings = [
    ...['no', 'on', 'Y', 'off', 'TRUE', '~', 'null', 'NULL', ''],
    ...['1_000', '0x1F', '07', '0b1', '12:30', '1.0', '.inf', '.nan', '1e3', '2001-12-14'],
    ...['- a', '-', '?', 'a: b', 'a #b', '#x', '*x', '&x', '!x', '|', '>', '@x', '`x', '%x'],
    ...['a:', ' a', 'a ', '[x', '{x', ',x', '"q"', "it's", `a"b'c`, 'x\ty', '^/api/'],
  ];
  for (const s of strings) {
    const value = { [s]: s, list: [s] };
    const { text, fallbacks } = written(value);
    assert.equal(fallbacks, 0, JSON.stringify(s));
    assert.equal(text, library(value), JSON.stringify(s));
  }
});

test('what the writer does not write itself, the library writes, a whole document at a time', () => {
  const cases: unknown[] = [
    { script: 'line one\nline two\n' }, // a block scalar
    { bell: 'a\u0007b' }, // an escape
    { marker: '--- x' }, // placed by position
    { merge: '<<' }, // the merge key's own tag
    { [`k${'x'.repeat(1100)}`]: 1 }, // an explicit key
    { n: Number.NaN },
    { at: new Date(0) },
    { list: [1, undefined] },
    'a top-level scalar',
  ];
  for (const value of cases) {
    const { text, fallbacks } = written(value);
    assert.equal(fallbacks, 1, JSON.stringify(value));
    assert.equal(text, library(value));
  }
});

test('one writer writes many documents alike (its memory of strings changes nothing)', () => {
  const writer = new ManifestYamlWriter();
  const a = { name: 'yes', labels: { yes: 'no' } };
  const b = { other: ['yes', 'no', 'maybe'], yes: { name: 'no' } };
  assert.equal(writer.write(a), library(a));
  assert.equal(writer.write(b), library(b));
  assert.equal(writer.write(a), library(a));
});

test('property: the writer writes what the yaml library writes, for any plain data', () => {
  const text = fc.oneof(
    fc.string(),
    fc.string({ unit: 'grapheme' }),
    fc.string({ unit: 'binary' }),
    fc.constantFrom('yes', 'no', '~', '1.0', '0x1', '12:30', '<<', '- a', 'a: b', '---', '"', "'"),
  );
  const data = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      text,
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      tie('list'),
      tie('map'),
    ),
    list: fc.array(tie('value'), { maxLength: 4 }),
    map: fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  }));
  fc.assert(
    fc.property(fc.oneof(data.list, data.map), (value) => {
      assert.equal(new ManifestYamlWriter().write(value), library(value));
    }),
    { numRuns: 3000 },
  );
});
