// Fleet.exclude globs (spec: Repository and discovery): segment-wise matching, `**`, a matched
// directory excluding everything below it, and patterns from a hostile repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_ALTERNATIVES,
  excludeMatcher,
  excludePatternProblem,
} from '../../src/fleet/documents/exclude-globs.js';
import { FLEET, fleetOf, host } from './helpers.js';

const rows: { pattern: string; path: string; excluded: boolean }[] = [
  { pattern: 'drafts', path: 'drafts/a/b.yaml', excluded: true },
  { pattern: 'drafts', path: 'x/drafts/b.yaml', excluded: false },
  { pattern: 'drafts/*.yaml', path: 'drafts/a.yaml', excluded: true },
  { pattern: 'drafts/*.yaml', path: 'drafts/sub/a.yaml', excluded: false },
  { pattern: '*', path: '.hidden/x.yaml', excluded: true },
  { pattern: '**/wip-*.yaml', path: 'wip-1.yaml', excluded: true },
  { pattern: '**/wip-*.yaml', path: 'a/b/c/wip-1.yaml', excluded: true },
  { pattern: 'a/**/z.yaml', path: 'a/z.yaml', excluded: true },
  { pattern: 'a/**/z.yaml', path: 'a/b/c/z.yaml', excluded: true },
  { pattern: 'a/**/z.yaml', path: 'b/z.yaml', excluded: false },
  { pattern: 'drafts/**', path: 'drafts/x.yaml', excluded: true },
  { pattern: '**', path: 'anything/at/all.yaml', excluded: true },
  { pattern: 'l?yers/x', path: 'layers/x/y.yaml', excluded: true },
  { pattern: 'l?yers', path: 'l/yers/y.yaml', excluded: false },
  { pattern: '[ab]*.yaml', path: 'b1.yaml', excluded: true },
  { pattern: '[a-c]*.yaml', path: 'd1.yaml', excluded: false },
  { pattern: '[!a]*.yaml', path: 'b1.yaml', excluded: true },
  { pattern: '[^a]*.yaml', path: 'a1.yaml', excluded: false },
  { pattern: '{drafts,wip}/**', path: 'wip/x.yaml', excluded: true },
  { pattern: 'host-{1..3}.yaml', path: 'host-2.yaml', excluded: true },
  { pattern: 'host-{1..3}.yaml', path: 'host-4.yaml', excluded: false },
  { pattern: 'a{b}', path: 'a{b}', excluded: true },
  { pattern: 'a\\*', path: 'a*', excluded: true },
  { pattern: 'a\\*', path: 'ab', excluded: false },
  { pattern: '[ab', path: '[ab', excluded: true },
  { pattern: './drafts/', path: 'drafts/x.yaml', excluded: true },
  { pattern: 'wip**', path: 'wip/x.yaml', excluded: true },
  { pattern: 'wip**', path: 'wipe.yaml', excluded: true },
];

for (const row of rows)
  test(`exclude: ${row.pattern} ${row.excluded ? 'excludes' : 'keeps'} ${row.path}`, () => {
    assert.equal(excludeMatcher([row.pattern])(row.path), row.excluded);
  });

// regression: picomatch compiles `*a*a*…*b` to a backtracking RegExp that takes exponential time
// on a long name, so one line in fleet.yaml could hang validate. The timeout only turns such a
// hang into a failure; it asserts nothing about speed.
test('exclude: a pathological pattern against a long name finishes', { timeout: 30_000 }, () => {
  const pattern = `${'*a'.repeat(20)}*b`;
  assert.equal(excludeMatcher([pattern])('a'.repeat(200)), false);
  assert.equal(excludeMatcher([pattern])(`${'a'.repeat(200)}b`), true);
  const fleet = fleetOf({
    'fleet.yaml': `${FLEET}exclude:\n  - "${pattern}"\n`,
    [`${'a'.repeat(120)}.yaml`]: host('h'),
  });
  assert.deepEqual(
    fleet.hosts.map((h) => h.name),
    ['h'],
  );
});

test('exclude: a brace bomb is refused with its line, not expanded', () => {
  const bomb = '{a,b}'.repeat(20);
  assert.equal(
    excludePatternProblem(bomb),
    `expands to more than ${MAX_ALTERNATIVES} alternatives`,
  );
  assert.equal(excludeMatcher([bomb])('a'.repeat(20)), false);
  const fleet = fleetOf({ 'fleet.yaml': `${FLEET}exclude:\n  - drafts\n  - "${bomb}"\n` });
  assert.deepEqual(
    fleet.problems.map((p) => `${p.file}:${p.line} ${p.code} ${p.message}`),
    [
      `fleet.yaml:6 FLEET_INVALID_FIELD exclude pattern "${bomb}" expands to more than ${MAX_ALTERNATIVES} alternatives`,
    ],
  );
  assert.equal(
    excludePatternProblem('{1..100000}'),
    `expands to more than ${MAX_ALTERNATIVES} alternatives`,
  );
});
