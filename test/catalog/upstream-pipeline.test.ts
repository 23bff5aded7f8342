// The upstream-CRD check runs inside the pipeline, so `catalog render`, `catalog check` and the
// build stage all report CATALOG_INVALID_OBJECT from the one call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildCatalogStage,
  catalogSchemas,
  compileUpstream,
  runCatalog,
} from '../../src/catalog/index.js';
import type { UpstreamSchemaSource } from '../../src/catalog/index.js';
import { EXAMPLE_CATALOG, REPO, catalogOf, runExample } from './helpers.js';

/** A Namespace "CRD" whose CEL rule refuses the name `web`: a violation the render cannot avoid. */
const strictNamespace: UpstreamSchemaSource = {
  apiVersion: 'v1',
  kind: 'Namespace',
  file: 'namespace.json',
  format: 'jsonschema',
  project: 'Test',
  release: 'v0',
  url: 'https://example.net/namespace.json',
  document: {
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
    'x-kubernetes-validations': [{ rule: "self.metadata.name != 'web'", message: 'web is taken' }],
  },
};

test('the run reports an object that fails its upstream schema as CATALOG_INVALID_OBJECT', () => {
  const schemas = { ...catalogSchemas(), upstream: compileUpstream([strictNamespace]) };
  const run = runCatalog(catalogOf({ 'web.yaml': 'name: web\nsource: { image: x:1 }\n' }), schemas);
  const found = run.diagnostics.filter((d) => d.code === 'CATALOG_INVALID_OBJECT');
  assert.equal(found.length, 1, JSON.stringify(run.diagnostics));
  assert.equal(found[0]?.file, 'catalog/web.yaml');
  assert.equal(found[0]?.object, 'Namespace web');
  assert.match(found[0]?.message ?? '', /does not match its Test v0 schema: web is taken/);
});

test('without upstream schemas the run skips the check', () => {
  const { upstream: _skipped, ...schemas } = catalogSchemas();
  const run = runCatalog(catalogOf({ 'web.yaml': 'name: web\nsource: { image: x:1 }\n' }), schemas);
  assert.deepEqual(
    run.diagnostics.filter((d) => d.code === 'CATALOG_INVALID_OBJECT'),
    [],
  );
});

test('the shipped schemas carry the stored CRDs, so render and check validate against them', () => {
  const upstream = catalogSchemas().upstream;
  assert.ok(upstream?.kinds.has('gateway.networking.k8s.io/v1 HTTPRoute'));
  assert.ok(upstream?.kinds.has('monitoring.coreos.com/v1 ServiceMonitor'));
  // The example renders clean under them.
  assert.deepEqual(
    runExample(false).diagnostics.filter((d) => d.code === 'CATALOG_INVALID_OBJECT'),
    [],
  );
});

test('the build stage, validating through the run, finds the example clean', async () => {
  const stage = await buildCatalogStage(EXAMPLE_CATALOG, { root: REPO });
  assert.deepEqual(
    stage.diagnostics.filter((d) => d.code === 'CATALOG_INVALID_OBJECT'),
    [],
  );
});
