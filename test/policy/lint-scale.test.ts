// The near-linear lints agree with their pairwise definitions: overlap candidates never miss an
// overlapping pair of selectors, and the keyed shadowed-rule pass finds exactly the rules a
// pairwise scan finds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { overlap, requirement, selectorOf, EVERYTHING, NOTHING } from '../../src/selector/index.js';
import type { Requirement, Selector } from '../../src/selector/index.js';
import { overlapCandidates } from '../../src/policy/lint/overlap-candidates.js';
import { lintShadowedRules } from '../../src/policy/lint/shadowed-rules.js';
import { model } from './helpers.js';

const KEYS = ['app', 'tier', 'zone'];
const VALUES = ['a', 'b', 'c'];

const arbRequirement: fc.Arbitrary<Requirement> = fc
  .tuple(
    fc.constantFrom(...KEYS),
    fc.constantFrom('In', 'NotIn', 'Exists', 'DoesNotExist'),
    fc.subarray(VALUES, { minLength: 1 }),
  )
  .map(([key, op, values]) =>
    op === 'In' || op === 'NotIn'
      ? requirement(key, op, values)
      : requirement(key, op as 'Exists' | 'DoesNotExist'),
  );

const arbSelector: fc.Arbitrary<Selector> = fc.oneof(
  { weight: 8, arbitrary: fc.array(arbRequirement, { maxLength: 3 }).map(selectorOf) },
  { weight: 1, arbitrary: fc.constant(EVERYTHING) },
  { weight: 1, arbitrary: fc.constant(NOTHING) },
);

describe('overlap candidates', () => {
  it('include every overlapping pair (against all pairs, up to 40 selectors)', () => {
    fc.assert(
      fc.property(fc.array(arbSelector, { maxLength: 40 }), (selectors) => {
        const candidates = new Set(overlapCandidates(selectors).map(([i, j]) => `${i},${j}`));
        for (let i = 0; i < selectors.length; i++)
          for (let j = i + 1; j < selectors.length; j++)
            if (overlap(selectors[i] as Selector, selectors[j] as Selector).overlap)
              assert.ok(candidates.has(`${i},${j}`), `missed pair ${i},${j}`);
      }),
      { numRuns: 300 },
    );
  });

  it('leave out pairs pinned to different values: one app per selector gives no pair', () => {
    const selectors = Array.from({ length: 500 }, (_, i) =>
      selectorOf([requirement('app', 'In', [`app${i}`])]),
    );
    assert.deepEqual(overlapCandidates(selectors), []);
    const withFree = [...selectors, EVERYTHING];
    assert.equal(overlapCandidates(withFree).length, 500);
  });
});

/** The pairwise definition: a rule is shadowed when an earlier rule covers each of its matches. */
interface Match {
  type: 'Exact' | 'PathPrefix';
  value: string;
  method?: string;
}

function trim(v: string): string {
  return v === '/' ? '/' : v.replace(/\/+$/, '') || '/';
}

function naiveCovers(n: Match, m: Match): boolean {
  if (n.method !== m.method) return false;
  if (n.type === 'Exact') return m.type === 'Exact' && m.value === n.value;
  return m.type === 'PathPrefix' ? trim(n.value) === trim(m.value) : m.value === trim(n.value);
}

function naiveShadowed(rules: Match[][]): number[] {
  const out: number[] = [];
  rules.forEach((rule, r) => {
    if (rule.length === 0) return;
    if (
      rule.every((m) => rules.slice(0, r).some((earlier) => earlier.some((n) => naiveCovers(n, m))))
    )
      out.push(r);
  });
  return out;
}

function routeYaml(rules: Match[][]): string {
  const body = rules
    .map(
      (rule) =>
        `    - matches:\n${rule
          .map(
            (m) =>
              `        - path: {type: ${m.type}, value: "${m.value}"}${m.method === undefined ? '' : `\n          method: ${m.method}`}`,
          )
          .join('\n')}`,
    )
    .join('\n');
  return `apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: s, namespace: ns}
spec: {podSelector: {}, port: 8080}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: ns}
spec:
  parentRefs: [{group: policy.linkerd.io, kind: Server, name: s}]
  rules:
${body}
`;
}

describe('shadowed rules', () => {
  it('the keyed pass finds what the pairwise scan finds', () => {
    const arbMatch: fc.Arbitrary<Match> = fc.record(
      {
        type: fc.constantFrom('Exact' as const, 'PathPrefix' as const),
        value: fc.constantFrom('/a', '/a/', '/b', '/a/b', '/'),
        method: fc.constantFrom('GET', 'POST'),
      },
      { requiredKeys: ['type', 'value'] },
    );
    fc.assert(
      fc.property(
        fc.array(fc.array(arbMatch, { minLength: 1, maxLength: 3 }), {
          minLength: 1,
          maxLength: 8,
        }),
        (rules) => {
          const found = lintShadowedRules(model(routeYaml(rules))).map((p) =>
            Number(/rule (\d+) can never/.exec(p.message)?.[1]),
          );
          assert.deepEqual(
            found.sort((a, b) => a - b),
            naiveShadowed(rules),
          );
        },
      ),
      { numRuns: 150 },
    );
  });
});
