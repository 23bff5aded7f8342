// The golden comparison: readable unified diffs that apply, and a bounded cost on any input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch } from 'diff';
import { compareGolden } from '../../src/catalog/index.js';

test('a small change diffs line by line, with context, and applies', () => {
  const have = 'a\nb\nc\nd\ne\nf\ng\n';
  const want = 'a\nb\nc\nD\ne\nf\ng\n';
  const [diff] = compareGolden({ 'x/f.yaml': want }, { 'x/f.yaml': have });
  assert.equal(diff?.change, 'changed');
  assert.match(diff?.patch ?? '', /^@@ -1,7 \+1,7 @@\n a\n b\n c\n-d\n\+D\n e\n f\n g\n$/m);
  assert.equal(applyPatch(have, diff?.patch ?? ''), want);
});

test('two large unrelated files fall back to one replacing hunk that still applies', () => {
  const lines = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${prefix} ${i}`).join('\n');
  // Beyond the edit bound: a full line diff here is quadratic (tens of seconds).
  const have = `${lines('checked in', 20_000)}\n`;
  const want = lines('rendered', 19_000); // and no newline at the end
  const [diff] = compareGolden({ 'x/big.yaml': want }, { 'x/big.yaml': have });
  const patch = diff?.patch ?? '';
  assert.match(
    patch,
    /^={67}\n--- a\/x\/big\.yaml\tchecked in\n\+\+\+ b\/x\/big\.yaml\trendered\n/,
  );
  assert.match(patch, /^@@ -1,20000 \+1,19000 @@$/m);
  assert.match(patch, /\n\\ No newline at end of file\n$/);
  assert.equal(applyPatch(have, patch), want);
  // Deterministic: the same inputs give the same bytes.
  assert.equal(compareGolden({ 'x/big.yaml': want }, { 'x/big.yaml': have })[0]?.patch, patch);
});

test('added and removed files diff against the empty text', () => {
  const diffs = compareGolden({ 'x/new.yaml': 'a: 1\n' }, { 'x/old.yaml': 'b: 2\n' });
  assert.deepEqual(
    diffs.map((d) => [d.path, d.change, applyPatch(d.change === 'added' ? '' : 'b: 2\n', d.patch)]),
    [
      ['x/new.yaml', 'added', 'a: 1\n'],
      ['x/old.yaml', 'removed', ''],
    ],
  );
});
