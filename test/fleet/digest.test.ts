// Digest stability (spec: Resolution step 7).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shortDigest } from '../../src/fleet/index.js';
import { FLEET, doc, host, layer, resolveIn } from './helpers.js';

const h = { 'h.yaml': host('web-001', { role: 'web' }) };
const pkgA = doc('Package', 'a', 'desired:\n  state: present\n');
const pkgB = doc('Package', 'b', 'desired:\n  state: present\n');
const svc = (requires: string[], extra = ''): string =>
  doc(
    'Service',
    's',
    `requires:\n${requires.map((r) => `  - ${r}\n`).join('')}desired:\n  state: running\n  enabled: true\n${extra}`,
  );

const digestOf = (files: Record<string, string | string[]>): string =>
  resolveIn({ 'fleet.yaml': FLEET, ...h, ...files }, 'web-001').digest;

const reference = digestOf({
  'one/l.yaml': [layer('one', 0), pkgA, pkgB, svc(['Package[a]', 'Package[b]'])],
  'two/l.yaml': layer('two', 10),
});

test('the digest is sha256:<64 hex> with an 8-hex short form', () => {
  assert.match(reference, /^sha256:[0-9a-f]{64}$/);
  assert.equal(shortDigest(reference), reference.slice(7, 15));
});

test('moving a resource between layers keeps the digest', () => {
  assert.equal(
    digestOf({
      'one/l.yaml': [layer('one', 0), pkgA, svc(['Package[a]', 'Package[b]'])],
      'two/l.yaml': [layer('two', 10), pkgB],
    }),
    reference,
  );
});

test('reordering requires keeps the digest', () => {
  assert.equal(
    digestOf({
      'one/l.yaml': [layer('one', 0), pkgB, pkgA, svc(['Package[b]', 'Package[a]'])],
      'two/l.yaml': layer('two', 10),
    }),
    reference,
  );
});

test('quoting does not change the digest', () => {
  const quoted = (v: string): string =>
    digestOf({ 'one/l.yaml': [layer('one', 0), doc('Sysctl', 'x', `desired:\n  value: ${v}\n`)] });
  assert.equal(quoted('1'), quoted('"1"'));
});

test('changing a value changes the digest', () => {
  const changed = digestOf({
    'one/l.yaml': [
      layer('one', 0),
      pkgA,
      doc('Package', 'b', 'desired:\n  state: absent\n'),
      svc(['Package[a]', 'Package[b]']),
    ],
    'two/l.yaml': layer('two', 10),
  });
  assert.notEqual(changed, reference);
});

test('adding an edge changes the digest', () => {
  assert.notEqual(
    digestOf({
      'one/l.yaml': [layer('one', 0), pkgA, pkgB, svc(['Package[a]'])],
      'two/l.yaml': layer('two', 10),
    }),
    reference,
  );
});
