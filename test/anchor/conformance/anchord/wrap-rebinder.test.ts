// anchord's wrap-rebinder decisions, as data (wrap-rebinder.json names each upstream test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  buildTargetPool,
  driftedAnchors,
  findReferenced,
  onStart,
  resolveTargetName,
} from '../../../../src/anchor/rebinder/wrap-target-pool.js';
import type {
  OrphanAnchor,
  Recreate,
  StartEvent,
  WrapContainer,
} from '../../../../src/anchor/rebinder/wrap-target-pool.js';

interface Case {
  readonly name: string;
  readonly upstream: { readonly file: string; readonly test: string };
}
type PoolJson = Record<string, string[]>;

const data = JSON.parse(readFileSync(new URL('wrap-rebinder.json', import.meta.url), 'utf8')) as {
  targetPool: (Case & {
    containers: WrapContainer[];
    selfProject: string;
    selfId: string;
    wantPool: PoolJson;
    wantOrphans: OrphanAnchor[];
  })[];
  resolveTargetName: (Case & { containers: WrapContainer[]; ref: string; want: string })[];
  resolveContainerByName: (Case & { containers: WrapContainer[]; ref: string; want: string })[];
  recheck: (Case & { containers: WrapContainer[]; pool: PoolJson; want: Recreate[] })[];
  onStart: (Case & {
    pool: PoolJson;
    event: StartEvent;
    selfProject: string;
    want: { recreate: Recreate[]; reenumerate: boolean };
  })[];
};

function title(c: Case): string {
  return `anchord ${c.upstream.file} ${c.upstream.test}: ${c.name}`;
}

function poolOf(json: PoolJson): Map<string, string[]> {
  return new Map(Object.entries(json));
}

for (const c of data.targetPool) {
  test(title(c), () => {
    const { pool, orphans } = buildTargetPool(c.containers, c.selfProject, c.selfId);
    assert.deepEqual(Object.fromEntries(pool), c.wantPool);
    assert.deepEqual(orphans, c.wantOrphans);
  });
}

for (const c of data.resolveTargetName) {
  test(title(c), () => assert.equal(resolveTargetName(c.containers, c.ref), c.want));
}

for (const c of data.resolveContainerByName) {
  test(title(c), () => assert.equal(findReferenced(c.containers, c.ref)?.id ?? '', c.want));
}

for (const c of data.recheck) {
  test(title(c), () => assert.deepEqual(driftedAnchors(poolOf(c.pool), c.containers), c.want));
}

for (const c of data.onStart) {
  test(title(c), () => assert.deepEqual(onStart(poolOf(c.pool), c.event, c.selfProject), c.want));
}

test('every wrap-rebinder case names its upstream test', () => {
  const all: Case[] = [
    ...data.targetPool,
    ...data.resolveTargetName,
    ...data.resolveContainerByName,
    ...data.recheck,
    ...data.onStart,
  ];
  assert.equal(all.length, 19);
  for (const c of all) assert.match(c.upstream.test, /^Test/);
});
