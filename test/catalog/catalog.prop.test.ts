// Properties: loading never throws on hostile text; any definition the generator can build
// renders without errors, passes every conformance check, is deterministic, and its YAML parses
// back to the rendered objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { LabelwiseError } from '../../src/base/errors.js';
import { catalogSchemas, loadCatalog, renderService } from '../../src/catalog/index.js';
import type { ResolvedService } from '../../src/catalog/index.js';
import { catalogOf, runOf } from './helpers.js';

const schemas = catalogSchemas();

test('loadCatalog never throws and reports only LabelwiseErrors, for any text', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 400, unit: 'binary' }), (text) => {
      const loaded = loadCatalog(catalogOf({ 'x.yaml': text }), schemas);
      for (const error of loaded.errors) assert.ok(error instanceof LabelwiseError);
    }),
    { numRuns: 300 },
  );
});

test('loadCatalog never throws for any JSON-shaped definition', () => {
  const keys = fc.constantFrom(
    'name',
    'kind',
    'source',
    'storage',
    'ports',
    'auth',
    'ingressRoutes',
    'availability',
    'hardware',
    '__proto__',
    'constructor',
  );
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      fc.string({ maxLength: 12 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('node'), { maxLength: 3 }),
      fc.dictionary(fc.oneof(keys, fc.string({ maxLength: 8 })), tie('node'), { maxKeys: 4 }),
    ),
  })).node;
  fc.assert(
    fc.property(fc.dictionary(keys, value, { maxKeys: 6 }), (raw) => {
      const loaded = loadCatalog(catalogOf({ 'x.yaml': stringify(raw) }), schemas);
      for (const error of [...loaded.errors, ...loaded.warnings])
        assert.ok(error instanceof LabelwiseError);
    }),
    { numRuns: 300 },
  );
});

/** A valid definition from independent choices over every branch. */
const definition = (name: string) =>
  fc
    .record({
      vm: fc.boolean(),
      exposure: fc.constantFrom('internal', 'public'),
      vpn: fc.boolean(),
      longhorn: fc.boolean(),
      backup: fc.constantFrom('offcluster', 'reacquirable'),
      bulk: fc.boolean(),
      readOnly: fc.boolean(),
      replicas: fc.integer({ min: 1, max: 3 }),
      gpu: fc.boolean(),
      routed: fc.boolean(),
      auth: fc.constantFrom('default', 'none', 'forward-auth'),
      metrics: fc.boolean(),
      channel: fc.constantFrom('stable', 'beta', 'pinned'),
      rollback: fc.boolean(),
    })
    .map((c) => {
      const lines = [`name: ${name}`];
      if (c.vm)
        lines.push('kind: vm', 'source: { vmTemplate: "docker://registry.example.net/disk:1" }');
      else lines.push('source: { image: "registry.example.net/app:1" }');
      lines.push(`exposure: ${c.exposure}`, `egress: ${c.vpn && !c.vm ? 'vpn' : 'internet'}`);
      lines.push(
        'ports: [{ name: http, port: 8080 }, { name: metrics, port: 9100 }, { name: dns, port: 53, protocol: UDP }]',
      );
      const storage: string[] = [];
      if (c.longhorn)
        storage.push(`{ name: config, class: longhorn, size: 2Gi, backup: ${c.backup} }`);
      if (c.bulk && !c.vm)
        storage.push(
          `{ name: media, class: bulk, size: 1Ti, export: /tank/media, readOnly: ${c.readOnly} }`,
        );
      if (storage.length > 0) lines.push(`storage: [${storage.join(', ')}]`);
      if (!c.vm) lines.push(`availability: { replicas: ${c.replicas} }`);
      if (c.gpu) lines.push('hardware: { gpu: intel-quicksync }');
      if (c.routed) lines.push(`ingressRoutes: [{ host: ${name}.home.example.net, port: http }]`);
      const auth = c.vm ? 'none' : c.auth;
      if (auth !== 'default')
        lines.push(
          `auth: { mode: ${auth}${auth === 'forward-auth' ? ", apiRoutes: ['^/api/'], port: http" : ''} }`,
        );
      if (c.vm && c.routed && auth === 'default') lines.push('auth: { mode: none }');
      lines.push(`update: { channel: ${c.channel}, autoRollbackOnFailedHealth: ${c.rollback} }`);
      if (c.metrics) lines.push('observability: { metricsEndpoint: { port: metrics } }');
      return `${lines.join('\n')}\n`;
    });

test('any generated catalog renders cleanly, passes every check, deterministically, and round-trips', () => {
  fc.assert(
    fc.property(definition('alpha'), definition('beta'), (a, b) => {
      const files = {
        'alpha.yaml': a,
        'beta.yaml': b + 'dependencies: [{ to: alpha, port: 9100 }]\n',
      };
      const first = runOf(files);
      assert.deepEqual(
        first.errors.map((e) => e.message),
        [],
      );
      assert.deepEqual(
        first.checks.filter((c) => !c.ok),
        [],
      );
      assert.deepEqual(runOf(files).files, first.files);
      for (const rendered of first.rendered) {
        for (const object of rendered.objects) {
          const file = `${rendered.service}/${object.kind.toLowerCase()}-${object.metadata.name}.yaml`;
          assert.deepEqual(parse(first.files[file] ?? ''), object, file);
        }
      }
    }),
    { numRuns: 60 },
  );
});

test('an object that fails its Kubernetes schema is reported, naming the object (validation is real)', () => {
  const run = runOf({
    'web.yaml': 'name: web\nsource: { image: x:1 }\nports: [{ name: http, port: 80 }]\n',
  });
  const web = run.loaded.services[0] as ResolvedService;
  // The OpenAPI schemas carry types, not port ranges: a string port is what they reject.
  const broken: ResolvedService = {
    ...web,
    ports: [{ name: 'http', port: 'eighty' as unknown as number, protocol: 'TCP' }],
  };
  const { errors } = renderService(broken, {
    platform: run.loaded.platform!,
    validateVirtualMachine: schemas.virtualMachine,
  });
  assert.ok(errors.length > 0);
  assert.ok(errors.every((e) => e.code === 'CATALOG_INVALID_OBJECT'));
  assert.ok(
    errors.some((e) => e.message.startsWith('Service/web ')),
    errors.map((e) => e.message).join('\n'),
  );
  const vm = runOf({ 'v.yaml': 'name: v\nkind: vm\nsource: { vmTemplate: "https://x/y.img" }\n' })
    .loaded.services[0] as ResolvedService;
  const vmErrors = renderService(
    { ...vm, vm: { ...vm.vm, cores: 0 } },
    {
      platform: run.loaded.platform!,
      validateVirtualMachine: schemas.virtualMachine,
    },
  ).errors;
  assert.ok(
    vmErrors.some((e) => e.message.startsWith('VirtualMachine/v ')),
    vmErrors.map((e) => e.message).join('\n'),
  );
});
