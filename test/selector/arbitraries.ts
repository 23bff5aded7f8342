// fast-check generators shared by the selector property tests. A small key and value universe
// keeps collisions (same key twice, overlapping sets) frequent, which is where the bugs live.
import fc from 'fast-check';
import { NOTHING, labelsFrom, requirement, selectorOf } from '../../src/selector/index.js';
import type { Labels, Operator, Requirement, Selector } from '../../src/selector/index.js';

export const KEYS = ['a', 'b', 'c'] as const;
export const VALUES = ['', 'x', 'y', 'z'] as const;
/** A value no generated selector mentions: stands for "any other value" in brute force. */
export const OTHER = 'w';

const operator = fc.constantFrom<Operator>('In', 'NotIn', 'Exists', 'DoesNotExist');

export function requirementArb(
  keys: fc.Arbitrary<string>,
  values: fc.Arbitrary<string>,
): fc.Arbitrary<Requirement> {
  return fc
    .record({
      key: keys,
      op: operator,
      values: fc.uniqueArray(values, { minLength: 1, maxLength: 3 }),
    })
    .map(({ key, op, values: vs }) =>
      requirement(key, op, op === 'In' || op === 'NotIn' ? vs : []),
    );
}

/** Selectors over the small universe, Nothing now and then. */
export const smallSelector: fc.Arbitrary<Selector> = fc.oneof(
  {
    weight: 20,
    arbitrary: fc
      .array(requirementArb(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES)), { maxLength: 5 })
      .map(selectorOf),
  },
  { weight: 1, arbitrary: fc.constant(NOTHING) },
);

/** Label sets over the small universe (plus a value no selector names). */
export const smallLabels: fc.Arbitrary<Labels> = fc
  .dictionary(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES, OTHER), { maxKeys: 3 })
  .map((object) => labelsFrom(Object.entries(object)));

/** Every label set of the small universe: each key absent or one of the values (6^3 = 216). */
export function allSmallLabelSets(): Labels[] {
  const options: (string | undefined)[] = [undefined, ...VALUES, OTHER];
  const out: Labels[] = [];
  for (const a of options)
    for (const b of options)
      for (const c of options) {
        const entries: [string, string][] = [];
        if (a !== undefined) entries.push(['a', a]);
        if (b !== undefined) entries.push(['b', b]);
        if (c !== undefined) entries.push(['c', c]);
        out.push(labelsFrom(entries));
      }
  return out;
}

/** Valid Kubernetes names (1–63 chars, alphanumeric ends, `-_.` inside). */
const alnum = fc.constantFrom(
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split(''),
);
const inner = fc.constantFrom(...'abcXYZ019-_.'.split(''));
export const k8sName: fc.Arbitrary<string> = fc.oneof(
  alnum,
  fc
    .tuple(alnum, fc.array(inner, { maxLength: 8 }), alnum)
    .map(([first, middle, last]) => `${first}${middle.join('')}${last}`),
  fc.constantFrom('in', 'notin'),
);
const dnsLabel = fc
  .tuple(
    fc.constantFrom(...'abz09'.split('')),
    fc.array(fc.constantFrom(...'ab-9'.split('')), { maxLength: 5 }),
    fc.constantFrom(...'az09'.split('')),
  )
  .map(([a, m, z]) => `${a}${m.join('')}${z}`);
export const k8sKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: k8sName },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(dnsLabel, { minLength: 1, maxLength: 3 }), k8sName)
      .map(([labels, name]) => `${labels.join('.')}/${name}`),
  },
);
export const k8sValue: fc.Arbitrary<string> = fc.oneof(fc.constant(''), k8sName);

/** Selectors valid under the kubernetes profile, with realistic keys and values. */
export const k8sSelector: fc.Arbitrary<Selector> = fc
  .array(requirementArb(k8sKey, k8sValue), { maxLength: 6 })
  .map(selectorOf);

/** Text made of the selector grammar's pieces: most of it is almost valid. */
export const selectorishText: fc.Arbitrary<string> = fc
  .array(
    fc.constantFrom(
      'a',
      'b',
      'in',
      'notin',
      '!',
      '=',
      '==',
      '!=',
      '(',
      ')',
      ',',
      ' ',
      '\t',
      '\r\n',
      'x',
      '>',
      '<',
      '1',
      '-',
      '/',
      'example.com/',
      '""',
      'é',
      '\u0000',
      '😀',
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

/** Arbitrary text of every kind: ASCII, full Unicode (lone surrogates included), grammar soup. */
export const anyText: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  selectorishText,
);
