// Property: layer selection through the selector index equals testing every matcher against the
// host (the naive scan), for random fleets of match blocks and label sets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { matches } from '../../src/selector/index.js';
import { hostLabels, prepareFleet } from '../../src/fleet/index.js';
import { selectLayers } from '../../src/fleet/resolve/prepare.js';
import { FLEET, fleetOf, host, layer } from './helpers.js';

const key = fc.constantFrom('role', 'site', 'env', 'tier', 'datum/host');
const value = fc.constantFrom('a', 'b', 'c', 'h0', 'h1');
const form = fc.oneof(
  fc.tuple(key, value).map(([k, v]) => `  labels:\n    ${k}: ${v}\n`),
  fc
    .tuple(key, fc.uniqueArray(value, { maxLength: 3 }))
    .map(([k, vs]) => `  oneOf:\n    ${k}: [${vs.join(', ')}]\n`),
  fc
    .tuple(key, fc.uniqueArray(value, { minLength: 1, maxLength: 3 }))
    .map(([k, vs]) => `  noneOf:\n    ${k}: [${vs.join(', ')}]\n`),
  key.map((k) => `  has:\n    - ${k}\n`),
  key.map((k) => `  missing:\n    - ${k}\n`),
);
// One block per form kind at most (a YAML mapping cannot repeat a key).
const matcher = fc
  .uniqueArray(form, { maxLength: 3, selector: (text) => text.split(':')[0] as string })
  .map((forms) => (forms.length === 0 ? undefined : forms.join('')));
const labels = fc.dictionary(fc.constantFrom('role', 'site', 'env', 'tier'), value, { maxKeys: 4 });

test('indexed layer selection equals testing every matcher', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(matcher, fc.integer({ min: -2, max: 2 })), { maxLength: 12 }),
      fc.array(labels, { minLength: 1, maxLength: 5 }),
      (layers, hostLabelSets) => {
        const files: Record<string, string | string[]> = { 'fleet.yaml': FLEET };
        layers.forEach(
          ([match, precedence], i) =>
            (files[`l${i}/layer.yaml`] = layer(`l${i}`, precedence, match)),
        );
        files['hosts.yaml'] = hostLabelSets.map((set, i) => host(`h${i}`, set));
        const fleet = fleetOf(files);
        assert.deepEqual(
          fleet.problems.filter((p) => p.severity === 'error'),
          [],
        );
        const prepared = prepareFleet(fleet);
        for (const h of fleet.hosts) {
          const set = hostLabels(h);
          const scanned = fleet.layers
            .map((l, i) => (matches(l.selector, set) ? i : -1))
            .filter((i) => i >= 0);
          assert.deepEqual(selectLayers(prepared, set), scanned);
        }
      },
    ),
    { numRuns: 200 },
  );
});
