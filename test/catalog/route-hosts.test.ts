// Route hosts the Gateway's *.<domain> wildcard certificate cannot serve are refused with the
// host, file, line and a hint; one label under the domain is accepted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runOf } from './helpers.js';

const definition = (host: string) => `name: web
source: { image: "ghcr.io/example/web:1.0.0" }
ports: [{ name: http, port: 8080, protocol: TCP }]
ingressRoutes:
  - { host: ${host}, port: http }
`;

for (const [host, why] of [
  [
    'a.b.home.example.net',
    /more than one label under "home.example.net".*covers exactly one label/,
  ],
  ['home.example.net', /is the base domain itself/],
] as const)
  test(`the host ${host} is refused: the wildcard certificate does not cover it`, () => {
    const run = runOf({ 'web.yaml': definition(host) });
    const found = run.diagnostics.filter((d) => d.code === 'CATALOG_ROUTE_CERTIFICATE');
    assert.equal(found.length, 1);
    const d = found[0]!;
    assert.equal(d.severity, 'error');
    assert.equal(d.file, 'catalog/web.yaml');
    assert.equal(d.line, 5);
    assert.equal(d.path, 'ingressRoutes[0].host');
    assert.match(d.message, why);
    assert.match(d.message, new RegExp(host.replace(/\./g, '\\.')));
    assert.match(d.hint ?? '', /one label under the base domain.*certificate: own/);
    assert.deepEqual(run.files, {});
  });

test('a host one label under the domain is served by the wildcard', () => {
  const run = runOf({ 'web.yaml': definition('web.home.example.net') });
  assert.deepEqual(
    run.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
});
