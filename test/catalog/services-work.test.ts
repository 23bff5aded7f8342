// Rendered services that must start and work: each case is a service that rendered cleanly and
// then could not run (issue "Rendered services that do not work").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { at, clone, find, objectsOf, runExample, runOf } from './helpers.js';
import type { KubeObject } from '../../src/catalog/index.js';
import { runConformance } from '../../src/catalog/index.js';
import { sourceHost } from '../../src/catalog/resolve/extras.js';

const example = runExample();
const json = (value: unknown) => JSON.stringify(value);

test('a VM namespace lets the CDI importer reach its image source, and only that', () => {
  const policy = find(objectsOf(example, 'homeassistant'), 'CiliumNetworkPolicy', 'cdi-importer');
  assert.ok(policy, 'no importer policy: the download could reach DNS only');
  assert.deepEqual(at(policy, 'spec', 'endpointSelector', 'matchLabels'), {
    app: 'containerized-data-importer',
    'cdi.kubevirt.io': 'importer',
  });
  const egress = at(policy, 'spec', 'egress') as unknown[];
  assert.equal(egress.length, 2);
  assert.deepEqual(at(egress[1], 'toFQDNs'), [
    { matchName: 'github.com' },
    { matchName: 'objects.githubusercontent.com' },
    { matchName: 'release-assets.githubusercontent.com' },
  ]);
  assert.deepEqual(at(egress[1], 'toPorts', 0, 'ports'), [{ port: '443', protocol: 'TCP' }]);
  // toFQDNs only works for names the DNS proxy saw.
  assert.match(json(egress[0]), /"dns":\[\{"matchPattern":"\*"\}\]/);
  assert.equal(at(policy, 'spec', 'ingress'), undefined);
  assert.doesNotMatch(json(policy), /world/);
  // A blank data disk's importer is not selected (it downloads nothing).
  const vm = find(objectsOf(example, 'homeassistant'), 'VirtualMachine');
  const labels = (at(vm, 'spec', 'dataVolumeTemplates') as unknown[]).map((t) =>
    at(t, 'metadata', 'labels', 'labelwise.kubevirt.io/disk'),
  );
  assert.deepEqual(labels, ['root', 'blank']);
});

test('the importer host follows the template: https, http with a port, docker registries', () => {
  assert.deepEqual(sourceHost('https://example.net/disk.img'), { host: 'example.net', port: 443 });
  assert.deepEqual(sourceHost('http://mirror.lan:8080/x.qcow2'), {
    host: 'mirror.lan',
    port: 8080,
  });
  assert.deepEqual(sourceHost('docker://quay.io/containerdisks/fedora:40'), {
    host: 'quay.io',
    port: 443,
  });
  assert.deepEqual(sourceHost('docker://library/ubuntu:24.04'), {
    host: 'registry-1.docker.io',
    port: 443,
  });
});

test('the forward-auth sidecar reaches the OIDC issuer on a VPN-class service, and nothing else outside', () => {
  const policy = find(objectsOf(example, 'sonarr'), 'CiliumNetworkPolicy', 'sonarr');
  const egress = at(policy, 'spec', 'egress') as unknown[];
  const fqdn = egress.filter((r) => at(r, 'toFQDNs') !== undefined);
  assert.deepEqual(
    fqdn.map((r) => [at(r, 'toFQDNs'), at(r, 'toPorts', 0, 'ports')]),
    [[[{ matchName: 'auth.home.example.net' }], [{ port: '443', protocol: 'TCP' }]]],
  );
  assert.doesNotMatch(json(egress), /world/);
  assert.match(json(egress[0]), /matchPattern/);
  // Without forward-auth there is no issuer rule.
  const blog = find(objectsOf(example, 'blog'), 'CiliumNetworkPolicy', 'blog');
  assert.doesNotMatch(json(blog), /toFQDNs/);
});

test('a declared client reaches the API behind forward-auth; the Gateway and others reach only the proxy', () => {
  const objects = objectsOf(example, 'qbittorrent');
  const ingress = at(
    find(objects, 'CiliumNetworkPolicy', 'qbittorrent'),
    'spec',
    'ingress',
  ) as unknown[];
  const to8080 = ingress.filter((r) => json(r).includes('"port":"8080"'));
  assert.equal(to8080.length, 1);
  assert.match(json(to8080[0]), /"k8s:io.kubernetes.pod.namespace":"sonarr"/);
  const gateway = ingress.find((r) => at(r, 'fromEntities') !== undefined);
  assert.deepEqual(at(gateway, 'toPorts', 0, 'ports'), [{ port: '4180', protocol: 'TCP' }]);
  assert.equal(at(find(objects, 'HTTPRoute'), 'spec', 'rules', 0, 'backendRefs', 0, 'port'), 4180);
  // sonarr's egress goes to the app port, not the login proxy.
  const sonarr = at(
    find(objectsOf(example, 'sonarr'), 'CiliumNetworkPolicy', 'sonarr'),
    'spec',
    'egress',
  );
  assert.match(json(sonarr), /"app.kubernetes.io\/name":"qbittorrent".*"port":"8080"/);
  assert.doesNotMatch(json(sonarr), /"port":"4180"/);
  assert.deepEqual(
    example.checks.filter((c) => !c.ok),
    [],
  );
});

test('a policy that admits the fronted port from an undeclared peer fails auth-exposes-only-proxy', () => {
  const objects = new Map(
    example.rendered.map((r) => [r.service, clone(r.objects) as KubeObject[]]),
  );
  const policy = objects
    .get('qbittorrent')!
    .find(
      (o) => o.kind === 'CiliumNetworkPolicy' && o.metadata.name === 'qbittorrent',
    ) as unknown as {
    spec: { ingress: { fromEntities?: string[] }[] };
  };
  policy.spec.ingress.push({
    fromEntities: ['cluster'],
    toPorts: [{ ports: [{ port: '8080', protocol: 'TCP' }] }],
  } as never);
  const results = runConformance({
    platform: example.loaded.platform!,
    services: example.loaded.services,
    objects,
    previousWorkloads: new Map(),
  });
  const auth = results.find((c) => c.name === 'auth-exposes-only-proxy' && !c.ok);
  assert.ok(auth, 'an undeclared peer on the fronted port must fail');
  assert.match(auth.message, /admits port 8080/);
});

test('skipAuthRoutes render --skip-auth-route; a regex with "=" needs a method', () => {
  const run = runOf({
    'w.yaml':
      "name: w\nsource: { image: x:1 }\ningressRoutes: [{ host: w.home.example.net, port: 80 }]\nauth: { skipAuthRoutes: ['GET=^/healthz$', '^/ready$'] }\n",
  });
  assert.deepEqual(run.errors, []);
  const args = at(
    find(objectsOf(run, 'w'), 'Deployment'),
    'spec',
    'template',
    'spec',
    'containers',
    1,
    'args',
  ) as string[];
  assert.deepEqual(
    args.filter((a) => a.startsWith('--skip-auth-route')),
    ['--skip-auth-route=GET=^/healthz$', '--skip-auth-route=^/ready$'],
  );
  const bad = runOf({
    'w.yaml':
      "name: w\nsource: { image: x:1 }\ningressRoutes: [{ host: w.home.example.net, port: 80 }]\nauth: { skipAuthRoutes: ['^/api?x=1'] }\n",
  });
  assert.deepEqual(
    bad.errors.map((e) => `${e.code}:${e.source.path}`),
    ['CATALOG_AUTH_API_ROUTES:auth.skipAuthRoutes[0]'],
  );
});

test('auth.port must agree with the routes, and names a declared port', () => {
  const run = runOf({
    'w.yaml':
      'name: w\nsource: { image: x:1 }\nports: [{ name: web, port: 8080 }, { name: p2p, port: 6881 }]\ningressRoutes: [{ host: w.home.example.net, port: web }]\nauth: { port: p2p }\n',
  });
  assert.deepEqual(
    run.errors.map((e) => `${e.code}:${e.source.line}:${e.source.path}`),
    ['CATALOG_AUTH_UPSTREAM:5:auth.port'],
  );
});

test('runAs sets a fixed non-root user; a reviewed root exception runs the app as root with exactly its capabilities', () => {
  const sonarr = at(find(objectsOf(example, 'sonarr'), 'Deployment'), 'spec', 'template', 'spec');
  assert.deepEqual(at(sonarr, 'securityContext'), {
    fsGroup: 1000,
    runAsGroup: 1000,
    runAsNonRoot: true,
    runAsUser: 1000,
    seccompProfile: { type: 'RuntimeDefault' },
  });
  const pihole = objectsOf(example, 'pihole');
  const spec = at(find(pihole, 'StatefulSet'), 'spec', 'template', 'spec');
  assert.equal(at(spec, 'securityContext', 'runAsNonRoot'), undefined);
  assert.deepEqual(at(spec, 'containers', 0, 'securityContext'), {
    allowPrivilegeEscalation: false,
    capabilities: {
      add: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'NET_BIND_SERVICE', 'SETGID', 'SETUID'],
      drop: ['ALL'],
    },
    runAsNonRoot: false,
    runAsUser: 0,
  });
  // The sidecar never runs as root; the namespace enforces baseline instead of restricted.
  assert.equal(at(spec, 'containers', 1, 'securityContext', 'runAsNonRoot'), true);
  assert.equal(
    at(find(pihole, 'Namespace'), 'metadata', 'labels', 'pod-security.kubernetes.io/enforce'),
    'baseline',
  );
  const both = runOf({
    'w.yaml':
      "name: w\nsource: { image: x:1 }\nsecurity:\n  runAs: { user: 1000 }\n  rootException: { reason: 'needs root to start', reviewedBy: me }\n",
  });
  assert.deepEqual(
    both.errors.map((e) => e.code),
    ['CATALOG_SECURITY_ROOT'],
  );
});

test('a capability no reviewed exception lists fails no-forbidden-pod-settings', () => {
  const objects = new Map(
    example.rendered.map((r) => [r.service, clone(r.objects) as KubeObject[]]),
  );
  const plex = objects.get('plex')!.find((o) => o.kind === 'Deployment') as unknown as {
    spec: {
      template: {
        spec: { containers: { securityContext: { capabilities: { add: string[] } } }[] };
      };
    };
  };
  plex.spec.template.spec.containers[0]!.securityContext.capabilities.add.push('NET_BIND_SERVICE');
  const results = runConformance({
    platform: example.loaded.platform!,
    services: example.loaded.services,
    objects,
    previousWorkloads: new Map(),
  });
  const failed = results.find((c) => c.name === 'no-forbidden-pod-settings' && !c.ok);
  assert.match(failed?.message ?? '', /adds capabilities no reviewed rootException lists/);
});

test('a LAN port gets the shared LAN address and a policy that admits the LAN to it', () => {
  const pihole = objectsOf(example, 'pihole');
  const lan = find(pihole, 'Service', 'pihole-lan');
  assert.deepEqual(at(lan, 'metadata', 'annotations'), {
    'lbipam.cilium.io/ips': '192.168.1.20',
    'lbipam.cilium.io/sharing-key': 'ingress',
  });
  assert.equal(at(lan, 'spec', 'type'), 'LoadBalancer');
  assert.deepEqual(
    (at(lan, 'spec', 'ports') as unknown[]).map(
      (p) => `${String(at(p, 'port'))}/${String(at(p, 'protocol'))}`,
    ),
    ['53/TCP', '53/UDP'],
  );
  const ingress = at(find(pihole, 'CiliumNetworkPolicy', 'pihole'), 'spec', 'ingress') as unknown[];
  const fromLan = ingress.find((r) => at(r, 'fromCIDRSet') !== undefined);
  assert.deepEqual(at(fromLan, 'fromCIDRSet'), [{ cidr: '192.168.0.0/16' }]);
  assert.deepEqual(at(fromLan, 'toPorts', 0, 'ports'), [
    { port: '53', protocol: 'TCP' },
    { port: '53', protocol: 'UDP' },
  ]);
  const routed = runOf({
    'w.yaml':
      'name: w\nsource: { image: x:1 }\nports: [{ name: web, port: 80, lan: true }]\ningressRoutes: [{ host: w.home.example.net, port: web }]\nauth: { mode: none }\n',
  });
  assert.deepEqual(
    routed.errors.map((e) => `${e.code}:${e.source.path}`),
    ['CATALOG_PORT_LAN:ports[0].lan'],
  );
});

test('a metrics endpoint on a port that ports does not list renders a named port', () => {
  const run = runOf({
    'w.yaml':
      'name: w\nsource: { image: x:1 }\nports: [{ name: http, port: 8080 }]\nobservability: { metricsEndpoint: { port: 9100 } }\n',
  });
  assert.deepEqual(run.errors, []);
  const objects = objectsOf(run, 'w');
  assert.deepEqual(
    (at(find(objects, 'Service'), 'spec', 'ports') as unknown[]).map(
      (p) => `${String(at(p, 'name'))}=${String(at(p, 'port'))}`,
    ),
    ['http=8080', 'metrics=9100'],
  );
  assert.equal(at(find(objects, 'ServiceMonitor'), 'spec', 'endpoints', 0, 'port'), 'metrics');
});
