// The digest's canonical text, written out directly for speed, against the plain form it
// stands for: JSON.stringify of [ref, desired as sorted [key, value] pairs with text leaves,
// each edge list sorted], with keys and text drawn from all of Unicode (lone surrogates too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compareText } from '../../src/base/text.js';
import { resourceFragment } from '../../src/fleet/resolve/digest.js';
import type { DesiredMap, DesiredValue } from '../../src/fleet/model.js';

function plainCanonical(value: DesiredValue): unknown {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'object') {
    const map = value as DesiredMap;
    return Object.keys(map)
      .sort(compareText)
      .map((key) => [key, plainCanonical(map[key] as DesiredValue)]);
  }
  return String(value);
}

const text = fc.string({ unit: 'binary', maxLength: 6 });
const leaf = fc.oneof(text, fc.integer(), fc.boolean(), fc.array(text, { maxLength: 3 }));
const desired: fc.Arbitrary<DesiredMap> = fc.letrec<{ map: DesiredMap; value: DesiredValue }>(
  (tie) => ({
    value: fc.oneof({ depthSize: 'small' }, leaf, tie('map')),
    map: fc
      .array(fc.tuple(text, tie('value')), { maxLength: 4 })
      .map((pairs) =>
        Object.assign(
          Object.create(null) as Record<string, DesiredValue>,
          Object.fromEntries(pairs),
        ),
      ),
  }),
).map;
const edges = fc.array(text, { maxLength: 4 });

test('a resource fragment is the JSON text of its canonical form', () => {
  fc.assert(
    fc.property(text, desired, edges, edges, edges, (ref, d, requires, restartOn, reloadOn) => {
      const expected = JSON.stringify([
        ref,
        plainCanonical(d),
        [...requires].sort(compareText),
        [...restartOn].sort(compareText),
        [...reloadOn].sort(compareText),
      ]);
      assert.equal(resourceFragment({ ref, desired: d, requires, restartOn, reloadOn }), expected);
    }),
    { numRuns: 2000 },
  );
});
