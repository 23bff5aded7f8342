// The merge rules on their own, over nested trees (spec: Resolution step 4), including the shape
// mismatch that the nine resource types' flat `desired` never produces through documents.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeValue, plainValue } from '../../src/fleet/resolve/merge-rules.js';
import type { Conflict, MergeNode, MergeSource } from '../../src/fleet/resolve/merge-rules.js';
import type { DesiredValue } from '../../src/fleet/model.js';

const src = (layer: string, precedence: number): MergeSource => ({
  layer,
  precedence,
  file: `${layer}.yaml`,
  line: 1,
});

function fold(steps: [DesiredValue, MergeSource][]): {
  node: MergeNode | undefined;
  conflicts: Conflict[];
} {
  const conflicts: Conflict[] = [];
  let node: MergeNode | undefined;
  for (const [value, source] of steps)
    node = mergeValue(node, value, source, 'x', (c) => conflicts.push(c));
  return { node, conflicts };
}

test('maps merge key by key, recursively', () => {
  const { node, conflicts } = fold([
    [{ a: '1', b: { c: '2', d: '3' } }, src('low', 0)],
    [{ b: { d: '4' }, e: '5' }, src('high', 10)],
  ]);
  assert.deepEqual(conflicts, []);
  assert.deepEqual(JSON.parse(JSON.stringify(plainValue(node as MergeNode))), {
    a: '1',
    b: { c: '2', d: '4' },
    e: '5',
  });
});

test('scalar vs map at equal precedence conflicts (scalar first)', () => {
  const { conflicts, node } = fold([
    ['flat', src('a', 5)],
    [{ nested: 'x' }, src('b', 5)],
  ]);
  assert.equal(conflicts.length, 1);
  assert.deepEqual(conflicts[0]?.existing, { layer: 'a', value: 'flat' });
  assert.equal(conflicts[0]?.incoming.layer, 'b');
  assert.equal(node?.kind, 'map');
});

test('map vs scalar at equal precedence conflicts (map first)', () => {
  const { conflicts } = fold([
    [{ nested: 'x' }, src('a', 5)],
    ['flat', src('b', 5)],
  ]);
  assert.equal(conflicts.length, 1);
  assert.equal(conflicts[0]?.existing.layer, 'a');
});

test('a shape change at higher precedence replaces and records what it displaced', () => {
  const { conflicts, node } = fold([
    [{ nested: 'x' }, src('a', 5)],
    ['flat', src('b', 6)],
  ]);
  assert.deepEqual(conflicts, []);
  assert.equal(node?.kind, 'leaf');
  assert.equal(node?.displaced?.[0]?.layer, 'a');
});

test('lists replace and compare item by item as text', () => {
  const same = fold([
    [['1', '2'], src('a', 5)],
    [['1', '2'], src('b', 5)],
  ]);
  assert.deepEqual(same.conflicts, []);
  const different = fold([
    [['1', '2'], src('a', 5)],
    [['2', '1'], src('b', 5)],
  ]);
  assert.equal(different.conflicts.length, 1);
});

test('numbers and their text are equal values', () => {
  assert.deepEqual(
    fold([
      [1, src('a', 5)],
      ['1', src('b', 5)],
    ]).conflicts,
    [],
  );
});

test('an equal value from a higher layer displaces nothing: the field keeps its first source', () => {
  const { node } = fold([
    ['0640', src('a', 5)],
    ['0640', src('b', 6)],
  ]);
  assert.equal(node?.kind === 'leaf' ? node.source.layer : undefined, 'a');
  assert.equal(node?.displaced, undefined);
});
