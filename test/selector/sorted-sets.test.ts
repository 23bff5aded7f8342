// The sorted-array set operations the algebra runs on, against Set-based references, and the
// algebra on many requirements of one key (the shape that used to take quadratic time).
import { compareText } from '../../src/base/index.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  canonicalForm,
  overlap,
  parseSelector,
  satisfiable,
  subsumes,
} from '../../src/selector/index.js';
import { sortStrings } from '../../src/selector/labels.js';
import {
  hasSorted,
  intersectSorted,
  subtractSorted,
  uniteSorted,
} from '../../src/selector/sorted-sets.js';

// Surrogate pairs and units above them are where code-unit and code-point order part.
const unit = fc.constantFrom('a', 'b', '', '\u{1F600}', '\uFFFD', '\uE000', 'Z');
const text = fc.array(unit, { maxLength: 3 }).map((parts) => parts.join(''));
const sortedSet = fc
  .uniqueArray(text, { maxLength: 8 })
  .map((values) => [...values].sort(compareText));

test('sortStrings orders by code point with or without astral characters', () => {
  assert.deepEqual(sortStrings(['b', 'a', 'c']), ['a', 'b', 'c']);
  assert.deepEqual(sortStrings(['\u{1F600}', '\uFFFD']), ['\uFFFD', '\u{1F600}']);
  fc.assert(
    fc.property(fc.array(text), (values) => {
      assert.deepEqual(sortStrings([...values]), [...values].sort(compareText));
    }),
  );
});

test('property: intersect, subtract, unite and has agree with Set-based references', () => {
  fc.assert(
    fc.property(sortedSet, sortedSet, text, (a, b, probe) => {
      const inB = new Set(b);
      assert.deepEqual(
        intersectSorted(a, b),
        a.filter((v) => inB.has(v)),
      );
      assert.deepEqual(
        subtractSorted(a, b),
        a.filter((v) => !inB.has(v)),
      );
      assert.deepEqual(uniteSorted(a, b), [...new Set([...a, ...b])].sort(compareText));
      assert.equal(hasSorted(a, probe), a.includes(probe));
    }),
    { numRuns: 500 },
  );
});

test('the algebra answers exactly on 16,000 requirements of one key', () => {
  const n = 16_000;
  const terms = Array.from({ length: n }, (_, i) => `k!=v${i}`).join(',');
  const a = parseSelector(terms);
  const b = parseSelector(`${terms},k`);
  // b adds presence: a subsumes b, not the other way ({} is in a, not in b).
  assert.deepEqual(subsumes(a, b), { subsumes: true });
  const back = subsumes(b, a);
  assert.equal(back.subsumes, false);
  const overlapResult = overlap(a, b);
  assert.equal(overlapResult.overlap, true);
  // The witness must be present and avoid every excluded value: v0…v15999 are taken, and so
  // is nothing else, so the fresh value is plain `v`.
  if (overlapResult.overlap) assert.equal(overlapResult.witness.k, 'v');
  const canonical = canonicalForm(b);
  assert.ok(canonical.startsWith('k,k notin (v0,v1,v10,v100,v1000,v10000,'));
  assert.equal(canonical.split(',').length, n + 1);
  // Excluding `v` as well moves the witness on to the first free `vN`: v16000.
  const withV = parseSelector(`${terms},k,k!=v`);
  const sat = satisfiable(withV);
  assert.ok(sat.satisfiable && sat.witness.k === 'v16000');
});

test('many In terms on one key narrow to their common values', () => {
  const terms = Array.from({ length: 2000 }, (_, i) => `k in (a,b,c${i})`).join(',');
  assert.equal(canonicalForm(parseSelector(`${terms},k!=a`)), 'k=b');
  assert.equal(canonicalForm(parseSelector(`${terms},k notin (a,b)`)), '<nothing>');
});
