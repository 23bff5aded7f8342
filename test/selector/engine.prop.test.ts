// Property tests for every fast path against its naive reference (DESIGN.md, Testing):
// compile ≡ matches ≡ explain, both indexes ≡ a linear scan under random add/remove sequences,
// Docker server filters + residual ≡ the selector. fast-check prints the seed on failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  LabelIndex,
  SelectorIndex,
  compile,
  explain,
  labelsFrom,
  matches,
  requirement,
  selectorOf,
  toDockerFilters,
} from '../../src/selector/index.js';
import type { Labels, Selector } from '../../src/selector/index.js';
import { requirementArb, smallLabels, smallSelector } from './arbitraries.js';
import { dockerServerMatches } from './docker-oracle.js';

/** Keys include the hostile ones, so every path sees them. */
const hostileKey = fc.constantFrom(
  'a',
  'b',
  '__proto__',
  'constructor',
  'toString',
  'a.b/c',
  'k=v',
);
const value = fc.constantFrom('', 'x', 'y', 'v1', 'v2', 'v3', 'v4', 'v5', '__proto__');
const hostileSelector: fc.Arbitrary<Selector> = fc
  .array(requirementArb(hostileKey, value), { maxLength: 5 })
  .map(selectorOf);
const hostileLabels: fc.Arbitrary<Labels> = fc
  .array(fc.tuple(hostileKey, value), { maxLength: 5 })
  .map((entries) => labelsFrom(entries));
const anySelector = fc.oneof(smallSelector, hostileSelector);
const anyLabels = fc.oneof(smallLabels, hostileLabels);

test('property: compile ≡ matches ≡ explain', () => {
  fc.assert(
    fc.property(
      anySelector,
      fc.array(anyLabels, { minLength: 1, maxLength: 8 }),
      (selector, sets) => {
        const predicate = compile(selector);
        for (const labels of sets) {
          const want = matches(selector, labels);
          assert.equal(predicate(labels), want);
          const explanation = explain(selector, labels);
          assert.equal(explanation.matched, want);
          assert.equal(explanation.terms.length, selector.requirements.length);
          explanation.terms.forEach((term, i) => {
            const req = selector.requirements[i]!;
            assert.equal(term.ok, matches(selectorOf([req]), labels));
            const actual = Object.prototype.hasOwnProperty.call(labels, req.key)
              ? labels[req.key]
              : null;
            assert.equal(term.actual, actual ?? null);
          });
        }
      },
    ),
    { numRuns: 500 },
  );
});

test('property: compiled predicates agree on plain objects too (inherited keys are absent)', () => {
  fc.assert(
    fc.property(anySelector, fc.dictionary(hostileKey, value), (selector, object) => {
      // fc.dictionary builds plain objects; `constructor` etc. may be inherited or own.
      assert.equal(compile(selector)(object), matches(selector, object));
    }),
    { numRuns: 300 },
  );
});

type Command<T> =
  { op: 'add'; id: number; item: T } | { op: 'remove'; id: number } | { op: 'query' };

function commands<T>(item: fc.Arbitrary<T>): fc.Arbitrary<Command<T>[]> {
  const id = fc.integer({ min: 0, max: 7 });
  return fc.array(
    fc.oneof(
      { weight: 4, arbitrary: fc.record({ op: fc.constant('add' as const), id, item }) },
      { weight: 2, arbitrary: fc.record({ op: fc.constant('remove' as const), id }) },
      { weight: 2, arbitrary: fc.record({ op: fc.constant('query' as const) }) },
    ),
    { maxLength: 40 },
  );
}

/** The reference: an ordered map where re-adding an id moves it to the end. */
class Scan<T> {
  readonly items = new Map<number, T>();
  add(id: number, item: T): void {
    this.items.delete(id);
    this.items.set(id, item);
  }
  remove(id: number): boolean {
    return this.items.delete(id);
  }
}

test('property: SelectorIndex ≡ linear scan under random add/remove', () => {
  fc.assert(
    fc.property(
      commands(anySelector),
      fc.array(anyLabels, { minLength: 1, maxLength: 6 }),
      (cmds, queries) => {
        const index = new SelectorIndex<number>();
        const scan = new Scan<Selector>();
        const check = (): void => {
          for (const labels of queries) {
            const want = [...scan.items].filter(([, s]) => matches(s, labels)).map(([id]) => id);
            assert.deepEqual(index.match(labels), want);
          }
        };
        for (const cmd of cmds) {
          if (cmd.op === 'add') {
            scan.add(cmd.id, cmd.item);
            index.add(cmd.id, cmd.item);
          } else if (cmd.op === 'remove') {
            assert.equal(index.remove(cmd.id), scan.remove(cmd.id));
          } else check();
          assert.equal(index.size, scan.items.size);
        }
        check();
      },
    ),
    { numRuns: 300 },
  );
});

test('property: LabelIndex ≡ linear scan under random add/remove', () => {
  fc.assert(
    fc.property(
      commands(anyLabels),
      fc.array(anySelector, { minLength: 1, maxLength: 6 }),
      (cmds, selectors) => {
        const index = new LabelIndex<number>();
        const scan = new Scan<Labels>();
        const check = (): void => {
          for (const selector of selectors) {
            const want = [...scan.items].filter(([, l]) => matches(selector, l)).map(([id]) => id);
            assert.deepEqual(index.select(selector), want);
          }
        };
        for (const cmd of cmds) {
          if (cmd.op === 'add') {
            scan.add(cmd.id, cmd.item);
            index.add(cmd.id, cmd.item);
          } else if (cmd.op === 'remove') {
            assert.equal(index.remove(cmd.id), scan.remove(cmd.id));
          } else check();
          assert.equal(index.size, scan.items.size);
          assert.deepEqual(index.ids(), [...scan.items.keys()]);
        }
        check();
      },
    ),
    { numRuns: 300 },
  );
});

test('property: SelectorIndex flags unsatisfiable selectors and never returns them', () => {
  fc.assert(
    fc.property(anySelector, anyLabels, (selector, labels) => {
      const index = new SelectorIndex<string>();
      const contradiction = selectorOf([
        requirement('a', 'In', ['x']),
        requirement('a', 'In', ['y']),
      ]);
      assert.equal(index.add('never', contradiction), false);
      assert.ok(index.unsatisfiable.has('never'));
      index.add('s', selector);
      assert.ok(!index.match(labels).includes('never'));
      assert.ok(index.remove('never'));
      assert.ok(!index.unsatisfiable.has('never'));
    }),
    { numRuns: 100 },
  );
});

test('property: Docker server filters + residual ≡ the selector (no matching container dropped)', () => {
  fc.assert(
    fc.property(
      anySelector,
      fc.array(anyLabels, { minLength: 1, maxLength: 8 }),
      (selector, sets) => {
        const { server, residual } = toDockerFilters(selector);
        for (const labels of sets) {
          const kept = dockerServerMatches(server.label, labels) && matches(residual, labels);
          assert.equal(kept, matches(selector, labels));
        }
      },
    ),
    { numRuns: 500 },
  );
});
