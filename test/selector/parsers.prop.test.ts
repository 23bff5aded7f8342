// Property tests for every selector parser (DESIGN.md, Testing): they throw only LabelwiseError,
// they finish on hostile input (unicode, 100k characters), and print → parse is a fixed point.
// fast-check prints the seed and the shrunk counterexample on failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LabelwiseError } from '../../src/base/errors.js';
import {
  formatKubernetes,
  canonicalForm,
  equivalent,
  formatSelector,
  fromLabelSelector,
  fromMatchBlock,
  parseDockerFilterText,
  parseEqualityList,
  parseLabelJson,
  parseLabelList,
  parseSelector,
  parseSyntax,
  selectorOf,
  toLabelSelector,
  toMatchBlock,
} from '../../src/selector/index.js';
import { anyText, k8sSelector, selectorishText } from './arbitraries.js';
import { rows } from './helpers.js';

/** Runs `fn`; passes when it returns or throws a LabelwiseError, fails on anything else. */
function onlyOurErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof LabelwiseError)) throw error;
    assert.equal(typeof error.code, 'string');
    const offset = error.source.offset;
    if (offset !== undefined) assert.ok(offset >= 0, `offset ${offset}`);
  }
}

const textParsers: [string, (text: string) => unknown][] = [
  ['parseSelector (kubernetes)', (t) => parseSelector(t)],
  ['parseSelector (none)', (t) => parseSelector(t, { profile: 'none' })],
  ['parseSelector (datum)', (t) => parseSelector(t, { profile: 'datum' })],
  ['parseEqualityList', (t) => parseEqualityList(t)],
  ['parseDockerFilterText', (t) => parseDockerFilterText(t)],
  ['parseSyntax match', (t) => parseSyntax('match', t)],
  ['parseLabelList', (t) => parseLabelList(t)],
  ['parseLabelJson', (t) => parseLabelJson(t)],
];

for (const [name, parse] of textParsers) {
  test(`property: ${name} throws only LabelwiseError on arbitrary text`, () => {
    fc.assert(
      fc.property(anyText, (text) => onlyOurErrors(() => parse(text))),
      { numRuns: 300 },
    );
  });
}

test('property: error offsets of the string parser point inside the input', () => {
  fc.assert(
    fc.property(selectorishText, (text) => {
      try {
        parseSelector(text);
      } catch (error) {
        assert.ok(error instanceof LabelwiseError);
        assert.ok(error.source.offset !== undefined, 'string parser errors carry an offset');
        assert.ok(error.source.offset <= text.length);
      }
    }),
    { numRuns: 500 },
  );
});

/** Arbitrary JSON-ish documents for the object parsers. */
const anyDocument = fc.oneof(
  fc.jsonValue(),
  fc.record(
    {
      matchLabels: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer())),
      matchExpressions: fc.array(
        fc.record(
          {
            key: fc.oneof(fc.string(), fc.constant('__proto__')),
            operator: fc.constantFrom('In', 'NotIn', 'Exists', 'DoesNotExist', 'in', 'Gt', 7),
            values: fc.oneof(fc.array(fc.string()), fc.constant(null), fc.string()),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      labels: fc.dictionary(
        fc.string(),
        fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
      ),
      oneOf: fc.dictionary(fc.string(), fc.array(fc.oneof(fc.string(), fc.integer()))),
      noneOf: fc.dictionary(fc.string(), fc.oneof(fc.array(fc.string()), fc.string())),
      has: fc.oneof(fc.array(fc.string()), fc.string()),
      missing: fc.array(fc.oneof(fc.string(), fc.constant(null))),
      anyOf: fc.constant({}),
    },
    { requiredKeys: [] },
  ),
);

test('property: fromLabelSelector and fromMatchBlock never throw; they return errors', () => {
  fc.assert(
    fc.property(
      anyDocument,
      fc.constantFrom('kubernetes', 'datum', 'docker', 'none'),
      (doc, profile) => {
        const object = fromLabelSelector(doc, { profile });
        assert.ok(object.errors.every((e) => e instanceof LabelwiseError));
        assert.equal(object.selector === undefined, object.errors.length > 0);
        const block = fromMatchBlock(doc, { profile });
        assert.ok(block.errors.every((e) => e instanceof LabelwiseError));
        assert.equal(block.selector === undefined, block.errors.length > 0);
      },
    ),
    { numRuns: 300 },
  );
});

test('property: parsers finish on very long hostile input (100k characters)', () => {
  const big: string[] = [
    '('.repeat(100_000),
    ','.repeat(100_000),
    '!'.repeat(100_000),
    'a'.repeat(100_000),
    `x in (${'a,'.repeat(50_000)})`,
    `${'a=1,'.repeat(25_000)}a`,
    `x in (${'\u00e9'.repeat(100_000)}`,
    '😀'.repeat(50_000),
    '['.repeat(100_000),
    `labels: {${'k: v, '.repeat(16_000)}}`,
    '{'.repeat(100_000),
  ];
  for (const text of big) {
    for (const [, parse] of textParsers) onlyOurErrors(() => parse(text));
  }
  fc.assert(
    fc.property(fc.string({ unit: 'binary', minLength: 90_000, maxLength: 100_000 }), (text) => {
      for (const [, parse] of textParsers) onlyOurErrors(() => parse(text));
    }),
    { numRuns: 3 },
  );
  fc.assert(
    fc.property(
      fc.array(selectorishText, { minLength: 3_000, maxLength: 3_500 }).map((p) => p.join(',')),
      (text) => {
        onlyOurErrors(() => parseSelector(text));
        onlyOurErrors(() => parseEqualityList(text));
      },
    ),
    { numRuns: 3 },
  );
});

test('property: a long valid selector parses completely', () => {
  const keys = Array.from({ length: 10_000 }, (_, i) => `k${i}=v${i}`);
  const selector = parseSelector(keys.join(','));
  assert.equal(selector.requirements.length, 10_000);
  assert.equal(formatSelector(parseSelector(formatSelector(selector))), formatSelector(selector));
});

test('property: print → parse is a fixed point (kubernetes profile)', () => {
  fc.assert(
    fc.property(k8sSelector, (selector) => {
      const printed = formatSelector(selector);
      const parsed = parseSelector(printed);
      assert.equal(formatSelector(parsed), printed);
      assert.deepEqual(rows(parsed), rows(selector));
    }),
    { numRuns: 500 },
  );
});

test('property: whatever parses prints to a fixed point', () => {
  fc.assert(
    fc.property(selectorishText, (text) => {
      let selector;
      try {
        selector = parseSelector(text, { profile: 'none' });
      } catch {
        return; // covered by the error properties above
      }
      const printed = formatSelector(selector);
      assert.equal(formatSelector(parseSelector(printed, { profile: 'none' })), printed);
    }),
    { numRuns: 1000 },
  );
});

test('property: the Kubernetes printing parses back to the same terms, spellings included', () => {
  fc.assert(
    fc.property(selectorishText, (text) => {
      let selector;
      try {
        selector = parseSelector(text, { profile: 'none' });
      } catch {
        return;
      }
      const printed = formatKubernetes(selector);
      const again = parseSelector(printed, { profile: 'none' });
      assert.equal(formatKubernetes(again), printed);
      assert.deepEqual(
        again.requirements.map((r) => [r.key, r.operator, r.values, r.origin?.spelling]),
        selector.requirements.map((r) => [r.key, r.operator, r.values, r.origin?.spelling]),
      );
    }),
    { numRuns: 1000 },
  );
});

test('property: canonical form parses back to an equivalent selector', () => {
  fc.assert(
    fc.property(k8sSelector, (selector) => {
      const canonical = canonicalForm(selector);
      if (canonical === '<nothing>') return;
      const back = parseSelector(canonical);
      assert.ok(equivalent(back, selector), canonical);
      assert.equal(canonicalForm(back), canonical);
    }),
    { numRuns: 500 },
  );
});

test('property: LabelSelector objects round-trip without loss', () => {
  fc.assert(
    fc.property(k8sSelector, (selector) => {
      const object = toLabelSelector(selector);
      const back = fromLabelSelector(JSON.parse(JSON.stringify(object)) as unknown);
      assert.deepEqual(back.errors, []);
      // The same requirements (their order within one key may differ: matchLabels come first).
      const terms = (s: typeof selector): string[] =>
        s.requirements.map((r) => formatSelector(selectorOf([r]))).sort();
      assert.deepEqual(terms(back.selector!), terms(selector));
      // object → model → object is exact.
      assert.deepEqual(
        JSON.parse(JSON.stringify(toLabelSelector(back.selector!))),
        JSON.parse(JSON.stringify(object)),
      );
    }),
    { numRuns: 300 },
  );
});

test('property: match blocks round-trip to an equivalent selector', () => {
  fc.assert(
    fc.property(k8sSelector, (selector) => {
      const block = toMatchBlock(selector)!;
      const back = fromMatchBlock(JSON.parse(JSON.stringify(block)) as unknown, {
        profile: 'none',
      });
      assert.deepEqual(back.errors, []);
      assert.ok(equivalent(back.selector!, selector));
    }),
    { numRuns: 300 },
  );
});
