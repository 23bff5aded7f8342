import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatYamlPath, parseYamlDocument, parseYamlDocuments } from '../../src/base/index.js';

const file = 'x.yaml';

test('positions: locate maps a path to the line and column of its value', () => {
  const { documents, diagnostics } = parseYamlDocuments(
    'a: 1\n---\nspec:\n  rules:\n    - name: x\n',
    { file },
  );
  assert.deepEqual(diagnostics, []);
  assert.equal(documents.length, 2);
  assert.deepEqual(documents[1]?.locate(['spec', 'rules', 0, 'name']), { line: 5, column: 13 });
  assert.deepEqual(documents[1]?.locate(['spec', 'missing', 3]), { line: 4, column: 3 });
});

test('a broken document is one diagnostic per problem; the others are kept', () => {
  const { documents, diagnostics } = parseYamlDocuments('a: 1\na: 2\n---\nok: true\n', {
    file,
    code: 'POLICY_YAML_SYNTAX',
  });
  assert.deepEqual(
    documents.map((d) => d.value),
    [{ ok: true }],
  );
  assert.equal(diagnostics.length, 1);
  assert.equal(diagnostics[0]?.code, 'POLICY_YAML_SYNTAX');
  assert.equal(diagnostics[0]?.line, 2);
  assert.match(diagnostics[0]?.message ?? '', /unique/);
});

test('hostile YAML: billion laughs, cycles, deep nesting and huge files are refused, never thrown', () => {
  const laughs = ['a: &a [x, x, x, x, x, x, x, x, x]'];
  for (let i = 0; i < 9; i++)
    laughs.push(
      `${'bcdefghij'[i]}: &${'bcdefghij'[i]} [${Array(9).fill(`*${'abcdefghij'[i]}`).join(', ')}]`,
    );
  const cases: [string, RegExp, object?][] = [
    [laughs.join('\n'), /alias/],
    ['a: &x\n  b: *x\n', /cycle/],
    ['['.repeat(5000) + ']'.repeat(5000), /deep|nest/],
    ['a: '.padEnd(100, 'x'), /over the limit/, { maxLength: 50 }],
    ['a: &x 1\nb: *x\n', /aliases .* not allowed/, { maxAliasCount: 0 }],
  ];
  for (const [text, pattern, extra] of cases) {
    const { documents, diagnostics } = parseYamlDocuments(text, { file, ...(extra ?? {}) });
    assert.equal(documents.length, 0, String(pattern));
    assert.match(diagnostics[0]?.message ?? '', pattern);
    assert.equal(diagnostics[0]?.file, file);
  }
});

test('merge keys only when asked (Compose reads them)', () => {
  const text = 'base: &b {x: 1}\nsvc:\n  <<: *b\n  y: 2\n';
  const merged = parseYamlDocuments(text, { file, merge: true }).documents[0]?.value as {
    svc: object;
  };
  assert.deepEqual(merged.svc, { x: 1, y: 2 });
  const plain = parseYamlDocuments(text, { file }).documents[0]?.value as {
    svc: Record<string, unknown>;
  };
  assert.ok('<<' in plain.svc);
});

test('a merge key on a non-mapping is a diagnostic at the key, never a crash', () => {
  for (const text of ['a: &x 1\nb:\n  <<: *x\n', 'a: [1]\nb:\n  <<: [*a]\n']) {
    const { documents, diagnostics } = parseYamlDocuments(text, { file, merge: true });
    assert.equal(documents.length, 0);
    assert.match(diagnostics[0]?.message ?? '', /merge key \(<<\) must name a mapping/);
    assert.equal(diagnostics[0]?.line, 3);
  }
  const typo = parseYamlDocuments('b:\n  <<: *typo\n', { file, merge: true });
  assert.equal(typo.documents.length, 0);
  assert.equal(typo.diagnostics.length, 1);
});

test('a single-document file with two documents is a diagnostic on the second', () => {
  const { document, diagnostics } = parseYamlDocument('a: 1\n---\nb: 2\n', { file });
  assert.deepEqual(document?.value, { a: 1 });
  assert.equal(diagnostics[0]?.line, 3);
});

test('formatYamlPath quotes odd keys', () => {
  assert.equal(formatYamlPath(['spec', 'rules', 0, 'matches', 1]), 'spec.rules[0].matches[1]');
  assert.equal(
    formatYamlPath(['labels', 'a b', 'app.kubernetes.io/name']),
    'labels["a b"]["app.kubernetes.io/name"]',
  );
});
