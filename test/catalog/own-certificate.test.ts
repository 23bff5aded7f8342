// A route with `certificate: own` gets a cert-manager Certificate in the Gateway's namespace,
// valid against cert-manager's own CRD, an HTTPRoute attached to the listener named after it,
// and a warning that names the listener the operator adds to the shared Gateway. Without an
// issuer in platform.yaml it is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  catalogSchemas,
  runCatalog,
  upstreamValidators,
  validateUpstream,
} from '../../src/catalog/index.js';
import { PLATFORM_TEXT, at, catalogOf, find, objectsOf } from './helpers.js';

const definition = (host: string) => `name: web
source: { image: "ghcr.io/example/web:1.0.0" }
ports: [{ name: http, port: 8080, protocol: TCP }]
ingressRoutes:
  - { host: ${host}, port: http, certificate: own }
  - { host: web.home.example.net, port: http }
`;

const withIssuer = PLATFORM_TEXT.replace(
  'gateway:\n',
  'gateway:\n  certificateIssuer: { kind: ClusterIssuer, name: letsencrypt-dns01 }\n',
);

const run = (host: string, platform = withIssuer) =>
  runCatalog(catalogOf({ 'web.yaml': definition(host) }, platform), catalogSchemas());

for (const host of ['home.example.net', 'a.b.home.example.net'])
  test(`${host} with its own certificate renders a Certificate the cert-manager CRD accepts`, () => {
    const result = run(host);
    assert.deepEqual(
      result.diagnostics.filter((d) => d.severity === 'error'),
      [],
    );
    const objects = objectsOf(result, 'web');
    const name = host.replace(/\./g, '-');
    const certificate = find(objects, 'Certificate', name)!;
    assert.equal(certificate.metadata.namespace, 'gateway');
    assert.deepEqual(at(certificate, 'spec', 'dnsNames'), [host]);
    assert.equal(at(certificate, 'spec', 'secretName'), `${name}-tls`);
    assert.deepEqual(at(certificate, 'spec', 'issuerRef'), {
      group: 'cert-manager.io',
      kind: 'ClusterIssuer',
      name: 'letsencrypt-dns01',
    });
    assert.deepEqual(validateUpstream(certificate, upstreamValidators()), []);
    assert.ok(Object.keys(result.files).includes(`web/certificate-${name}.yaml`));
    // The route attaches to the Certificate's listener; the wildcard route keeps the shared one.
    const routes = objects.filter((o) => o.kind === 'HTTPRoute');
    const sectionOf = (h: string) =>
      at(
        routes.find((r) => (at(r, 'spec', 'hostnames') as string[])[0] === h),
        'spec',
        'parentRefs',
        0,
        'sectionName',
      );
    assert.equal(sectionOf(host), name);
    assert.equal(sectionOf('web.home.example.net'), 'https');
    assert.equal(objects.filter((o) => o.kind === 'Certificate').length, 1);
    const listener = result.diagnostics.filter((d) => d.code === 'CATALOG_GATEWAY_LISTENER');
    assert.equal(listener.length, 1);
    assert.equal(listener[0]!.severity, 'warning');
    assert.equal(listener[0]!.line, 5);
    assert.equal(listener[0]!.path, 'ingressRoutes[0].certificate');
    assert.match(listener[0]!.message, new RegExp(`listener "${name}"`));
    assert.match(
      listener[0]!.hint ?? '',
      new RegExp(`certificateRefs: \\[\\{ name: ${name}-tls \\}\\]`),
    );
  });

test('the cert-manager CRD refuses a Certificate it would refuse in the cluster', () => {
  const certificate = find(
    objectsOf(run('home.example.net'), 'web'),
    'Certificate',
    'home-example-net',
  )!;
  const broken = { ...certificate, spec: { ...(certificate.spec as object), dnsNames: 'x' } };
  assert.ok(validateUpstream(broken, upstreamValidators()).some((p) => p.path === 'spec.dnsNames'));
  const unknown = { ...certificate, spec: { ...(certificate.spec as object), hosts: ['x'] } };
  assert.ok(
    validateUpstream(unknown, upstreamValidators()).some((p) =>
      /unknown field "hosts"/.test(p.message),
    ),
  );
});

test('a route asking for its own certificate is refused when platform.yaml names no issuer', () => {
  const result = run('home.example.net', PLATFORM_TEXT);
  const found = result.diagnostics.filter((d) => d.code === 'CATALOG_CERTIFICATE_ISSUER');
  assert.equal(found.length, 1);
  assert.equal(found[0]!.severity, 'error');
  assert.equal(found[0]!.file, 'catalog/web.yaml');
  assert.equal(found[0]!.line, 5);
  assert.match(found[0]!.hint ?? '', /gateway\.certificateIssuer/);
  assert.deepEqual(result.files, {});
});
