// explain (why it applies, why it does not) and validate (grouping, matcher lints).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LabelwiseError } from '../../src/base/errors.js';
import { formatDiagnostic } from '../../src/base/index.js';
import {
  explainResource,
  fleetDiagnostic,
  prepareFleet,
  validateFleet,
} from '../../src/fleet/index.js';
import { FLEET, doc, fleetOf, host, layer } from './helpers.js';

const files = {
  'fleet.yaml': FLEET,
  'hosts.yaml': [
    host('web-001', { role: 'web', site: 'london' }),
    host('web-002', { role: 'web', site: 'paris' }),
    host('db-001', { role: 'database', site: 'london' }),
    host('bare', {}),
  ],
  'web/l.yaml': [
    layer('role-web', 20, '  labels:\n    role: web\n'),
    doc(
      'File',
      'nginx-config',
      'desired:\n  path: /etc/nginx.conf\n  mode: "0640"\n  content: "{{ host }}"\n',
    ),
  ],
  'one/l.yaml': [
    layer('host-web-001', 90, '  labels:\n    datum/host: web-001\n'),
    doc('File', 'nginx-config', 'desired:\n  mode: "0600"\n'),
  ],
};

test('explain: contributing layers, reasons, fields with what they overrode, substitutions', () => {
  const result = explainResource(prepareFleet(fleetOf(files)), 'web-001', 'File[nginx-config]');
  assert.equal(result.applies, true);
  if (!result.applies) return;
  assert.deepEqual(
    result.layers.map((l) => [l.name, l.precedence, l.reasons]),
    [
      ['role-web', 20, ['role=web']],
      ['host-web-001', 90, ['datum/host=web-001']],
    ],
  );
  assert.deepEqual(
    result.fields.find((f) => f.field === 'mode'),
    {
      field: 'mode',
      value: '0600',
      layer: 'host-web-001',
      overrides: [{ layer: 'role-web', value: '0640' }],
    },
  );
  assert.deepEqual(result.substitutions, [
    { field: 'content', placeholder: '{{ host }}', value: 'web-001', layer: 'role-web' },
  ]);
});

test('explain: a resource that does not apply lists, per declaring layer, the term that failed', () => {
  const result = explainResource(prepareFleet(fleetOf(files)), 'db-001', 'File[nginx-config]');
  assert.equal(result.applies, false);
  if (result.applies) return;
  assert.deepEqual(
    result.declaredBy.map((l) => `${l.layer}: ${l.failed.map((f) => f.text).join('; ')}`),
    [
      'role-web: role=web failed, host has role=database',
      'host-web-001: datum/host=web-001 failed, host has datum/host=db-001',
    ],
  );
  const bare = explainResource(prepareFleet(fleetOf(files)), 'bare', 'File[nginx-config]');
  assert.equal(
    bare.applies ? '' : bare.declaredBy[0]?.failed[0]?.text,
    'role=web failed, host has no role',
  );
});

test('explain: problems about the resource are part of the answer', () => {
  const result = explainResource(
    prepareFleet(
      fleetOf({
        ...files,
        'two/l.yaml': [
          layer('also-web', 20, '  labels:\n    role: web\n'),
          doc('File', 'nginx-config', 'desired:\n  mode: "0644"\n'),
        ],
      }),
    ),
    'web-001',
    'File[nginx-config]',
  );
  assert.equal(result.applies ? result.problems.map((p) => p.code).join() : '', 'FLEET_CONFLICT');
});

test('explain: a reference no layer declares is an error', () => {
  assert.throws(
    () => explainResource(prepareFleet(fleetOf(files)), 'web-001', 'File[nope]'),
    (e: unknown) => e instanceof LabelwiseError && e.code === 'FLEET_UNKNOWN_RESOURCE',
  );
});

test('validate: identical problems are grouped across hosts', () => {
  const report = validateFleet(
    fleetOf({
      ...files,
      'web/l.yaml': [
        layer('role-web', 20, '  labels:\n    role: web\n'),
        doc(
          'Service',
          'nginx',
          'requires:\n  - Package[nginx]\ndesired:\n  state: running\n  enabled: true\n',
        ),
      ],
    }),
  );
  const grouped = report.problems.filter((p) => p.code === 'FLEET_UNRESOLVED_REFERENCE');
  assert.equal(grouped.length, 1);
  assert.deepEqual(grouped[0]?.hosts, ['web-001', 'web-002']);
  assert.equal(
    formatDiagnostic(fleetDiagnostic(grouped[0] as (typeof grouped)[number])),
    'web/l.yaml:13: error FLEET_UNRESOLVED_REFERENCE [Service[nginx]]: Service[nginx] requires Package[nginx], which no layer applying to the host declares (affects 2 hosts, first: web-001)',
  );
  // The host layer's File[nginx-config] lost its path along with role-web's declaration.
  assert.deepEqual(
    report.problems.map((p) => `${p.code} ${p.hosts.join(',')}`),
    ['FLEET_MISSING_IDENTITY web-001', 'FLEET_UNRESOLVED_REFERENCE web-001,web-002'],
  );
  assert.equal(report.errors, 2);
  assert.equal(report.hosts, 4);
});

test('validate: a matcher that can never match is an error; a layer that matches no host a warning', () => {
  const report = validateFleet(
    fleetOf({
      ...files,
      'never/l.yaml': layer('never', 0, '  labels:\n    role: web\n  missing:\n    - role\n'),
      'empty/l.yaml': layer('empty-oneof', 0, '  oneOf:\n    role: []\n'),
      'nobody/l.yaml': layer('nobody', 0, '  labels:\n    site: tokyo\n'),
    }),
  );
  const found = report.problems.map((p) => `${p.severity} ${p.file}:${p.line} ${p.code}`);
  // A contradiction is an error, as in Datum; reaching no declared host stays a warning.
  assert.deepEqual(found, [
    'error empty/l.yaml:1 FLEET_MATCHER_NEVER_MATCHES',
    'warning empty/l.yaml:7 FLEET_MATCH_WARNING',
    'error never/l.yaml:1 FLEET_MATCHER_NEVER_MATCHES',
    'warning nobody/l.yaml:1 FLEET_LAYER_MATCHES_NO_HOST',
  ]);
  assert.equal(report.errors, 2);
});

test('validate: the example-style fleet has digests for every host, in host order', () => {
  const report = validateFleet(fleetOf(files));
  assert.deepEqual(Object.keys(report.digests), ['bare', 'db-001', 'web-001', 'web-002']);
  assert.notEqual(report.digests['web-001'], report.digests['web-002']);
});

test('validate: an invalid document is reported once, not again as unresolved references on every host', () => {
  const report = validateFleet(
    fleetOf({
      ...files,
      'web/l.yaml': [
        layer('role-web', 20, '  labels:\n    role: web\n'),
        doc('Package', 'nginx', 'desired:\n  state: installed\n'),
        doc(
          'Service',
          'nginx',
          'requires:\n  - Package[nginx]\ndesired:\n  state: running\n  enabled: true\n',
        ),
      ],
    }),
  );
  assert.deepEqual(
    report.problems.filter((p) => p.severity === 'error').map((p) => p.code),
    ['FLEET_INVALID_FIELD', 'FLEET_MISSING_IDENTITY'],
  );
});

test('explain: a resource whose every document has errors says so, not "no layer declares"', () => {
  const fleet = fleetOf({
    ...files,
    'web/l.yaml': [
      layer('role-web', 20, '  labels:\n    role: web\n'),
      doc('Package', 'nginx', 'desired:\n  state: installed\n'),
    ],
  });
  assert.throws(
    () => explainResource(prepareFleet(fleet), 'web-001', 'Package[nginx]'),
    (e: unknown) =>
      e instanceof LabelwiseError &&
      e.code === 'FLEET_INVALID_RESOURCE' &&
      e.message ===
        'Package[nginx] is declared only by documents with errors, so it cannot be explained',
  );
});

test('explain: the hint for an unknown reference depends on whether it is well formed', () => {
  const prepared = prepareFleet(fleetOf(files));
  const hintOf = (ref: string): string | undefined => {
    try {
      explainResource(prepared, 'web-001', ref);
    } catch (error) {
      if (error instanceof LabelwiseError && error.code === 'FLEET_UNKNOWN_RESOURCE')
        return error.hint;
    }
    return undefined;
  };
  assert.equal(
    hintOf('File[nope]'),
    "`labelwise fleet resolve REPO --host web-001` lists the host's resources",
  );
  assert.equal(
    hintOf('nginx-config'),
    'references look like File[nginx-config]: the type, then the name in brackets',
  );
});

test('validate: hosts named __proto__ and constructor keep their digests', () => {
  // regression: digests lived in a plain object, where `__proto__` set the prototype instead.
  const report = validateFleet(
    fleetOf({
      'fleet.yaml': FLEET,
      'hosts.yaml': [host('__proto__', { role: 'web' }), host('constructor', { role: 'web' })],
      'base/l.yaml': [layer('base', 0), doc('Package', 'p', 'desired:\n  state: present\n')],
    }),
  );
  assert.equal(report.hosts, 2);
  assert.deepEqual(Object.keys(report.digests), ['__proto__', 'constructor']);
  assert.match(report.digests.__proto__ ?? '', /^sha256:[0-9a-f]{64}$/);
});

test('validate: control characters in file names are printed escaped', () => {
  const report = validateFleet(
    fleetOf({ 'fleet.yaml': FLEET, 'evil\u001b[2J\nfake.yaml': 'a: [\n' }),
  );
  const text = report.problems.map((p) => formatDiagnostic(fleetDiagnostic(p)));
  assert.equal(text.length, 1);
  assert.ok(text[0]?.startsWith('evil\\x1b[2J\\nfake.yaml:'), text[0]);
  assert.ok(![...(text[0] ?? '')].some((c) => c < ' '), text[0]);
});

test('validate: a layer for a host whose document is broken says that host was not counted', () => {
  const report = validateFleet(
    fleetOf({
      'fleet.yaml': FLEET,
      'hosts.yaml': [host('web-001', { 'datum/x': 'y' }), host('web-002', { role: 'web' })],
      'one/l.yaml': layer('host-web-001', 90, '  labels:\n    datum/host: web-001\n'),
    }),
  );
  assert.deepEqual(
    report.problems.map((p) => `${p.code} ${p.message}`),
    [
      'FLEET_RESERVED_LABEL label "datum/x" uses the reserved prefix "datum/"',
      'FLEET_LAYER_MATCHES_NO_HOST layer host-web-001 matches no declared host (not counting host web-001, whose Host document has errors)',
    ],
  );
});

test('validate: edges into a Layer with errors are not reported again as unresolved', () => {
  // regression: a typo in one Layer's precedence also gave "requires Package[nginx], which no
  // layer applying to the host declares" for every edge into that layer, on every host.
  const report = validateFleet(
    fleetOf({
      'fleet.yaml': FLEET,
      'hosts.yaml': [host('a'), host('b')],
      'base/l.yaml': [
        layer('base', 0),
        doc(
          'Service',
          'nginx',
          'requires:\n  - Package[nginx]\ndesired:\n  state: running\n  enabled: true\n',
        ),
      ],
      'pkgs/l.yaml': [
        doc('Layer', 'pkgs', 'precedence: ten\n'),
        doc('Package', 'nginx', 'desired:\n  state: present\n'),
      ],
    }),
  );
  assert.deepEqual(
    report.problems.map((p) => `${p.file}:${p.line} ${p.code}`),
    ['pkgs/l.yaml:4 FLEET_INVALID_PRECEDENCE'],
  );
});

test('validate: edges to a resource with no Layer above it are not reported again', () => {
  const report = validateFleet(
    fleetOf({
      'fleet.yaml': FLEET,
      'hosts.yaml': host('a'),
      'base/l.yaml': [
        layer('base', 0),
        doc(
          'Service',
          'nginx',
          'requires:\n  - Package[nginx]\ndesired:\n  state: running\n  enabled: true\n',
        ),
      ],
      'stray/p.yaml': doc('Package', 'nginx', 'desired:\n  state: present\n'),
    }),
  );
  assert.deepEqual(
    report.problems.map((p) => `${p.file}:${p.line} ${p.code}`),
    ['stray/p.yaml:1 FLEET_NO_LAYER'],
  );
});

test('explain: a malformed reference is quoted in the message', () => {
  assert.throws(
    () => explainResource(prepareFleet(fleetOf(files)), 'web-001', ''),
    (e: unknown) =>
      e instanceof LabelwiseError &&
      e.code === 'FLEET_UNKNOWN_RESOURCE' &&
      e.message === '"" is not a resource reference, so no layer declares it',
  );
});
