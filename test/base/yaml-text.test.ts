// `failsafeValue`: YAML read through the shared parser with every scalar kept as its text, as a
// match block given on the command line (`selector parse --syntax match`) needs it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LabelwiseError, failsafeValue, parseYamlDocument } from '../../src/base/index.js';
import { parseSyntax } from '../../src/selector/index.js';

function value(text: string): unknown {
  const { document, diagnostics } = parseYamlDocument(text, { file: 't.yaml', maxAliasCount: 0 });
  assert.deepEqual(diagnostics, []);
  return JSON.parse(JSON.stringify(failsafeValue(document)));
}

const CASES: readonly { name: string; text: string; want: unknown }[] = [
  {
    name: 'numbers keep their spelling',
    text: 'a: 1.0\nb: 0x1\nc: 010\n',
    want: { a: '1.0', b: '0x1', c: '010' },
  },
  { name: 'null and ~ are text', text: 'a: null\nb: ~\n', want: { a: 'null', b: '~' } },
  { name: 'an empty value is the empty text', text: 'a:\n', want: { a: '' } },
  {
    name: 'quoted and block scalars are their content',
    text: 'a: "x\\ty"\nb: |\n  hi\n',
    want: { a: 'x\ty', b: 'hi\n' },
  },
  { name: 'sequences hold texts', text: '- yes\n- true\n-\n', want: ['yes', 'true', ''] },
  { name: 'keys are texts', text: '1: z\n', want: { '1': 'z' } },
  { name: 'an empty document is null', text: '# nothing\n', want: null },
];

for (const c of CASES)
  test(`failsafeValue: ${c.name}`, () => assert.deepEqual(value(c.text), c.want));

test('failsafeValue keeps __proto__ an ordinary key', () => {
  const { document } = parseYamlDocument('__proto__: x\n', { file: 't.yaml' });
  const got = failsafeValue(document) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(got), null);
  assert.equal(got['__proto__'], 'x');
});

test('--syntax match reads label values as their text', () => {
  const selector = parseSyntax('match', 'labels:\n  version: 1.0\n  flag: null\n');
  assert.deepEqual(
    selector.requirements.map((r) => [r.key, r.values]),
    [
      ['flag', ['null']],
      ['version', ['1.0']],
    ],
  );
});

test('--syntax match refuses bad YAML, duplicate keys and aliases with its own code', () => {
  for (const text of [
    'labels: [',
    'labels: {a: b}\nlabels: {c: d}\n',
    'x: &a {k: v}\nlabels: *a\n',
  ]) {
    assert.throws(
      () => parseSyntax('match', text),
      (error: unknown) =>
        error instanceof LabelwiseError &&
        error.code === 'SELECTOR_INVALID_MATCH' &&
        /^match block is not valid YAML: /.test(error.message),
      text,
    );
  }
});
