// Property tests for the algebra (docs/selector.md, "The algebra") against brute force. Selectors mention keys a, b, c
// and values "", x, y, z only, so enumerating each key as absent or one of those values or one
// other value ("w", standing for every unnamed value) covers every case exactly: 216 label sets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  canonicalForm,
  equivalent,
  matches,
  overlap,
  parseSelector,
  satisfiable,
  subsumes,
} from '../../src/selector/index.js';
import { allSmallLabelSets, smallLabels, smallSelector } from './arbitraries.js';

const universe = allSmallLabelSets();

test('property: satisfiable agrees with brute force; every witness matches', () => {
  fc.assert(
    fc.property(smallSelector, (selector) => {
      const result = satisfiable(selector);
      const brute = universe.some((labels) => matches(selector, labels));
      assert.equal(result.satisfiable, brute);
      if (result.satisfiable) assert.ok(matches(selector, result.witness));
      else if (selector.kind !== 'nothing') assert.ok(result.proof.key !== undefined);
    }),
    { numRuns: 500 },
  );
});

test('property: overlap agrees with brute force; witnesses match both', () => {
  fc.assert(
    fc.property(smallSelector, smallSelector, (a, b) => {
      const result = overlap(a, b);
      const brute = universe.some((labels) => matches(a, labels) && matches(b, labels));
      assert.equal(result.overlap, brute);
      if (result.overlap) {
        assert.ok(matches(a, result.witness), 'witness matches a');
        assert.ok(matches(b, result.witness), 'witness matches b');
      } else {
        const { key } = result.proof;
        if (key !== undefined) {
          // The proof's requirements alone are already disjoint: no label set satisfies them.
          for (const labels of universe) {
            const allHold = [...result.proof.a, ...result.proof.b].every((req) =>
              matches({ kind: 'requirements', requirements: [req] }, labels),
            );
            assert.ok(!allHold, `proof on ${key} does not hold on ${JSON.stringify(labels)}`);
          }
        }
      }
    }),
    { numRuns: 500 },
  );
});

test('property: every "disjoint" verdict holds on random label sets', () => {
  fc.assert(
    fc.property(
      smallSelector,
      smallSelector,
      fc.array(smallLabels, { maxLength: 20 }),
      (a, b, sets) => {
        if (overlap(a, b).overlap) return;
        for (const labels of sets) assert.ok(!(matches(a, labels) && matches(b, labels)));
      },
    ),
    { numRuns: 300 },
  );
});

test('property: subsumes agrees with brute force; every counterexample is real', () => {
  fc.assert(
    fc.property(smallSelector, smallSelector, (a, b) => {
      const result = subsumes(a, b);
      const brute = universe.every((labels) => !matches(b, labels) || matches(a, labels));
      assert.equal(result.subsumes, brute);
      if (!result.subsumes) {
        assert.ok(matches(b, result.counterexample), 'B matches the counterexample');
        assert.ok(!matches(a, result.counterexample), 'A does not');
      }
    }),
    { numRuns: 500 },
  );
});

test('property: equivalent agrees with brute force', () => {
  fc.assert(
    fc.property(smallSelector, smallSelector, (a, b) => {
      const brute = universe.every((labels) => matches(a, labels) === matches(b, labels));
      assert.equal(equivalent(a, b), brute);
    }),
    { numRuns: 500 },
  );
  // Pairs drawn independently are rarely equivalent; also check each selector against its own
  // canonical form, which must always be equivalent.
  fc.assert(
    fc.property(smallSelector, (selector) => {
      const canonical = canonicalForm(selector);
      if (canonical === '<nothing>') {
        assert.ok(universe.every((labels) => !matches(selector, labels)));
        return;
      }
      const back = parseSelector(canonical, { profile: 'none' });
      assert.ok(universe.every((labels) => matches(back, labels) === matches(selector, labels)));
      assert.ok(equivalent(back, selector));
    }),
    { numRuns: 500 },
  );
});

test('property: subsumption both ways is equivalence', () => {
  fc.assert(
    fc.property(smallSelector, smallSelector, (a, b) => {
      assert.equal(subsumes(a, b).subsumes && subsumes(b, a).subsumes, equivalent(a, b));
    }),
    { numRuns: 500 },
  );
});
