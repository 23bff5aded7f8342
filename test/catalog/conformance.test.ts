// One deliberately broken object per conformance check, proving each check can fail, plus the
// selector proof over the whole example.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runConformance } from '../../src/catalog/index.js';
import type { KubeObject } from '../../src/catalog/index.js';
import { at, clone, runExample, runOf } from './helpers.js';

const example = runExample(false);
const platform = example.loaded.platform!;

/** Runs conformance over the example with `mutate` applied to one service's objects. */
function failuresAfter(
  service: string,
  mutate: (objects: KubeObject[]) => KubeObject[] | void,
  previous: Map<string, string> = new Map(),
) {
  const objects = new Map(
    example.rendered.map((r) => [r.service, clone(r.objects) as KubeObject[]]),
  );
  const mine = objects.get(service)!;
  const replaced = mutate(mine);
  if (replaced !== undefined) objects.set(service, replaced);
  return runConformance({
    platform,
    services: example.loaded.services,
    objects,
    previousWorkloads: previous,
  }).filter((c) => !c.ok);
}

function edit(
  objects: KubeObject[],
  kind: string,
  name: string | undefined,
  fn: (o: Record<string, unknown>) => void,
) {
  const object = objects.find(
    (o) => o.kind === kind && (name === undefined || o.metadata.name === name),
  );
  assert.ok(object, `${kind} ${name ?? ''} exists`);
  fn(object as unknown as Record<string, unknown>);
}

test('the unmodified example passes every check', () => {
  assert.deepEqual(
    failuresAfter('blog', () => undefined),
    [],
  );
});

test('every selector of the example selects exactly its own pods', () => {
  const selectorChecks = example.checks.filter((c) => c.name === 'selectors-select-own-pods');
  // Service, workload selector, workload policy and baseline per service; PDB + anti-affinity for pihole.
  assert.ok(selectorChecks.length >= example.rendered.length * 3, String(selectorChecks.length));
  assert.ok(selectorChecks.every((c) => c.ok));
});

const cases: {
  name: string;
  check: string;
  service: string;
  mutate: (objects: KubeObject[]) => KubeObject[] | void;
  previous?: Map<string, string>;
}[] = [
  {
    name: 'internal route without the ExternalDNS opt-out',
    check: 'internal-services-publish-no-public-dns',
    service: 'sonarr',
    mutate: (o) =>
      edit(
        o,
        'HTTPRoute',
        undefined,
        (r) => delete (r.metadata as Record<string, unknown>).annotations,
      ),
  },
  {
    name: 'public route with the opt-out',
    check: 'internal-services-publish-no-public-dns',
    service: 'plex',
    mutate: (o) =>
      edit(
        o,
        'HTTPRoute',
        undefined,
        (r) =>
          ((r.metadata as Record<string, unknown>).annotations = {
            'external-dns.alpha.kubernetes.io/controller': 'none',
          }),
      ),
  },
  {
    name: 'Service selector on the name label only (would select CDI importer pods of a VM)',
    check: 'selectors-select-own-pods',
    service: 'homeassistant',
    mutate: (o) =>
      edit(
        o,
        'Service',
        undefined,
        (s) =>
          ((s.spec as Record<string, unknown>).selector = {
            'app.kubernetes.io/name': 'homeassistant',
          }),
      ),
  },
  {
    name: 'network policy selecting every pod',
    check: 'selectors-select-own-pods',
    service: 'blog',
    mutate: (o) =>
      edit(
        o,
        'CiliumNetworkPolicy',
        'blog',
        (p) => ((p.spec as Record<string, unknown>).endpointSelector = {}),
      ),
  },
  {
    name: 'PDB selecting another service',
    check: 'selectors-select-own-pods',
    service: 'pihole',
    mutate: (o) =>
      edit(
        o,
        'PodDisruptionBudget',
        undefined,
        (p) =>
          ((p.spec as Record<string, unknown>).selector = {
            matchLabels: {
              'app.kubernetes.io/name': 'plex',
              'app.kubernetes.io/component': 'workload',
            },
          }),
      ),
  },
  {
    name: 'anti-affinity term on the managed-by label only',
    check: 'selectors-select-own-pods',
    service: 'pihole',
    mutate: (o) =>
      edit(o, 'StatefulSet', undefined, (s) => {
        const term = at(
          s,
          'spec',
          'template',
          'spec',
          'affinity',
          'podAntiAffinity',
          'requiredDuringSchedulingIgnoredDuringExecution',
          0,
        ) as Record<string, unknown>;
        term.labelSelector = { matchLabels: { 'app.kubernetes.io/managed-by': 'labelwise' } };
      }),
  },
  {
    name: 'VPN gateway selector without its namespace (steers look-alike pods anywhere)',
    check: 'selectors-select-own-pods',
    service: 'sonarr',
    mutate: (o) =>
      edit(o, 'CiliumEgressGatewayPolicy', 'sonarr-vpn', (p) => {
        const labels = at(p, 'spec', 'selectors', 0, 'podSelector', 'matchLabels') as Record<
          string,
          string
        >;
        delete labels['io.kubernetes.pod.namespace'];
      }),
  },
  {
    name: 'VPN gateway selector pointing at another service (sonarr has no way out)',
    check: 'selectors-select-own-pods',
    service: 'sonarr',
    mutate: (o) =>
      edit(o, 'CiliumEgressGatewayPolicy', 'sonarr-vpn', (p) => {
        const labels = at(p, 'spec', 'selectors', 0, 'podSelector', 'matchLabels') as Record<
          string,
          string
        >;
        labels['app.kubernetes.io/name'] = 'qbittorrent';
        labels['io.kubernetes.pod.namespace'] = 'qbittorrent';
      }),
  },
  {
    name: 'VPN gateway selector selecting every pod of the namespace',
    check: 'selectors-select-own-pods',
    service: 'sonarr',
    mutate: (o) =>
      edit(o, 'CiliumEgressGatewayPolicy', 'sonarr-vpn', (p) => {
        (at(p, 'spec', 'selectors', 0) as Record<string, unknown>).podSelector = {
          matchLabels: { 'io.kubernetes.pod.namespace': 'sonarr' },
        };
      }),
  },
  {
    name: 'dependency peer on the namespace label only (selects every pod there)',
    check: 'peer-selectors-select-their-service',
    service: 'sonarr',
    mutate: (o) =>
      edit(o, 'CiliumNetworkPolicy', 'sonarr', (p) => {
        const peer = at(p, 'spec', 'egress', 1, 'toEndpoints', 0) as Record<string, unknown>;
        peer.matchLabels = { 'k8s:io.kubernetes.pod.namespace': 'qbittorrent' };
      }),
  },
  {
    name: 'client peer pointing at the wrong service',
    check: 'peer-selectors-select-their-service',
    service: 'blog',
    mutate: (o) =>
      edit(o, 'CiliumNetworkPolicy', 'blog', (p) => {
        const labels = at(p, 'spec', 'ingress', 1, 'fromEndpoints', 0, 'matchLabels') as Record<
          string,
          string
        >;
        labels['app.kubernetes.io/name'] = 'plex';
      }),
  },
  {
    name: 'route backend on a port the Service does not have',
    check: 'backend-ports-resolve',
    service: 'blog',
    mutate: (o) =>
      edit(
        o,
        'HTTPRoute',
        'blog',
        (r) =>
          ((at(r, 'spec', 'rules', 0, 'backendRefs', 0) as Record<string, unknown>).port = 9999),
      ),
  },
  {
    name: 'ServiceMonitor on an unnamed port',
    check: 'backend-ports-resolve',
    service: 'blog',
    mutate: (o) =>
      edit(
        o,
        'ServiceMonitor',
        undefined,
        (m) => ((at(m, 'spec', 'endpoints', 0) as Record<string, unknown>).port = 'prom'),
      ),
  },
  {
    name: 'StatefulSet without its PDB',
    check: 'pdb-iff-replicas',
    service: 'pihole',
    mutate: (o) => o.filter((x) => x.kind !== 'PodDisruptionBudget'),
  },
  {
    name: 'PDB with minAvailable above 1',
    check: 'pdb-iff-replicas',
    service: 'pihole',
    mutate: (o) =>
      edit(
        o,
        'PodDisruptionBudget',
        undefined,
        (p) => ((p.spec as Record<string, unknown>).minAvailable = 3),
      ),
  },
  {
    name: 'PDB at one replica',
    check: 'pdb-iff-replicas',
    service: 'blog',
    mutate: (o) => [
      ...o,
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'blog', namespace: 'blog' },
        spec: { minAvailable: 1 },
      },
    ],
  },
  {
    name: 'bulk claim not naming its volume',
    check: 'bulk-volumes-bound-both-ways',
    service: 'plex',
    mutate: (o) =>
      edit(
        o,
        'PersistentVolumeClaim',
        'media',
        (c) => delete (c.spec as Record<string, unknown>).volumeName,
      ),
  },
  {
    name: 'bulk volume with Delete reclaim',
    check: 'bulk-volumes-bound-both-ways',
    service: 'plex',
    mutate: (o) =>
      edit(
        o,
        'PersistentVolume',
        'plex-media',
        (v) => ((v.spec as Record<string, unknown>).persistentVolumeReclaimPolicy = 'Delete'),
      ),
  },
  {
    name: 'privileged container',
    check: 'no-forbidden-pod-settings',
    service: 'plex',
    mutate: (o) =>
      edit(
        o,
        'Deployment',
        undefined,
        (d) =>
          ((
            at(d, 'spec', 'template', 'spec', 'containers', 0, 'securityContext') as Record<
              string,
              unknown
            >
          ).privileged = true),
      ),
  },
  {
    name: 'hostPath volume and a CPU limit',
    check: 'no-forbidden-pod-settings',
    service: 'blog',
    mutate: (o) =>
      edit(o, 'Deployment', undefined, (d) => {
        const spec = at(d, 'spec', 'template', 'spec') as Record<string, unknown>;
        spec.volumes = [{ name: 'dri', hostPath: { path: '/dev/dri' } }];
        (at(spec, 'containers', 0) as Record<string, unknown>).resources = { limits: { cpu: '1' } };
      }),
  },
  {
    name: 'supplementalGroups on a GPU pod',
    check: 'no-forbidden-pod-settings',
    service: 'plex',
    mutate: (o) =>
      edit(
        o,
        'Deployment',
        undefined,
        (d) =>
          ((
            at(d, 'spec', 'template', 'spec', 'securityContext') as Record<string, unknown>
          ).supplementalGroups = [992]),
      ),
  },
  {
    name: 'auth service exposing its app port',
    check: 'auth-exposes-only-proxy',
    service: 'homepage',
    mutate: (o) =>
      edit(o, 'Service', undefined, (s) =>
        (at(s, 'spec', 'ports') as unknown[]).push({
          name: 'http',
          port: 3000,
          targetPort: 3000,
          protocol: 'TCP',
        }),
      ),
  },
  {
    name: 'auth service whose route bypasses the proxy',
    check: 'auth-exposes-only-proxy',
    service: 'homepage',
    mutate: (o) =>
      edit(
        o,
        'HTTPRoute',
        undefined,
        (r) =>
          ((at(r, 'spec', 'rules', 0, 'backendRefs', 0) as Record<string, unknown>).port = 3000),
      ),
  },
  {
    name: 'VPN-class service with a world allow and no gateway policy',
    check: 'vpn-class-services-use-vpn',
    service: 'sonarr',
    mutate: (o) => {
      edit(o, 'CiliumNetworkPolicy', 'sonarr', (p) =>
        (at(p, 'spec', 'egress') as unknown[]).push({ toEntities: ['world'] }),
      );
      return o.filter((x) => x.kind !== 'CiliumEgressGatewayPolicy');
    },
  },
  {
    name: 'Deployment → StatefulSet flip with Longhorn storage, unacknowledged',
    check: 'storage-migration-acknowledged',
    service: 'pihole',
    mutate: () => undefined,
    previous: new Map([['pihole', 'Deployment']]),
  },
];

for (const c of cases) {
  test(`${c.check} fails on: ${c.name}`, () => {
    const failures = failuresAfter(c.service, c.mutate, c.previous);
    const mine = failures.filter((f) => f.name === c.check);
    assert.ok(mine.length > 0, `${c.check} failed: ${JSON.stringify(failures)}`);
    assert.ok(
      mine.every((f) => f.object.includes(c.service)),
      JSON.stringify(mine),
    );
    assert.ok(mine.every((f) => f.message.length > 0));
  });
}

test('storage-migration: the flip passes once acknowledged', () => {
  const pihole =
    'name: pihole\nsource: { image: x:1 }\nstorage: [{ name: config, class: longhorn, size: 1Gi }]\navailability: { replicas: 2, acknowledgeStorageMigration: true }\n';
  const apps = {
    'pihole/deployment-pihole.yaml':
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: pihole }\n',
  };
  const run = runOf({ 'pihole.yaml': pihole }, apps);
  const check = run.checks.find((c) => c.name === 'storage-migration-acknowledged');
  assert.equal(check?.ok, true);
  const refused = runOf({ 'pihole.yaml': pihole.replace('true', 'false') }, apps).checks.find(
    (c) => c.name === 'storage-migration-acknowledged',
  );
  assert.equal(refused?.ok, false);
  assert.match(refused?.message ?? '', /empty Longhorn volumes/);
});

test('vpn-class: a VPN-class service declared with internet egress fails', () => {
  const run = runOf({ 'radarr.yaml': 'name: radarr\nsource: { image: x:1 }\n' });
  const check = run.checks.find((c) => c.name === 'vpn-class-services-use-vpn');
  assert.equal(check?.ok, false);
  assert.match(check?.message ?? '', /egress: internet/);
});

test('auth-exposes-only-proxy fails when an unrouted auth service exposes its upstream port', () => {
  const run = runOf({
    'w.yaml':
      'name: w\nsource: { image: x:1 }\nauth: { mode: forward-auth }\nports: [{ name: http, port: 80 }]\n',
  });
  assert.deepEqual(run.errors, []);
  const objects = new Map(run.rendered.map((r) => [r.service, clone(r.objects) as KubeObject[]]));
  const mine = objects.get('w')!;
  edit(mine, 'Service', 'w', (s) =>
    (at(s, 'spec', 'ports') as unknown[]).push({
      name: 'http',
      port: 80,
      targetPort: 'http',
      protocol: 'TCP',
    }),
  );
  const failures = runConformance({
    platform: run.loaded.platform!,
    services: run.loaded.services,
    objects,
    previousWorkloads: new Map(),
  }).filter((c) => !c.ok);
  assert.deepEqual(
    failures.map((f) => `${f.name}: ${f.object}: ${f.message}`),
    ['auth-exposes-only-proxy: Deployment w/w: Service w exposes app port 80'],
  );
});

test('the VPN gateway selector checks name what went wrong', () => {
  const messages = (mutate: (labels: Record<string, string>) => void) =>
    failuresAfter('sonarr', (o) =>
      edit(o, 'CiliumEgressGatewayPolicy', 'sonarr-vpn', (p) =>
        mutate(
          at(p, 'spec', 'selectors', 0, 'podSelector', 'matchLabels') as Record<string, string>,
        ),
      ),
    ).map((f) => `${f.object}: ${f.message}`);
  assert.deepEqual(
    messages((l) => delete l['io.kubernetes.pod.namespace']),
    [
      "CiliumEgressGatewayPolicy sonarr-vpn spec.selectors[0].podSelector: also steers pods labelled like sonarr's in any other namespace through the VPN gateway",
    ],
  );
  // Component and namespace alone still pick exactly sonarr's workload: not a failure.
  assert.deepEqual(
    messages((l) => delete l['app.kubernetes.io/name']),
    [],
  );
});
