// docs/selector.md, "Docker label filters": Docker label filters — the server part plus a residual the caller applies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  NOTHING,
  EVERYTHING,
  formatSelector,
  labelsFrom,
  matches,
  parseDockerFilterText,
  parseEqualityList,
  parseSelector,
  requirement,
  selectorOf,
  toDockerFilters,
} from '../../src/selector/index.js';
import type { Labels, Selector } from '../../src/selector/index.js';
import { expectError, rows } from './helpers.js';
import { dockerServerMatches } from './docker-oracle.js';

interface FilterCase {
  name: string;
  selector: Selector;
  server: string[];
  residual: string;
}

const docker = (text: string): Selector => parseSelector(text, { profile: 'docker' });

const cases: FilterCase[] = [
  { name: 'Docker filter: Exists → label=k', selector: docker('a'), server: ['a'], residual: '' },
  {
    name: 'Docker filter: single In → label=k=v',
    selector: docker('a=1'),
    server: ['a=1'],
    residual: '',
  },
  {
    name: 'Docker filter: the empty value → label=k=',
    selector: docker('a='),
    server: ['a='],
    residual: '',
  },
  {
    name: 'Docker filter: multi-value In stays client-side',
    selector: docker('a in (1,2)'),
    server: [],
    residual: 'a in (1,2)',
  },
  {
    name: 'Docker filter: NotIn stays client-side',
    selector: docker('a!=1'),
    server: [],
    residual: 'a!=1',
  },
  {
    name: 'Docker filter: DoesNotExist stays client-side',
    selector: docker('!a'),
    server: [],
    residual: '!a',
  },
  {
    name: 'Docker filter: mixed selector splits',
    selector: docker('a,b=1,c in (1,2),d!=1,!e'),
    server: ['a', 'b=1'],
    residual: 'c in (1,2),d!=1,!e',
  },
  {
    name: 'Docker filter: values may contain = (Docker splits at the first =)',
    selector: parseEqualityList('a=b=c'),
    server: ['a=b=c'],
    residual: '',
  },
  {
    name: 'Docker filter: a key containing = stays client-side (Exists)',
    selector: selectorOf([requirement('a=b', 'Exists')]),
    server: [],
    residual: 'a=b',
  },
  {
    name: 'Docker filter: a key containing = stays client-side (In)',
    selector: selectorOf([requirement('a=b', 'In', ['c'])]),
    server: [],
    residual: 'a=b=c',
  },
  {
    name: 'Docker filter: seed 000 project filter',
    selector: parseEqualityList('com.docker.compose.project=ix-mailcow,anchord.team=front'),
    server: ['anchord.team=front', 'com.docker.compose.project=ix-mailcow'],
    residual: '',
  },
  {
    name: 'Docker filter: Everything sends nothing',
    selector: EVERYTHING,
    server: [],
    residual: '',
  },
];

for (const c of cases) {
  test(c.name, () => {
    const filters = toDockerFilters(c.selector);
    assert.deepEqual(filters.server, { label: c.server });
    assert.equal(formatSelector(filters.residual), c.residual);
  });
}

test('Docker filter: Nothing sends no filter and keeps Nothing as the residual', () => {
  const filters = toDockerFilters(NOTHING);
  assert.deepEqual(filters.server, { label: [] });
  assert.equal(filters.residual, NOTHING);
});

test('Docker filter: server ∧ residual ≡ selector on tricky containers (never drops a match)', () => {
  const selectors = [
    selectorOf([requirement('a=b', 'In', ['c'])]),
    selectorOf([requirement('a', 'In', ['b=c'])]),
    selectorOf([requirement('a=b', 'Exists'), requirement('a', 'In', ['b'])]),
    docker('a in (,x),b!=,c='),
    docker('a,!b,c notin (x)'),
  ];
  const containers: Labels[] = [
    labelsFrom({}),
    labelsFrom({ 'a=b': 'c' }),
    labelsFrom({ a: 'b=c' }),
    labelsFrom({ a: 'b', 'a=b': '' }),
    labelsFrom({ a: '', b: '', c: '' }),
    labelsFrom({ a: 'x', c: '' }),
    labelsFrom({ a: 'y', b: 'x', c: 'x' }),
  ];
  for (const selector of selectors) {
    const { server, residual } = toDockerFilters(selector);
    for (const labels of containers) {
      const kept = dockerServerMatches(server.label, labels) && matches(residual, labels);
      assert.equal(
        kept,
        matches(selector, labels),
        `${formatSelector(selector)} on ${JSON.stringify(labels)}`,
      );
    }
  }
});

test('Docker filter: parseDockerFilterText reads terms and filter JSON', () => {
  assert.deepEqual(rows(parseDockerFilterText('label=a=1, b')), [
    ['a', 'In', ['1']],
    ['b', 'Exists', []],
  ]);
  assert.deepEqual(rows(parseDockerFilterText('{"label": ["x=y=z", "w"]}')), [
    ['w', 'Exists', []],
    ['x', 'In', ['y=z']],
  ]);
  assert.deepEqual(rows(parseDockerFilterText('  ')), 'everything');
  assert.deepEqual(rows(parseDockerFilterText('a=')), [['a', 'In', ['']]]);
  expectError(() => parseDockerFilterText('=x'), { code: 'SELECTOR_INVALID_DOCKER_FILTER' });
  expectError(() => parseDockerFilterText('{"label": "a"}'), {
    code: 'SELECTOR_INVALID_DOCKER_FILTER',
  });
  expectError(() => parseDockerFilterText('{"status": ["running"], "label": []}'), {
    code: 'SELECTOR_INVALID_DOCKER_FILTER',
  });
  expectError(() => parseDockerFilterText('{"label": [1]}'), {
    code: 'SELECTOR_INVALID_DOCKER_FILTER',
  });
  expectError(() => parseDockerFilterText('{nope'), { code: 'SELECTOR_INVALID_DOCKER_FILTER' });
});
