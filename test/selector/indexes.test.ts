// docs/selector.md, "Indexes": the two indexes on hand-picked cases (the properties compare them to a scan).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EVERYTHING,
  LabelIndex,
  NOTHING,
  SelectorIndex,
  labelsFrom,
  matches,
  parseSelector,
} from '../../src/selector/index.js';
import { plain } from './helpers.js';

test('index: SelectorIndex: positive postings, vetoes, side list, insertion order', () => {
  const index = new SelectorIndex<string>();
  index.add('web', parseSelector('role=web'));
  index.add('prod-web', parseSelector('role=web,env=prod'));
  index.add('not-legacy', parseSelector('tier!=legacy')); // no positive requirement: side list
  index.add('monitored', parseSelector('monitoring'));
  index.add('web-or-cache', parseSelector('role in (web,cache),!decommissioned'));
  index.add('all', EVERYTHING);
  assert.deepEqual(index.match(labelsFrom({ role: 'web', env: 'prod' })), [
    'web',
    'prod-web',
    'not-legacy',
    'web-or-cache',
    'all',
  ]);
  assert.deepEqual(
    index.match(labelsFrom({ role: 'cache', tier: 'legacy', monitoring: '', decommissioned: 'y' })),
    ['monitored', 'all'],
  );
  assert.deepEqual(index.match(labelsFrom({})), ['not-legacy', 'all']);
  assert.equal(index.size, 6);
});

test('index: SelectorIndex: unsatisfiable selectors are flagged at insert and never returned', () => {
  const index = new SelectorIndex<string>();
  assert.equal(index.add('dead', parseSelector('a=1,a=2')), false);
  assert.equal(index.add('nothing', NOTHING), false);
  assert.equal(index.add('live', parseSelector('a=1')), true);
  assert.deepEqual([...index.unsatisfiable], ['dead', 'nothing']);
  assert.deepEqual(index.match(labelsFrom({ a: '1' })), ['live']);
  assert.deepEqual(index.ids(), ['live']);
  assert.equal(index.size, 3);
  assert.equal(index.remove('dead'), true);
  assert.equal(index.remove('dead'), false);
  assert.equal(index.size, 2);
});

test('index: SelectorIndex: add replaces, remove forgets every posting', () => {
  const index = new SelectorIndex<number>();
  index.add(1, parseSelector('a=1,b'));
  index.add(2, parseSelector('a in (1,2)'));
  index.add(1, parseSelector('c')); // replaces, moves to the end
  assert.deepEqual(index.match(labelsFrom({ a: '1', b: '', c: '' })), [2, 1]);
  assert.equal(index.remove(2), true);
  assert.deepEqual(index.match(labelsFrom({ a: '2' })), []);
  assert.equal(index.remove(1), true);
  assert.deepEqual(index.match(labelsFrom({ c: '' })), []);
  assert.equal(index.size, 0);
});

test('index: SelectorIndex: same key twice in one selector counts both requirements', () => {
  const index = new SelectorIndex<string>();
  index.add('both', parseSelector('a in (1,2),a in (2,3)'));
  index.add('dup', parseSelector('a=1,a=1'));
  index.add('exists-and-value', parseSelector('a,a=2'));
  assert.deepEqual(index.match(labelsFrom({ a: '2' })), ['both', 'exists-and-value']);
  assert.deepEqual(index.match(labelsFrom({ a: '1' })), ['dup']);
});

test('index: SelectorIndex: hostile label keys', () => {
  const index = new SelectorIndex<string>();
  index.add('proto', parseSelector('__proto__=x', { profile: 'docker' }));
  index.add('ctor', parseSelector('!constructor', { profile: 'docker' }));
  assert.deepEqual(index.match(labelsFrom([['__proto__', 'x']])), ['proto', 'ctor']);
  assert.deepEqual(index.match({}), ['ctor']);
  assert.deepEqual(index.match(labelsFrom([['constructor', 'y']])), []);
});

test('index: SelectorIndex: each selector is posted under one term, re-planned as the index grows', () => {
  const index = new SelectorIndex<string>();
  const scan: [string, ReturnType<typeof parseSelector>][] = [];
  const put = (id: string, text: string): void => {
    const selector = parseSelector(text);
    index.add(id, selector);
    scan.push([id, selector]);
  };
  // Broad terms first: the plan made now posts these under `env`, before any role is known.
  put('prod-web', 'env=prod,role=web');
  put('prod-db', 'env=prod,role=db');
  const probes = [
    labelsFrom({ env: 'prod', role: 'web' }),
    labelsFrom({ env: 'dev', role: 'db', tier: 't6' }),
    labelsFrom({ role: 'db', tier: 't1' }),
    labelsFrom({ env: 'prod', role: 'cache', monitoring: '' }),
  ];
  const check = (): void => {
    for (const labels of probes)
      assert.deepEqual(
        index.match(labels),
        scan.filter(([id, s]) => matches(s, labels) && index.ids().includes(id)).map(([id]) => id),
      );
  };
  check();
  // Many roles and tiers arrive (some queued while none is asked), then a re-plan.
  for (let i = 0; i < 20; i++) put(`role-${i}`, `role=r${i},env in (prod,dev)`);
  put('tiers', 'tier in (t1,t2,t3,t4,t5,t6),!decommissioned');
  put('monitored', 'monitoring,env=prod');
  check();
  assert.equal(index.remove('role-3'), true);
  put('late', 'role=db');
  assert.equal(index.remove('late'), true); // removed before any query posted it
  check();
  assert.deepEqual(index.match(probes[1] as ReturnType<typeof labelsFrom>), ['tiers']);
});

test('index: LabelIndex: postings intersect, negatives filter, insertion order', () => {
  const index = new LabelIndex<string>();
  index.add('web-1', labelsFrom({ role: 'web', env: 'prod', site: 'london' }));
  index.add('web-2', labelsFrom({ role: 'web', env: 'dev' }));
  index.add('db-1', labelsFrom({ role: 'db', env: 'prod', legacy: '' }));
  index.add('bare', labelsFrom({}));
  assert.deepEqual(index.select(parseSelector('role=web')), ['web-1', 'web-2']);
  assert.deepEqual(index.select(parseSelector('env=prod,role in (web,db),!legacy')), ['web-1']);
  assert.deepEqual(index.select(parseSelector('env!=prod')), ['web-2', 'bare']);
  assert.deepEqual(index.select(parseSelector('legacy')), ['db-1']);
  assert.deepEqual(index.select(parseSelector('site=paris')), []);
  assert.deepEqual(index.select(parseSelector('nokey')), []);
  assert.deepEqual(index.select(EVERYTHING), ['web-1', 'web-2', 'db-1', 'bare']);
  assert.deepEqual(index.select(NOTHING), []);
});

test('index: LabelIndex: add copies and replaces, remove forgets', () => {
  const index = new LabelIndex<string>();
  const labels: Record<string, string> = { a: '1' };
  index.add('x', labels);
  labels.a = '2'; // the index holds its own copy
  assert.deepEqual(index.select(parseSelector('a=1')), ['x']);
  assert.deepEqual(plain(index.get('x')!), { a: '1' });
  index.add('y', labelsFrom({ a: '1' }));
  index.add('x', labelsFrom({ a: '3' }));
  assert.deepEqual(index.select(parseSelector('a=1')), ['y']);
  assert.deepEqual(index.ids(), ['y', 'x']);
  assert.equal(index.remove('y'), true);
  assert.equal(index.remove('y'), false);
  assert.deepEqual(index.select(parseSelector('a')), ['x']);
  assert.equal(index.get('y'), undefined);
  assert.equal(index.size, 1);
});

test('index: LabelIndex: hostile label keys', () => {
  const index = new LabelIndex<string>();
  index.add('p', labelsFrom([['__proto__', 'x']]));
  index.add('c', labelsFrom([['constructor', 'y']]));
  index.add('plain', {});
  assert.deepEqual(index.select(parseSelector('__proto__', { profile: 'docker' })), ['p']);
  assert.deepEqual(index.select(parseSelector('!constructor', { profile: 'docker' })), [
    'p',
    'plain',
  ]);
  assert.deepEqual(index.select(parseSelector('toString', { profile: 'docker' })), []);
});

test('index: LabelIndex: large candidate sets (compiled path) equal the scan', () => {
  const index = new LabelIndex<number>();
  const all: Record<string, string>[] = [];
  for (let id = 0; id < 2_000; id++) {
    const labels: Record<string, string> = {
      env: id % 3 === 0 ? 'prod' : 'dev',
      n: String(id % 7),
    };
    if (id % 5 === 0) labels.canary = '';
    all.push(labels);
    index.add(id, labelsFrom(labels));
  }
  for (const text of [
    'env=prod,!canary',
    'env in (prod,dev),n notin (1,2)',
    'env,canary',
    'n!=3',
  ]) {
    const selector = parseSelector(text);
    const want = all.flatMap((labels, id) => (matches(selector, labelsFrom(labels)) ? [id] : []));
    assert.deepEqual(index.select(selector), want, text);
  }
});
