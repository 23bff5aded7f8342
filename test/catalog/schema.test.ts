// Schema, cross-field and cross-service errors: each names the file, the line and the JSON path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { catalogSchemas, loadCatalog } from '../../src/catalog/index.js';
import { at, catalogOf, find, objectsOf, PLATFORM_TEXT, runOf } from './helpers.js';

function errorsOf(files: Record<string, string>, platform?: string) {
  const loaded = loadCatalog(catalogOf(files, platform ?? PLATFORM_TEXT), catalogSchemas());
  return { errors: loaded.errors, warnings: loaded.warnings, loaded };
}

const rows: { name: string; text: string; want: { code: string; line: number; path: string } }[] = [
  {
    name: 'unknown field',
    text: 'name: web\nsource:\n  image: x:1\nexposre: public\n',
    want: { code: 'CATALOG_SCHEMA', line: 4, path: 'exposre' },
  },
  {
    name: 'enum value',
    text: 'name: web\nsource: { image: x:1 }\nstorage:\n  - name: data\n    class: nfs\n',
    want: { code: 'CATALOG_SCHEMA', line: 5, path: 'storage[0].class' },
  },
  {
    name: 'missing required field',
    text: 'name: web\n',
    want: { code: 'CATALOG_SCHEMA', line: 1, path: 'source' },
  },
  {
    name: 'name is not a DNS label',
    text: 'name: Web_1\nsource: { image: x:1 }\n',
    want: { code: 'CATALOG_SCHEMA', line: 1, path: 'name' },
  },
  {
    name: 'gpu as a device path (intent, never mechanism)',
    text: 'name: web\nsource: { image: x:1 }\nhardware:\n  gpu: /dev/dri\n',
    want: { code: 'CATALOG_SCHEMA', line: 4, path: 'hardware.gpu' },
  },
  {
    name: 'vm without vmTemplate',
    text: 'name: vm1\nkind: vm\nsource:\n  image: x:1\n',
    want: { code: 'CATALOG_SOURCE_MISMATCH', line: 3, path: 'source' },
  },
  {
    name: 'bulk without export',
    text: 'name: web\nsource: { image: x:1 }\nstorage:\n  - { name: media, class: bulk, size: 1Ti }\n',
    want: { code: 'CATALOG_STORAGE_EXPORT', line: 4, path: 'storage[0]' },
  },
  {
    name: 'longhorn without size',
    text: 'name: web\nsource: { image: x:1 }\nstorage:\n  - { name: config, class: longhorn }\n',
    want: { code: 'CATALOG_STORAGE_SIZE', line: 4, path: 'storage[0]' },
  },
  {
    name: 'replicas on a vm',
    text: 'name: vm1\nkind: vm\nsource: { vmTemplate: "https://x/y.img" }\navailability:\n  replicas: 2\n',
    want: { code: 'CATALOG_REPLICAS_VM', line: 5, path: 'availability.replicas' },
  },
  {
    name: 'more replicas than schedulable nodes',
    text: 'name: web\nsource: { image: x:1 }\navailability: { replicas: 4 }\n',
    want: { code: 'CATALOG_REPLICAS_NODES', line: 3, path: 'availability.replicas' },
  },
  {
    name: 'route host outside the base domain',
    text: 'name: web\nsource: { image: x:1 }\ningressRoutes:\n  - host: web.example.org\n    port: 80\n',
    want: { code: 'CATALOG_ROUTE_HOST', line: 4, path: 'ingressRoutes[0].host' },
  },
  {
    name: 'route to an undeclared port name',
    text: 'name: web\nsource: { image: x:1 }\nports: [{ name: http, port: 80 }]\ningressRoutes:\n  - host: web.home.example.net\n    port: admin\n',
    want: { code: 'CATALOG_PORT_UNKNOWN', line: 6, path: 'ingressRoutes[0].port' },
  },
  {
    name: 'metrics on the port behind forward-auth',
    text: 'name: web\nsource: { image: x:1 }\nobservability:\n  metricsEndpoint: { port: 80 }\ningressRoutes: [{ host: web.home.example.net, port: 80 }]\n',
    want: { code: 'CATALOG_METRICS_BYPASS', line: 4, path: 'observability.metricsEndpoint.port' },
  },
  {
    name: 'apiRoutes without forward-auth',
    text: 'name: web\nsource: { image: x:1 }\nauth:\n  mode: none\n  apiRoutes: ["^/api"]\n',
    want: { code: 'CATALOG_AUTH_API_ROUTES', line: 5, path: 'auth.apiRoutes' },
  },
  {
    name: 'liveness kind that does not follow the workload',
    text: 'name: web\nsource: { image: x:1 }\navailability: { replicas: 2 }\nobservability:\n  livenessWorkload:\n    kind: Deployment\n    name: web\n',
    want: { code: 'CATALOG_LIVENESS_KIND', line: 6, path: 'observability.livenessWorkload.kind' },
  },
  {
    name: 'two hosts that name one HTTPRoute',
    text: 'name: web\nsource: { image: x:1 }\nauth: { mode: none }\ningressRoutes:\n  - { host: a-b.home.example.net, port: 80 }\n  - { host: a.b.home.example.net, port: 80 }\n',
    want: { code: 'CATALOG_ROUTE_NAME', line: 6, path: 'ingressRoutes[1].host' },
  },
  {
    name: 'an app port named like the proxy port',
    text: 'name: web\nsource: { image: x:1 }\nports:\n  - { name: http-auth, port: 80 }\ningressRoutes: [{ host: web.home.example.net, port: 80 }]\n',
    want: { code: 'CATALOG_AUTH_PORT_CLASH', line: 4, path: 'ports[0].name' },
  },
  {
    name: 'YAML syntax error',
    text: 'name: web\nsource: { image: x:1\n',
    want: { code: 'CATALOG_YAML_SYNTAX', line: 3, path: '' },
  },
  {
    name: 'duplicate key',
    text: 'name: web\nname: other\nsource: { image: x:1 }\n',
    want: { code: 'CATALOG_YAML_SYNTAX', line: 2, path: '' },
  },
];

for (const row of rows) {
  test(`error: ${row.name}`, () => {
    const { errors } = errorsOf({ 'web.yaml': row.text });
    const found = errors.find((e) => e.code === row.want.code);
    assert.ok(found, `${row.want.code} in ${JSON.stringify(errors.map((e) => e.toJSON()))}`);
    assert.equal(found.source.file, 'catalog/web.yaml');
    assert.equal(found.source.line, row.want.line, found.message);
    if (row.want.path !== '') assert.equal(found.source.path, row.want.path);
  });
}

test('errors are gathered: every problem of every file, not the first', () => {
  const { errors } = errorsOf({
    'a.yaml': 'name: a\nsource: { image: x:1 }\nexposure: everywhere\negress: tor\n',
    'b.yaml': 'name: b\n',
  });
  assert.deepEqual(
    errors.map((e) => `${e.source.file}:${e.source.line}:${e.source.path}`),
    ['catalog/a.yaml:3:exposure', 'catalog/a.yaml:4:egress', 'catalog/b.yaml:1:source'],
  );
});

test('cross-service: unknown dependency, unexposed port, unaccepted client, duplicate name', () => {
  const { errors, warnings } = errorsOf({
    'a.yaml':
      'name: a\nsource: { image: x:1 }\ndependencies:\n  - { to: b, port: 81 }\n  - { to: nope, port: 80 }\n',
    'b.yaml': 'name: b\nsource: { image: x:1 }\nports: [{ name: http, port: 80 }]\n',
    'c.yaml': 'name: b\nsource: { image: x:1 }\n',
  });
  const codes = errors.map((e) => `${e.code}@${e.source.file}:${e.source.line}`);
  assert.ok(codes.includes('CATALOG_DEPENDENCY_PORT@catalog/a.yaml:4'), codes.join());
  assert.ok(codes.includes('CATALOG_DEPENDENCY_UNKNOWN@catalog/a.yaml:5'), codes.join());
  assert.ok(codes.includes('CATALOG_DUPLICATE_SERVICE@catalog/c.yaml:1'), codes.join());
  assert.ok(
    warnings.some((w) => w.code === 'CATALOG_DEPENDENCY_NOT_ACCEPTED' && w.source.line === 4),
  );
});

test('platform.yaml is validated with file, line and path; missing platform is an error', () => {
  const bad = PLATFORM_TEXT.replace('  interface: wg0\n', '  interface: wg0\n  colour: blue\n');
  const { errors } = errorsOf({}, bad);
  const found = errors.find((e) => e.code === 'CATALOG_PLATFORM_SCHEMA');
  assert.ok(found);
  assert.equal(found.source.path, 'vpn.colour');
  assert.equal(
    found.source.line,
    PLATFORM_TEXT.split('\n').findIndex((l) => l === '  interface: wg0') + 2,
  );
  const missing = loadCatalog(
    { dir: 'catalog', platform: undefined, definitions: [] },
    catalogSchemas(),
  );
  assert.equal(missing.errors[0]?.code, 'CATALOG_PLATFORM_MISSING');
});

test('defaults are materialised: an absent field renders from its default', () => {
  const { loaded } = errorsOf({ 'web.yaml': 'name: web\nsource: { image: x:1 }\n' });
  const web = loaded.services[0]!;
  assert.equal(web.kind, 'container');
  assert.equal(web.exposure, 'internal');
  assert.equal(web.egress, 'internet');
  assert.deepEqual(web.auth, { mode: 'none', apiRoutes: [], skipAuthRoutes: [] });
  assert.deepEqual(web.update, { channel: 'stable', autoRollbackOnFailedHealth: true });
  assert.equal(web.observability.metrics, true);
  assert.deepEqual(web.observability.livenessWorkload, { kind: 'Deployment', name: 'web' });
  assert.deepEqual(web.availability, { replicas: 1, acknowledgeStorageMigration: false });
});

test('hostile YAML: an alias bomb is refused without hanging, __proto__ keys are plain data', () => {
  const bomb =
    'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n';
  const { errors } = errorsOf({ 'web.yaml': bomb });
  assert.ok(errors.some((e) => e.code === 'CATALOG_YAML_SYNTAX'));
  const proto = errorsOf({
    'web.yaml': 'name: web\nsource: { image: x:1 }\n__proto__: { polluted: true }\n',
  });
  assert.ok(proto.errors.some((e) => e.source.path === '__proto__'));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('no cascade: a service that names an invalid service gets no second error about it', () => {
  const { errors, warnings } = errorsOf({
    // Schema error (its name is readable), YAML syntax error (only its file name is), and a
    // cross-field error: each is reported once, in its own file.
    'blog.yaml': 'name: blog\nsource: { image: x:1 }\nexposure: everywhere\n',
    'wiki.yaml': 'name: wiki\nsource: { image: x:1\n',
    'vault.yaml': 'name: vault\nsource: { image: x:1 }\navailability: { replicas: 9 }\n',
    'home.yaml':
      'name: home\nsource: { image: x:1 }\ninClusterClients: [blog, wiki, vault, ghost]\ndependencies:\n  - { to: blog, port: 80 }\n  - { to: wiki, port: 80 }\n  - { to: vault, port: 80 }\n  - { to: nope, port: 80 }\n',
  });
  assert.deepEqual(errors.map((e) => `${e.code}@${e.source.file}:${e.source.line}`).sort(), [
    'CATALOG_DEPENDENCY_UNKNOWN@catalog/home.yaml:8',
    'CATALOG_REPLICAS_NODES@catalog/vault.yaml:3',
    'CATALOG_SCHEMA@catalog/blog.yaml:3',
    'CATALOG_YAML_SYNTAX@catalog/wiki.yaml:3',
  ]);
  // A name that is truly absent is still reported, as an error and as a warning.
  assert.match(errors.find((e) => e.code === 'CATALOG_DEPENDENCY_UNKNOWN')!.message, /"nope"/);
  assert.deepEqual(
    warnings.map((w) => `${w.code}:${w.message}`),
    ['CATALOG_CLIENT_UNKNOWN:inClusterClients[3]: no service named "ghost" in the catalog'],
  );
});

test('no cascade: a duplicate name is still a known service for its dependents', () => {
  const { errors } = errorsOf({
    'a.yaml':
      'name: a\nsource: { image: x:1 }\nports: [{ name: http, port: 80 }]\ninClusterClients: [c]\n',
    'b.yaml': 'name: a\nsource: { image: x:1 }\nexposure: everywhere\n',
    'c.yaml': 'name: c\nsource: { image: x:1 }\ndependencies: [{ to: a, port: 81 }]\n',
  });
  // c's dependency is checked against the valid a (port 81 is not exposed) despite b's errors.
  assert.ok(
    errors.some((e) => e.code === 'CATALOG_DEPENDENCY_PORT' && e.source.file === 'catalog/c.yaml'),
  );
});

test('forward-auth: no TCP port to front, and metrics on the unrouted upstream, are errors', () => {
  const udpOnly = errorsOf({
    'w.yaml':
      'name: w\nsource: { image: x:1 }\nauth: { mode: forward-auth }\nports: [{ name: dns, port: 53, protocol: UDP }]\n',
  }).errors;
  assert.deepEqual(
    udpOnly.map((e) => `${e.code}:${e.source.line}:${e.source.path}`),
    ['CATALOG_AUTH_UPSTREAM:4:ports'],
  );
  const metrics = errorsOf({
    'w.yaml':
      'name: w\nsource: { image: x:1 }\nauth: { mode: forward-auth }\nports: [{ name: http, port: 80 }]\nobservability:\n  metricsEndpoint: { port: http }\n',
  }).errors;
  assert.deepEqual(
    metrics.map((e) => `${e.code}:${e.source.line}:${e.source.path}`),
    ['CATALOG_METRICS_BYPASS:6:observability.metricsEndpoint.port'],
  );
});

test('platform: the forward-auth image must be pinned (a tag other than latest, or a digest)', () => {
  const withImage = (image: string) =>
    errorsOf({}, PLATFORM_TEXT.replace(/^ {2}image: .*$/m, `  image: ${image}`)).errors.map(
      (e) => `${e.code}:${e.source.path}:${e.message}`,
    );
  for (const image of [
    'quay.io/oauth2-proxy/oauth2-proxy',
    'quay.io/oauth2-proxy/oauth2-proxy:latest',
  ]) {
    const errors = withImage(image);
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(
      errors[0]!,
      /^CATALOG_PLATFORM_SCHEMA:forwardAuth\.image:.*expected a pinned image reference/,
    );
  }
  const digest = `@sha256:${'0'.repeat(64)}`;
  for (const image of [
    'registry.local:5000/oauth2-proxy:v7.6.0',
    `quay.io/oauth2-proxy/oauth2-proxy${digest}`,
    `quay.io/oauth2-proxy/oauth2-proxy:latest${digest}`,
  ])
    assert.deepEqual(withImage(image), [], image);
});

test('a value that fits no form of a oneOf is one error that names the forms', () => {
  const port = errorsOf({
    'web.yaml':
      'name: web\nsource: { image: x:1 }\ningressRoutes: [{ host: web.home.example.net, port: 99999 }]\n',
  }).errors;
  assert.deepEqual(
    port.map((e) => `${e.source.line}:${e.message}`),
    ['3:ingressRoutes[0].port: found 99999, expected a port number (1-65535) or a port name'],
  );
  const cilium = errorsOf(
    {},
    PLATFORM_TEXT.replace('    entity: ingress\n', '    entity: egress\n'),
  ).errors;
  assert.deepEqual(
    cilium.map((e) => `${e.code}:${e.source.path}:${e.message}`),
    [
      'CATALOG_PLATFORM_SCHEMA:gateway.cilium:gateway.cilium: found {"entity":"egress"}, expected {entity: ingress} or {namespace, podSelector}',
    ],
  );
});

test('a declared client calls the app port behind forward-auth; the login proxy is refused', () => {
  // docs/catalog.md § Forward auth: a client's calls carry no browser session.
  const { errors } = errorsOf({
    'a.yaml':
      'name: a\nsource: { image: x:1 }\ningressRoutes: [{ host: a.home.example.net, port: 8080 }]\ninClusterClients: [b, c]\n',
    'b.yaml': 'name: b\nsource: { image: x:1 }\ndependencies: [{ to: a, port: 8080 }]\n',
    'c.yaml': 'name: c\nsource: { image: x:1 }\ndependencies: [{ to: a, port: 4180 }]\n',
  });
  assert.deepEqual(
    errors.map((e) => [e.code, e.source.file, e.message, e.hint]),
    [
      [
        'CATALOG_DEPENDENCY_PROXY',
        'catalog/c.yaml',
        "dependencies[0].port: a's port 4180 is its forward-auth login proxy; an in-cluster call there gets a redirect or a 401, never the API",
        'call its app port "http" (8080) directly: c is a declared client',
      ],
    ],
  );
});

test('dependencies name a port of their target: it resolves to what the target exposes', () => {
  const run = runOf({
    'a.yaml':
      'name: a\nsource: { image: x:1 }\nports:\n  - { name: http, port: 8080 }\n  - { name: dns, port: 53, protocol: UDP }\ninClusterClients: [b]\n',
    'auth.yaml':
      'name: auth\nsource: { image: x:1 }\ningressRoutes: [{ host: auth.home.example.net, port: 9000 }]\ninClusterClients: [b]\n',
    'b.yaml':
      'name: b\nsource: { image: x:1 }\ndependencies:\n  - { to: a, port: http }\n  - { to: a, port: dns }\n  - { to: auth, port: http }\n',
  });
  assert.deepEqual(run.errors, []);
  assert.deepEqual(run.warnings, []);
  const b = run.loaded.services.find((s) => s.name === 'b')!;
  assert.deepEqual(b.dependencies, [
    { to: 'a', port: 53, protocol: 'UDP' },
    { to: 'a', port: 8080, protocol: 'TCP' },
    { to: 'auth', port: 9000, protocol: 'TCP' },
  ]);
  // The rendered egress allows exactly those ports.
  const egress = JSON.stringify(
    at(find(objectsOf(run, 'b'), 'CiliumNetworkPolicy', 'b'), 'spec', 'egress'),
  );
  assert.match(egress, /"port":"53","protocol":"UDP"/);
  assert.match(egress, /"port":"8080","protocol":"TCP"/);
  assert.match(egress, /"port":"9000","protocol":"TCP"/);
});

test('dependency port names: unknown, behind the proxy, wrong protocol, duplicate, with line and path', () => {
  const { errors } = errorsOf({
    'a.yaml': 'name: a\nsource: { image: x:1 }\nports: [{ name: http, port: 8080 }]\n',
    'auth.yaml':
      'name: auth\nsource: { image: x:1 }\nports: [{ name: web, port: 9000 }]\ningressRoutes: [{ host: auth.home.example.net, port: web }]\n',
    'b.yaml':
      'name: b\nsource: { image: x:1 }\ndependencies:\n  - { to: a, port: admin }\n  - { to: auth, port: web }\n  - { to: a, port: http, protocol: UDP }\n  - { to: a, port: http }\n  - { to: a, port: 8080 }\n  - { to: ghost, port: http }\n',
  });
  assert.deepEqual(
    errors.map((e) => `${e.code}:${e.source.line}:${e.source.path}: ${e.hint ?? ''}`),
    [
      'CATALOG_DEPENDENCY_PORT:4:dependencies[0].port: a exposes: http=8080/TCP',
      'CATALOG_DEPENDENCY_PORT:6:dependencies[2].port: a exposes: http=8080/TCP',
      'CATALOG_DEPENDENCY_UNKNOWN:9:dependencies[5].to: ',
      'CATALOG_DEPENDENCY_DUPLICATE:3:dependencies: ',
    ],
  );
  assert.match(errors[1]!.message, /a exposes no UDP port named "http"/);
});

test('a service is never named after a system or platform namespace', () => {
  for (const name of ['kube-system', 'kube-anything', 'default', 'monitoring', 'gateway']) {
    const { errors } = errorsOf({
      [`${name}.yaml`]: `# ${name}\nname: ${name}\nsource: { image: x:1 }\n`,
    });
    assert.deepEqual(
      errors.map((e) => `${e.code}:${e.source.line}:${e.source.path}`),
      ['CATALOG_RESERVED_NAME:2:name'],
      name,
    );
  }
  // kube-dns is the DNS pods' label, not a namespace: an ordinary name.
  assert.deepEqual(
    errorsOf({ 'kubedns.yaml': 'name: kubedns\nsource: { image: x:1 }\n' }).errors,
    [],
  );
});
