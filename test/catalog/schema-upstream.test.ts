// Rendered custom resources against the stored upstream CRDs: strict (unknown fields are errors)
/* eslint-disable @typescript-eslint/no-explicit-any -- tests edit plain rendered data */
// and with their CEL rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { upstreamValidators, validateUpstream } from '../../src/catalog/index.js';
import type { KubeObject } from '../../src/catalog/index.js';
import { escapeCelName } from '../../src/catalog/crds/cel-rules.js';
import { REPO, clone, runExample } from './helpers.js';

const validators = upstreamValidators();
const example = runExample(false);
const all = example.rendered.flatMap((r) => r.objects);

function one(kind: string, service?: string): Record<string, any> {
  const found = all.find(
    (o) => o.kind === kind && (service === undefined || o.metadata.namespace === service),
  );
  assert.ok(found, kind);
  return clone(found) as Record<string, any>;
}

const problems = (o: Record<string, any>) =>
  validateUpstream(o as unknown as KubeObject, validators).map((p) => `${p.path}: ${p.message}`);

test('every stored schema names its source and release, and its file exists', () => {
  const { schemas } = JSON.parse(readFileSync(join(REPO, 'catalog/crds/SOURCES.json'), 'utf8')) as {
    schemas: { file: string; url: string; release: string; kind: string }[];
  };
  assert.deepEqual(schemas.map((s) => s.kind).sort(), [
    'Certificate',
    'CiliumEgressGatewayPolicy',
    'CiliumNetworkPolicy',
    'DataVolume',
    'HTTPRoute',
    'PrometheusRule',
    'ServiceMonitor',
    'VirtualMachine',
  ]);
  for (const s of schemas) {
    assert.ok(existsSync(join(REPO, 'catalog/crds', s.file)), s.file);
    assert.match(s.url, /^https:\/\/github\.com\//);
    assert.ok(s.release.length > 0);
  }
});

test('every custom resource of the example passes its upstream schema and CEL rules', () => {
  const kinds = new Set(all.map((o) => o.kind));
  for (const kind of [
    'HTTPRoute',
    'CiliumNetworkPolicy',
    'VirtualMachine',
    'ServiceMonitor',
    'PrometheusRule',
  ])
    assert.ok(kinds.has(kind), kind);
  for (const o of all)
    assert.deepEqual(
      problems(o as unknown as Record<string, any>),
      [],
      `${o.kind} ${o.metadata.name}`,
    );
});

test('an unknown field is an error, with its path (as --validate=strict)', () => {
  const route = one('HTTPRoute');
  route.spec.rules[0].backendRefs[0].weigth = 1;
  assert.deepEqual(problems(route), [
    'spec.rules[0].backendRefs[0].weigth: unknown field "weigth"',
  ]);
  const policy = one('CiliumNetworkPolicy');
  policy.spec.ingres = [];
  assert.ok(
    problems(policy).includes('spec.ingres: unknown field "ingres"'),
    problems(policy).join('\n'),
  );
  const meta = one('ServiceMonitor');
  meta.metadata.lables = {};
  assert.deepEqual(problems(meta), ['metadata.lables: unknown field "lables"']);
});

test('a field a preserve-unknown-fields node holds is not an error', () => {
  const vm = one('VirtualMachine');
  vm.spec.template.metadata.anything = 'x';
  assert.deepEqual(problems(vm), []);
});

test('a VM data volume template is checked against CDI DataVolume', () => {
  const vm = one('VirtualMachine');
  vm.spec.dataVolumeTemplates[0].spec.source.http.uri =
    vm.spec.dataVolumeTemplates[0].spec.source.http.url;
  assert.ok(
    problems(vm).some((p) =>
      p.startsWith('spec.dataVolumeTemplates[0].spec.source.http.uri: unknown field "uri"'),
    ),
    problems(vm).join('\n'),
  );
});

test('CEL rules are evaluated: Gateway API path and filter rules', () => {
  const route = one('HTTPRoute');
  route.spec.rules[0].matches = [{ path: { type: 'PathPrefix', value: '/a//b' } }];
  assert.ok(
    problems(route).some((p) =>
      /spec\.rules\[0\]\.matches\[0\]\.path: must not contain '\/\/'/.test(p),
    ),
    problems(route).join('\n'),
  );
  const twice = one('HTTPRoute');
  twice.spec.rules[0].filters = [
    { type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'a', value: 'b' }] } },
    { type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'c', value: 'd' }] } },
  ];
  assert.ok(
    problems(twice).some((p) => /RequestHeaderModifier filter cannot be repeated/.test(p)),
    problems(twice).join('\n'),
  );
  const mismatch = one('HTTPRoute');
  mismatch.spec.rules[0].filters = [
    { type: 'RequestRedirect', urlRewrite: { hostname: 'x.example.net' } },
  ];
  assert.ok(
    problems(mismatch).some((p) =>
      /filter\.urlRewrite must be nil if the filter\.type is not URLRewrite/.test(p),
    ),
    problems(mismatch).join('\n'),
  );
});

test('defaults apply before CEL: a Service backendRef without a port fails', () => {
  const route = one('HTTPRoute');
  delete route.spec.rules[0].backendRefs[0].port;
  assert.ok(
    problems(route).some((p) => /Must have port for Service reference/.test(p)),
    problems(route).join('\n'),
  );
});

test('CEL property names are escaped as the API server escapes them', () => {
  assert.equal(escapeCelName('namespace'), '__namespace__');
  assert.equal(escapeCelName('a-b.c/d'), 'a__dash__b__dot__c__slash__d');
  assert.equal(escapeCelName('x__y'), 'x__underscores__y');
});
