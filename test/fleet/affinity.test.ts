// Handing out hosts by affinity: every host once, and workers that keep to their own layers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AffinityScheduler, affinityBatches } from '../../src/fleet/resolve/affinity.js';
import type { AffinityBatch } from '../../src/fleet/resolve/affinity.js';

/**
 * A fleet shaped like most: one base layer, a layer per environment (3), per role (40) and per
 * environment × role (120), each host selecting one of each; role layers are the large ones.
 */
function roleFleet(hosts: number): { selected: number[][]; cost: number[] } {
  const selected: number[][] = [];
  for (let h = 0; h < hosts; h++) {
    const env = (h * 7) % 3;
    const role = (h * 13) % 40;
    selected.push([0, 1 + env, 4 + role, 44 + env * 40 + role]);
  }
  const cost = Array.from({ length: 164 }, (_, p) => (p >= 4 && p < 44 ? 40 : 10));
  return { selected, cost };
}

/** Workers asking in turn, as they would if every batch took as long; the cost each ends up holding. */
function heldCost(
  batches: readonly AffinityBatch[],
  cost: readonly number[],
  workers: number,
  next: (worker: number) => AffinityBatch | undefined,
): { held: number[]; handed: number[] } {
  const held = Array.from({ length: workers }, () => new Set<number>());
  const handed: number[] = [];
  for (let turn = 0; ; turn++) {
    const batch = next(turn % workers);
    if (batch === undefined) break;
    handed.push(batch.id);
    for (const p of batch.layers) held[turn % workers]?.add(p);
  }
  assert.equal(handed.length, batches.length);
  return {
    held: held.map((set) => [...set].reduce((sum, p) => sum + (cost[p] as number), 0)),
    handed,
  };
}

test('batches hold every host once, at most `size` each, with the layers they select', () => {
  const { selected } = roleFleet(1000);
  const batches = affinityBatches(selected, 64);
  const seen = batches.flatMap((b) => b.hosts);
  assert.deepEqual(
    [...seen].sort((a, b) => a - b),
    selected.map((_, i) => i),
  );
  for (const batch of batches) {
    assert.ok(batch.hosts.length <= 64 && batch.hosts.length > 0);
    const layers = new Set(batch.hosts.flatMap((h) => selected[h] as number[]));
    assert.deepEqual(new Set(batch.layers), layers);
  }
  assert.deepEqual(
    batches.map((b) => b.id),
    batches.map((_, i) => i),
  );
});

test('hosts that share their most specific layer are batched side by side', () => {
  const { selected } = roleFleet(1200);
  // 1,200 hosts over 120 environment × role layers: 10 hosts each, so a batch of 10 is one group.
  const batches = affinityBatches(selected, 10);
  for (const batch of batches) {
    const specific = new Set(batch.hosts.map((h) => (selected[h] as number[])[3]));
    assert.equal(specific.size, 1, `batch ${batch.id} mixes ${[...specific].join(', ')}`);
  }
});

test('every batch is handed out once, then none', () => {
  const { selected, cost } = roleFleet(500);
  const batches = affinityBatches(selected, 16);
  const scheduler = new AffinityScheduler(batches, cost, 3);
  const { handed } = heldCost(batches, cost, 3, (w) => scheduler.next(w));
  assert.deepEqual(
    [...handed].sort((a, b) => a - b),
    batches.map((b) => b.id),
  );
  assert.equal(scheduler.next(0), undefined);
  assert.equal(new AffinityScheduler([], cost, 2).next(1), undefined);
});

test('with affinity, 8 workers hold far less than 8 copies of the layers', () => {
  const { selected, cost } = roleFleet(20000);
  const batches = affinityBatches(selected, 256);
  const total = cost.reduce((a, b) => a + b, 0);
  const scheduler = new AffinityScheduler(batches, cost, 8);
  const affine = heldCost(batches, cost, 8, (w) => scheduler.next(w)).held;
  // The same hosts in batches of host order, handed out in turn: what workers held before.
  const byHostOrder: AffinityBatch[] = [];
  for (let start = 0; start < selected.length; start += 256) {
    const hosts = selected.map((_, i) => i).slice(start, start + 256);
    const layers = [...new Set(hosts.flatMap((h) => selected[h] as number[]))];
    byHostOrder.push({ id: byHostOrder.length, hosts, layers });
  }
  let turn = 0;
  const plain = heldCost(byHostOrder, cost, 8, () => byHostOrder[turn++]).held;
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  assert.ok(sum(plain) > 7 * total, `in host order: ${sum(plain) / total} copies`);
  assert.ok(sum(affine) < 2 * total, `by affinity: ${sum(affine) / total} copies`);
});

test('a worker is given the waiting batch that adds least to what it holds', () => {
  // Batch 0 and 2 share layer 1; batch 1 would add the costly layer 2.
  const batches: AffinityBatch[] = [
    { id: 0, hosts: [0], layers: [0, 1] },
    { id: 1, hosts: [1], layers: [0, 2] },
    { id: 2, hosts: [2], layers: [1, 3] },
  ];
  const cost = [1, 100, 50, 1];
  const scheduler = new AffinityScheduler(batches, cost, 2);
  assert.equal(scheduler.next(0)?.id, 0, 'worker 0 starts at the beginning');
  assert.equal(scheduler.next(1)?.id, 1, 'worker 1 starts half way');
  assert.equal(scheduler.next(1)?.id, 2, 'the only batch left');
  const again = new AffinityScheduler(batches, cost, 2);
  again.next(0);
  assert.equal(again.next(0)?.id, 2, 'adds 1 (layer 3), where batch 1 adds 50');
});
