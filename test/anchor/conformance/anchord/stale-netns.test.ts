// anchord's dead-netns detection (stale-netns.json names each upstream test), and the report
// `doctor stale-netns` prints from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  findStaleNetns,
  firstName,
  staleNetnsReport,
} from '../../../../src/anchor/rebinder/stale-netns.js';
import type { WrapContainer } from '../../../../src/anchor/rebinder/wrap-target-pool.js';

interface Case {
  readonly name: string;
  readonly upstream: { readonly file: string; readonly test: string };
}
const data = JSON.parse(readFileSync(new URL('stale-netns.json', import.meta.url), 'utf8')) as {
  find: (Case & {
    all: WrapContainer[];
    candidates: WrapContainer[] | null;
    want: { id: string; staleTarget: string; composeHint: string }[];
  })[];
  firstName: (Case & { container: { id: string; names: string[] }; want: string })[];
};

for (const c of data.find) {
  test(`anchord ${c.upstream.file} ${c.upstream.test}: ${c.name}`, () => {
    const got = findStaleNetns(c.candidates ?? c.all, c.all);
    assert.deepEqual(
      got.map((s) => ({
        id: s.container.id,
        staleTarget: s.staleTarget,
        composeHint: s.composeHint,
      })),
      c.want,
    );
  });
}

for (const c of data.firstName) {
  test(`anchord ${c.upstream.file} ${c.upstream.test}: ${c.name}`, () =>
    assert.equal(firstName(c.container), c.want));
}

test('every stale-netns case names its upstream test', () => {
  assert.equal(data.find.length + data.firstName.length, 13);
  for (const c of [...data.find, ...data.firstName]) assert.match(c.upstream.test, /^Test/);
});

test('doctor stale-netns report: grouped by dead target, sorted, with hints (main.go printStaleReport)', () => {
  const c = (id: string, name: string, ref: string, service = ''): WrapContainer => ({
    id,
    names: [`/${name}`],
    networkMode: `container:${ref}`,
    labels:
      service === ''
        ? {}
        : { 'com.docker.compose.project': 'p', 'com.docker.compose.service': service },
  });
  const all = [
    c('1', 'zeta', 'dead-b'),
    c('2', 'beta', 'dead-a', 'web'),
    c('3', 'alpha', 'dead-b'),
  ];
  assert.equal(
    staleNetnsReport(findStaleNetns(all, all)),
    [
      'Found 3 dependent(s) in dead netns across 2 target(s):',
      '',
      '  dead target: dead-a  (1 victim(s))',
      '    beta',
      '      → docker compose -p p up -d --no-deps --force-recreate web',
      '',
      '  dead target: dead-b  (2 victim(s))',
      '    alpha',
      '    zeta',
      '',
      '',
    ].join('\n'),
  );
  assert.equal(staleNetnsReport([]), 'No dead-netns dependents found.\n');
});
