// The check's overlap proofs against a brute-force reference: over a small alphabet, two anchors
// can claim the same container exactly when some label set of the finite universe is claimed by
// both (in scope, with a valid non-blank anchord.expose). Project anchors, selector anchors that
// may claim project-less containers, and scopes that pin anchord.expose are mixed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkFiles } from './compose-helpers.js';
import { parseExpose } from '../../src/anchor/index.js';
import { labelsFrom, matches, parseEqualityList } from '../../src/selector/index.js';
import type { Labels, Selector } from '../../src/selector/index.js';

const PROJECT_KEY = 'com.docker.compose.project';
const EXPOSE_KEY = 'anchord.expose';
/** Every key a scope may pin, with the values it may pin (absent is added for the universe). */
const ALPHABET: Readonly<Record<string, readonly string[]>> = {
  role: ['a', 'b', ''],
  tier: ['a', ''],
  [PROJECT_KEY]: ['p', 'q', ''],
  [EXPOSE_KEY]: ['tcp/80', '', 'http/1'],
};

/** All label sets over the alphabet (each key absent or one of its values). */
function universe(): Labels[] {
  let sets: [string, string][][] = [[]];
  for (const [key, values] of Object.entries(ALPHABET)) {
    const next: [string, string][][] = [];
    for (const set of sets) {
      next.push(set);
      for (const value of values) next.push([...set, [key, value]]);
    }
    sets = next;
  }
  return sets.map((entries) => labelsFrom(entries));
}
const UNIVERSE = universe();

function isBackend(labels: Labels): boolean {
  const expose = labels[EXPOSE_KEY];
  if (expose === undefined) return false;
  try {
    return parseExpose(expose).length > 0;
  } catch {
    return false;
  }
}

type AnchorSpec =
  { kind: 'project'; project: string } | { kind: 'selector'; pairs: [string, string][] };

const anchorSpec: fc.Arbitrary<AnchorSpec> = fc.oneof(
  fc.constantFrom('p', 'q').map((project): AnchorSpec => ({ kind: 'project', project })),
  fc
    .uniqueArray(fc.constantFrom(...Object.keys(ALPHABET)), { minLength: 1, maxLength: 3 })
    .chain((keys) =>
      fc.tuple(
        ...keys.map((key) =>
          fc.constantFrom(...(ALPHABET[key] as string[])).map((v) => [key, v] as [string, string]),
        ),
      ),
    )
    .map((pairs): AnchorSpec => ({ kind: 'selector', pairs })),
);

function scopeOf(spec: AnchorSpec): Selector {
  return parseEqualityList(
    spec.kind === 'project'
      ? `${PROJECT_KEY}=${spec.project}`
      : spec.pairs.map(([k, v]) => `${k}=${v}`).join(','),
  );
}

function composeText(specs: readonly AnchorSpec[]): string {
  const services = specs.map((spec, i) => {
    const env =
      spec.kind === 'project'
        ? `ANCHORD_PROJECT: ${spec.project}`
        : `ANCHORD_LABEL_SELECTOR: ${JSON.stringify(spec.pairs.map(([k, v]) => `${k}=${v}`).join(','))}`;
    return `  anchor${i}:\n    environment:\n      ${env}\n`;
  });
  return `name: p\nservices:\n${services.join('')}`;
}

test('property: check reports an overlap exactly when a brute-force search finds a container both anchors claim', () => {
  fc.assert(
    fc.property(fc.array(anchorSpec, { minLength: 2, maxLength: 4 }), (specs) => {
      const report = checkFiles({ 'compose.yaml': composeText(specs) }, { directoryName: 'p' });
      const scopes = specs.map(scopeOf);
      const claims = (i: number, labels: Labels): boolean =>
        matches(scopes[i] as Selector, labels) && isBackend(labels);
      const expected: string[] = [];
      for (let i = 0; i < specs.length; i++)
        for (let j = i + 1; j < specs.length; j++)
          if (UNIVERSE.some((labels) => claims(i, labels) && claims(j, labels)))
            expected.push(`anchor${i}|anchor${j}`);
      assert.deepEqual(
        report.overlaps.map((o) => `${o.a}|${o.b}`),
        expected,
      );
      for (const o of report.overlaps) {
        const i = Number(o.a.slice('anchor'.length));
        const j = Number(o.b.slice('anchor'.length));
        assert.ok(
          claims(i, o.witness) && claims(j, o.witness),
          `witness ${JSON.stringify(o.witness)}`,
        );
      }
      assert.equal(
        report.errors.filter((e) => e.code === 'ANCHOR_SCOPE_OVERLAP').length,
        expected.length,
      );
      assert.deepEqual(
        report.errors.filter((e) => e.code !== 'ANCHOR_SCOPE_OVERLAP'),
        [],
      );
    }),
    { numRuns: 300 },
  );
});
