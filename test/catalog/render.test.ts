import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { at, find, objectsOf, runExample, runOf } from './helpers.js';

const example = runExample(true);

test('the example catalog renders without errors and reproduces the checked-in apps (golden)', () => {
  assert.deepEqual(
    example.errors.map((e) => e.message),
    [],
  );
  assert.deepEqual(example.diffs, []);
  assert.ok(example.checks.length > 0);
  assert.deepEqual(
    example.checks.filter((c) => !c.ok),
    [],
  );
});

test('rendering is byte-identical for identical input', () => {
  const again = runExample(false);
  assert.deepEqual(again.files, example.files);
});

test('every service directory has a kustomization listing exactly its object files', () => {
  const byService = new Map<string, string[]>();
  for (const path of Object.keys(example.files)) {
    const [service, file] = path.split('/') as [string, string];
    byService.set(service, [...(byService.get(service) ?? []), file]);
  }
  for (const [service, files] of byService) {
    const kustomization = example.files[`${service}/kustomization.yaml`] ?? '';
    const listed = [...kustomization.matchAll(/^ {2}- (.+)$/gm)].map((m) => m[1]);
    assert.deepEqual(listed, files.filter((f) => f !== 'kustomization.yaml').sort(), service);
  }
});

test('exposure: internal routes carry the ExternalDNS opt-out under both prefixes, public routes none', () => {
  // ExternalDNS v0.22.0 reads only external-dns.kubernetes.io/: the opt-out holds on both versions.
  const internal = find(objectsOf(example, 'sonarr'), 'HTTPRoute');
  assert.deepEqual(at(internal, 'metadata', 'annotations'), {
    'external-dns.alpha.kubernetes.io/controller': 'none',
    'external-dns.kubernetes.io/controller': 'none',
  });
  const pub = find(objectsOf(example, 'plex'), 'HTTPRoute');
  assert.equal(at(pub, 'metadata', 'annotations'), undefined);
});

test('exposure absent inherits internal and its opt-out', () => {
  const run = runOf({
    'web.yaml':
      'name: web\nsource: { image: nginx:1 }\ningressRoutes: [{ host: web.home.example.net, port: 80 }]\n',
  });
  assert.deepEqual(run.errors, []);
  const route = find(objectsOf(run, 'web'), 'HTTPRoute');
  assert.equal(
    at(route, 'metadata', 'annotations', 'external-dns.alpha.kubernetes.io/controller'),
    'none',
  );
});

test('egress: internet allows world; vpn has a gateway policy and no world allow', () => {
  const blog = find(objectsOf(example, 'blog'), 'CiliumNetworkPolicy', 'blog');
  assert.ok(
    (at(blog, 'spec', 'egress') as unknown[]).some(
      (r) => JSON.stringify(r) === '{"toEntities":["world"]}',
    ),
  );
  const sonarr = objectsOf(example, 'sonarr');
  const policy = find(sonarr, 'CiliumNetworkPolicy', 'sonarr');
  assert.ok(!JSON.stringify(at(policy, 'spec', 'egress')).includes('world'));
  const gateway = find(sonarr, 'CiliumEgressGatewayPolicy', 'sonarr-vpn');
  assert.deepEqual(at(gateway, 'spec', 'egressGateway'), {
    interface: 'wg0',
    nodeSelector: { matchLabels: { 'egress.home.example.net/vpn': 'true' } },
  });
  assert.deepEqual(at(gateway, 'spec', 'destinationCIDRs'), ['0.0.0.0/0']);
});

test('baseline: default deny with only DNS, set explicitly, no monitoring allow', () => {
  const baseline = find(objectsOf(example, 'homepage'), 'CiliumNetworkPolicy', 'default-deny');
  assert.deepEqual(at(baseline, 'spec', 'enableDefaultDeny'), { egress: true, ingress: true });
  assert.deepEqual(at(baseline, 'spec', 'endpointSelector'), {});
  assert.deepEqual(at(baseline, 'spec', 'ingress'), [{}]);
  const egress = at(baseline, 'spec', 'egress') as unknown[];
  assert.equal(egress.length, 1);
  assert.match(JSON.stringify(egress), /"port":"53"/);
});

test('storage: longhorn PVC with backup labels; reacquirable without', () => {
  const sonarr = find(objectsOf(example, 'sonarr'), 'PersistentVolumeClaim', 'config');
  assert.equal(
    at(sonarr, 'metadata', 'labels', 'recurring-job-group.longhorn.io/offcluster'),
    'enabled',
  );
  assert.deepEqual(at(sonarr, 'spec', 'accessModes'), ['ReadWriteOnce']);
  assert.equal(at(sonarr, 'spec', 'storageClassName'), 'longhorn');
  const qbit = find(objectsOf(example, 'qbittorrent'), 'PersistentVolumeClaim', 'config');
  assert.equal(
    at(qbit, 'metadata', 'labels', 'recurring-job-group.longhorn.io/offcluster'),
    undefined,
  );
});

test('storage: bulk is a static NFS PV and PVC bound from both ends', () => {
  const plex = objectsOf(example, 'plex');
  const pv = find(plex, 'PersistentVolume', 'plex-media');
  const pvc = find(plex, 'PersistentVolumeClaim', 'media');
  assert.equal(at(pv, 'spec', 'storageClassName'), '');
  assert.equal(at(pvc, 'spec', 'storageClassName'), '');
  assert.deepEqual(at(pv, 'spec', 'claimRef'), { name: 'media', namespace: 'plex' });
  assert.equal(at(pvc, 'spec', 'volumeName'), 'plex-media');
  assert.equal(at(pv, 'spec', 'persistentVolumeReclaimPolicy'), 'Retain');
  assert.deepEqual(at(pv, 'spec', 'accessModes'), ['ReadOnlyMany']);
  assert.deepEqual(at(pv, 'spec', 'nfs'), {
    path: '/tank/media',
    readOnly: true,
    server: '${BULK_NFS_SERVER}',
  });
  assert.deepEqual(at(pv, 'spec', 'mountOptions'), [
    'nfsvers=4.1',
    'hard',
    'noatime',
    'timeo=600',
    'retrans=2',
  ]);
  const rw = find(objectsOf(example, 'sonarr'), 'PersistentVolume', 'sonarr-media');
  assert.deepEqual(at(rw, 'spec', 'accessModes'), ['ReadWriteMany']);
  assert.equal(at(rw, 'spec', 'nfs', 'readOnly'), undefined);
  const qbit = find(objectsOf(example, 'qbittorrent'), 'Deployment');
  const mounts = at(qbit, 'spec', 'template', 'spec', 'containers', 0, 'volumeMounts') as unknown[];
  assert.deepEqual(mounts[1], { mountPath: '/media', name: 'media', subPath: 'downloads' });
});

test('replicas 1: Deployment, Recreate with storage, no PDB; replicas 3: StatefulSet with templates', () => {
  const plex = objectsOf(example, 'plex');
  assert.equal(at(find(plex, 'Deployment'), 'spec', 'strategy', 'type'), 'Recreate');
  assert.equal(find(plex, 'PodDisruptionBudget'), undefined);
  assert.equal(
    at(find(objectsOf(example, 'homepage'), 'Deployment'), 'spec', 'strategy'),
    undefined,
  );
  const pihole = objectsOf(example, 'pihole');
  const sts = find(pihole, 'StatefulSet');
  assert.equal(at(sts, 'spec', 'podManagementPolicy'), 'Parallel');
  assert.equal(at(sts, 'spec', 'replicas'), 3);
  assert.equal(at(sts, 'spec', 'volumeClaimTemplates', 0, 'metadata', 'name'), 'config');
  assert.equal(
    at(sts, 'spec', 'template', 'spec', 'containers', 0, 'volumeMounts', 0, 'name'),
    'config',
  );
  assert.equal(
    at(sts, 'spec', 'template', 'spec', 'volumes'),
    undefined,
    'no pod volume for a claim template',
  );
  assert.equal(find(pihole, 'PersistentVolumeClaim'), undefined, 'no standalone longhorn PVC');
  const term = at(
    sts,
    'spec',
    'template',
    'spec',
    'affinity',
    'podAntiAffinity',
    'requiredDuringSchedulingIgnoredDuringExecution',
    0,
  );
  assert.equal(at(term, 'topologyKey'), 'kubernetes.io/hostname');
  assert.equal(at(find(pihole, 'PodDisruptionBudget'), 'spec', 'minAvailable'), 1);
  assert.match(
    String(at(find(pihole, 'PrometheusRule'), 'spec', 'groups', 0, 'rules', 0, 'expr')),
    /kube_statefulset_status_replicas_available/,
  );
});

test('kind vm: VirtualMachine with a CDI-imported root disk, VMI-shaped liveness, no Deployment', () => {
  const ha = objectsOf(example, 'homeassistant');
  const vm = find(ha, 'VirtualMachine');
  assert.equal(at(vm, 'spec', 'dataVolumeTemplates', 0, 'metadata', 'name'), 'homeassistant-root');
  assert.match(
    String(at(vm, 'spec', 'dataVolumeTemplates', 0, 'spec', 'source', 'http', 'url')),
    /^https:/,
  );
  assert.deepEqual(at(vm, 'spec', 'dataVolumeTemplates', 1, 'spec', 'source'), { blank: {} });
  assert.equal(find(ha, 'Deployment'), undefined);
  assert.match(
    String(at(find(ha, 'PrometheusRule'), 'spec', 'groups', 0, 'rules', 0, 'expr')),
    /kubevirt_vmi_info/,
  );
});

test('auth on: proxy sidecar, one --api-route and one --skip-auth-route per entry, only the proxy port exposed', () => {
  const homepage = objectsOf(example, 'homepage');
  const containers = at(
    find(homepage, 'Deployment'),
    'spec',
    'template',
    'spec',
    'containers',
  ) as unknown[];
  assert.equal(containers.length, 2);
  const args = at(containers[1], 'args') as string[];
  assert.deepEqual(
    args.filter((a) => a.startsWith('--api-route') || a.startsWith('--skip-auth-route')),
    // The health check is served without login (skip-auth-route); an api-route still needs one.
    ['--api-route=^/api/widgets/', '--skip-auth-route=GET=^/api/healthcheck$'],
  );
  assert.ok(args.includes('--upstream=http://127.0.0.1:3000/'));
  assert.deepEqual(
    (at(find(homepage, 'Service'), 'spec', 'ports') as unknown[]).map((p) => at(p, 'port')),
    [4180],
  );
  assert.equal(at(find(homepage, 'HTTPRoute'), 'spec', 'rules', 0, 'backendRefs', 0, 'port'), 4180);
});

test('auth off: no sidecar, the route targets the app port', () => {
  const blog = objectsOf(example, 'blog');
  assert.equal(
    (at(find(blog, 'Deployment'), 'spec', 'template', 'spec', 'containers') as unknown[]).length,
    1,
  );
  assert.equal(
    at(find(blog, 'HTTPRoute', 'blog'), 'spec', 'rules', 0, 'backendRefs', 0, 'port'),
    8080,
  );
});

test('auth defaults: forward-auth with routes, none without', () => {
  const run = runOf({
    'a.yaml':
      'name: a\nsource: { image: x:1 }\ningressRoutes: [{ host: a.home.example.net, port: 80 }]\n',
    'b.yaml': 'name: b\nsource: { image: x:1 }\n',
  });
  assert.deepEqual(run.errors, []);
  assert.equal(run.loaded.services.find((s) => s.name === 'a')?.auth.mode, 'forward-auth');
  assert.equal(run.loaded.services.find((s) => s.name === 'b')?.auth.mode, 'none');
  const args = at(
    find(objectsOf(run, 'a'), 'Deployment'),
    'spec',
    'template',
    'spec',
    'containers',
    1,
    'args',
  ) as string[];
  assert.ok(!args.some((a) => a.startsWith('--api-route')), 'no apiRoutes renders no --api-route');
});

test('gpu renders exactly the one extended-resource limit and nothing else', () => {
  const plex = find(objectsOf(example, 'plex'), 'Deployment');
  const blog = find(objectsOf(example, 'blog'), 'Deployment');
  const app = at(plex, 'spec', 'template', 'spec', 'containers', 0) as Record<string, unknown>;
  assert.deepEqual(app.resources, { limits: { 'gpu.intel.com/i915': 1 } });
  // Same definition without hardware: the only difference in the pod spec is that one key.
  const run = runOf({
    'p.yaml': 'name: p\nsource: { image: x:1 }\nhardware: { gpu: intel-quicksync }\n',
    'q.yaml': 'name: p\nsource: { image: x:1 }\n'.replace('name: p', 'name: q'),
  });
  const withGpu = JSON.parse(
    JSON.stringify(
      at(find(objectsOf(run, 'p'), 'Deployment'), 'spec', 'template', 'spec'),
    ).replaceAll('"p"', '"q"'),
  );
  const without = at(find(objectsOf(run, 'q'), 'Deployment'), 'spec', 'template', 'spec') as Record<
    string,
    unknown
  >;
  assert.deepEqual(withGpu.containers[0].resources, { limits: { 'gpu.intel.com/i915': 1 } });
  delete withGpu.containers[0].resources;
  assert.deepEqual(withGpu, without);
  const podSpec = at(plex, 'spec', 'template', 'spec') as Record<string, unknown>;
  assert.equal(at(podSpec, 'securityContext', 'supplementalGroups'), undefined);
  assert.equal(podSpec.nodeSelector, undefined);
  assert.equal(at(blog, 'spec', 'template', 'spec', 'containers', 0, 'resources'), undefined);
});

test('metrics endpoint: ServiceMonitor with the pick-up label, named Service port, scrape allow', () => {
  const blog = objectsOf(example, 'blog');
  const monitor = find(blog, 'ServiceMonitor');
  assert.equal(at(monitor, 'metadata', 'labels', 'release'), 'kube-prometheus-stack');
  assert.deepEqual(at(monitor, 'spec', 'endpoints'), [{ path: '/metrics', port: 'metrics' }]);
  const ingress = JSON.stringify(at(find(blog, 'CiliumNetworkPolicy', 'blog'), 'spec', 'ingress'));
  assert.match(ingress, /"app.kubernetes.io\/name":"prometheus"/);
  assert.match(ingress, /"port":"9113"/);
  assert.equal(find(objectsOf(example, 'plex'), 'ServiceMonitor'), undefined);
  assert.doesNotMatch(
    JSON.stringify(find(objectsOf(example, 'plex'), 'CiliumNetworkPolicy', 'plex')),
    /prometheus/,
  );
});

test('updates: annotations on the workload; progress deadline only with auto-rollback', () => {
  const blog = find(objectsOf(example, 'blog'), 'Deployment');
  assert.equal(at(blog, 'metadata', 'annotations', 'updates.home.example.net/channel'), 'beta');
  assert.equal(at(blog, 'spec', 'progressDeadlineSeconds'), undefined);
  const plex = find(objectsOf(example, 'plex'), 'Deployment');
  assert.equal(at(plex, 'spec', 'progressDeadlineSeconds'), 600);
  assert.equal(at(plex, 'metadata', 'annotations', 'updates.home.example.net/channel'), 'stable');
});

test('dependencies and clients render matching egress and ingress allows', () => {
  const sonarr = JSON.stringify(
    at(find(objectsOf(example, 'sonarr'), 'CiliumNetworkPolicy', 'sonarr'), 'spec', 'egress'),
  );
  assert.match(sonarr, /"k8s:io.kubernetes.pod.namespace":"qbittorrent"/);
  const qbit = JSON.stringify(
    at(
      find(objectsOf(example, 'qbittorrent'), 'CiliumNetworkPolicy', 'qbittorrent'),
      'spec',
      'ingress',
    ),
  );
  assert.match(qbit, /"k8s:io.kubernetes.pod.namespace":"sonarr"/);
});

test('regression: names YAML 1.1 reads as booleans stay strings (a service named "no")', () => {
  const run = runOf({ 'no.yaml': 'name: "no"\nsource: { image: x:1 }\n' });
  assert.deepEqual(run.errors, []);
  const text = run.files['no/namespace-no.yaml'] ?? '';
  assert.match(text, /^ {2}name: "no"$/m);
  assert.equal(
    (parse(text, { version: '1.1' }) as { metadata: { name: unknown } }).metadata.name,
    'no',
  );
});

test('auth without routes: the fronted port is named, never guessed; only declared clients reach it', () => {
  const guessed = runOf({
    'w.yaml':
      'name: w\nsource: { image: x:1 }\nauth: { mode: forward-auth }\nports:\n  - { name: torrent, port: 6881 }\n  - { name: web, port: 8080 }\n',
  });
  assert.deepEqual(
    guessed.errors.map((e) => `${e.code}:${e.source.path}:${e.hint ?? ''}`),
    ['CATALOG_AUTH_UPSTREAM:auth.mode:name the fronted port with auth.port'],
  );
  const run = runOf({
    'w.yaml':
      'name: w\nsource: { image: x:1 }\nauth: { mode: forward-auth, port: http }\nports:\n  - { name: http, port: 80 }\n  - { name: admin, port: 8081 }\n  - { name: dns, port: 53, protocol: UDP }\ninClusterClients: [c]\n',
    'c.yaml': 'name: c\nsource: { image: x:1 }\ndependencies: [{ to: w, port: 80 }]\n',
  });
  assert.deepEqual(run.errors, []);
  const objects = objectsOf(run, 'w');
  const args = at(
    find(objects, 'Deployment'),
    'spec',
    'template',
    'spec',
    'containers',
    1,
    'args',
  ) as string[];
  assert.ok(args.includes('--upstream=http://127.0.0.1:80/'), args.join(' '));
  const exposed = (at(find(objects, 'Service'), 'spec', 'ports') as unknown[]).map(
    (p) => `${String(at(p, 'port'))}/${String(at(p, 'protocol'))}`,
  );
  // The declared client c calls the fronted port 80 directly; the policy admits it from c alone.
  assert.deepEqual(exposed, ['53/UDP', '80/TCP', '4180/TCP', '8081/TCP']);
  const ingress = at(find(objects, 'CiliumNetworkPolicy', 'w'), 'spec', 'ingress') as unknown[];
  const admitting80 = ingress.filter((r) => JSON.stringify(r).includes('"port":"80"'));
  assert.equal(admitting80.length, 1);
  assert.match(JSON.stringify(admitting80[0]), /"k8s:io.kubernetes.pod.namespace":"c"/);
  assert.doesNotMatch(JSON.stringify(admitting80[0]), /4180/);
  assert.deepEqual(
    run.checks.filter((c) => !c.ok),
    [],
  );
});
