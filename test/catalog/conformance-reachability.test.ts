// The reachability proof over the example: it passes as rendered, and each deliberately broken
// policy fails it with a witness.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runConformance } from '../../src/catalog/index.js';
import type { CheckResult, KubeObject } from '../../src/catalog/index.js';
import { proveReachability } from '../../src/catalog/conformance/check-reachability.js';
import { formatPorts } from '../../src/catalog/conformance/port-sets.js';
import { checkDiagnostics } from '../../src/catalog/pipeline.js';
import { clone, runExample } from './helpers.js';

const example = runExample(false);
const platform = example.loaded.platform!;
const REACH = 'reachability-matches-declared';
const PEERS = 'policy-peers-within-declared';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests edit plain rendered data
type Plain = Record<string, any>;

function objectsAfter(service: string, mutate: (policy: Plain) => void, name = service) {
  const objects = new Map(
    example.rendered.map((r) => [r.service, clone(r.objects) as KubeObject[]]),
  );
  const policy = objects
    .get(service)!
    .find((o) => o.kind === 'CiliumNetworkPolicy' && o.metadata.name === name);
  assert.ok(policy, `${service}/${name}`);
  mutate(policy as unknown as Plain);
  return objects;
}

function failures(objects: Map<string, KubeObject[]>): CheckResult[] {
  return runConformance({
    platform,
    services: example.loaded.services,
    objects,
    previousWorkloads: new Map(),
  }).filter((c) => !c.ok && (c.name === REACH || c.name === PEERS));
}

test('the example proves: every flow as declared, every peer within its declaration', () => {
  const objects = new Map(example.rendered.map((r) => [r.service, r.objects]));
  const { results, reachability } = proveReachability(example.loaded.services, objects, platform);
  assert.deepEqual(
    results.filter((r) => !r.ok),
    [],
  );
  assert.equal(results.filter((r) => r.name === REACH).length, example.rendered.length);
  const flow = (from: string, to: string) =>
    formatPorts(reachability.flows.find((f) => f.from.id === from && f.to.id === to)?.ports ?? []);
  // A declared dependency with a declared client: exactly the proxy port.
  // A declared client calls the app port behind forward-auth directly (docs/catalog.md § Forward auth).
  assert.equal(flow('sonarr/workload', 'qbittorrent/workload'), 'TCP/8080');
  assert.equal(flow('homepage/workload', 'blog/workload'), 'TCP/8080');
  // Prometheus only where a metrics endpoint is declared, only on it.
  assert.equal(flow('platform/prometheus', 'blog/workload'), 'TCP/9113');
  assert.equal(flow('platform/prometheus', 'plex/workload'), 'no port');
  // The Gateway reaches the proxy, never the app port behind it.
  assert.equal(flow('platform/gateway', 'sonarr/workload'), 'TCP/4180');
  // VPN class: the IPv4 internet, never IPv6, never an excluded LAN block; other pods: DNS only.
  assert.equal(
    flow('sonarr/workload', 'external/internet-ipv4'),
    'SCTP/1-65535, TCP/1-65535, UDP/1-65535',
  );
  assert.equal(flow('sonarr/workload', 'external/internet-ipv6'), 'no port');
  assert.equal(flow('sonarr/workload', 'external/lan/192.168.0.0/16'), 'no port');
  assert.equal(
    flow('plex/workload', 'external/internet-ipv6'),
    'SCTP/1-65535, TCP/1-65535, UDP/1-65535',
  );
  assert.equal(flow('plex/other', 'platform/dns'), 'TCP/53, UDP/53');
  assert.equal(flow('plex/other', 'external/internet-ipv4'), 'no port');
  assert.equal(flow('blog/workload', 'qbittorrent/workload'), 'no port');
});

test('a client peer without its namespace admits pods of any name in the policy namespace', () => {
  const objects = objectsAfter('qbittorrent', (p) => {
    delete p.spec.ingress[1].fromEndpoints[0].matchLabels['k8s:io.kubernetes.pod.namespace'];
  });
  const found = failures(objects);
  const symbolic = found.find((f) => f.name === PEERS && f.object.includes('qbittorrent/'));
  assert.ok(symbolic, JSON.stringify(found));
  assert.match(symbolic.object, /qbittorrent\/qbittorrent spec\.ingress\[1\]\.fromEndpoints\[0\]/);
  assert.ok(symbolic.witness !== undefined);
  // The real client, sonarr, no longer gets through: a concrete, declared flow is missing.
  assert.ok(
    found.some(
      (f) => f.name === REACH && /sonarr cannot reach .*qbittorrent on TCP\/8080/.test(f.message),
    ),
  );
});

test('a removed Gateway rule is a declared flow that does not go through', () => {
  const objects = objectsAfter('plex', (p) => {
    p.spec.ingress.shift();
    if (p.spec.ingress.length === 0) delete p.spec.ingress;
  });
  const found = failures(objects);
  assert.ok(
    found.some(
      (f) =>
        f.name === REACH &&
        /the Gateway .*cannot reach the workload pods of plex on TCP\/32400/.test(f.message),
    ),
    JSON.stringify(found),
  );
});

test('world egress on a VPN-class service is an undeclared flow with a witness', () => {
  const objects = objectsAfter('sonarr', (p) => p.spec.egress.push({ toEntities: ['world'] }));
  const found = failures(objects);
  const extra = found.find(
    (f) => f.name === REACH && /can reach the internet over IPv6/.test(f.message),
  );
  assert.ok(extra, JSON.stringify(found));
  assert.equal(extra.object, 'CiliumNetworkPolicy sonarr/sonarr');
  assert.deepEqual(
    Object.keys((extra.witness as { from: object }).from).includes('k8s:app.kubernetes.io/name'),
    true,
  );
  assert.ok(found.some((f) => f.name === PEERS && /egress\[4\]\.toEntities/.test(f.object)));
});

test("a failed check's diagnostic carries its witness and points at the definition", () => {
  const objects = objectsAfter('sonarr', (p) => p.spec.egress.push({ toEntities: ['world'] }));
  const extra = failures(objects).find((f) => /the internet over IPv6/.test(f.message));
  assert.ok(extra?.witness !== undefined);
  const [diagnostic] = checkDiagnostics([extra], example.loaded);
  assert.equal(diagnostic?.code, 'CATALOG_CONFORMANCE');
  assert.equal(diagnostic?.file, 'examples/homelab/catalog/sonarr.yaml');
  assert.deepEqual(diagnostic?.witness, extra.witness);
  // A check without a witness gives a diagnostic without the key.
  const [plain] = checkDiagnostics([{ ...extra, witness: undefined }], example.loaded);
  assert.equal(plain !== undefined && 'witness' in plain, false);
});

test('an L4-only ingress rule admits every pod: witness {}', () => {
  const objects = objectsAfter('blog', (p) =>
    p.spec.ingress.push({ toPorts: [{ ports: [{ port: '8080', protocol: 'TCP' }] }] }),
  );
  const found = failures(objects);
  const peer = found.find((f) => f.name === PEERS && /ingress\[3\]/.test(f.object));
  assert.ok(peer, JSON.stringify(found));
  assert.deepEqual(peer.witness, {});
  assert.ok(
    found.some(
      (f) =>
        f.name === REACH &&
        // Outside peers (named hosts, LAN clients) are listed before in-cluster ones.
        /can reach the workload pods of blog on TCP\/8080, which no definition declares/.test(
          f.message,
        ),
    ),
  );
});

test('a dependency on the wrong port: the declared one is missing, the open one is extra', () => {
  const objects = objectsAfter('homepage', (p) => {
    p.spec.egress[1].toPorts[0].ports[0].port = '9113';
  });
  const messages = failures(objects).map((f) => f.message);
  assert.ok(
    messages.some((m) => /homepage cannot reach the workload pods of blog on TCP\/8080/.test(m)),
    messages.join('\n'),
  );
  assert.ok(
    messages.some((m) =>
      /opens TCP\/9113 to the workload pods of blog, beyond the declared TCP\/8080/.test(m),
    ),
    messages.join('\n'),
  );
});

test('a baseline without DNS cuts every other pod off from name resolution', () => {
  const objects = objectsAfter(
    'pihole',
    (p) => {
      p.spec.egress = [{}];
    },
    'default-deny',
  );
  const found = failures(objects);
  assert.ok(
    found.some((f) =>
      /an unlabelled pod in pihole cannot reach the cluster DNS pods on TCP\/53, UDP\/53/.test(
        f.message,
      ),
    ),
    JSON.stringify(found),
  );
});

test('a scrape rule on a second port is beyond the declared metrics port', () => {
  const objects = objectsAfter('blog', (p) =>
    p.spec.ingress[2].toPorts[0].ports.push({ port: '8080', protocol: 'TCP' }),
  );
  const found = failures(objects);
  assert.ok(
    found.some(
      (f) =>
        f.name === REACH &&
        /Prometheus pods can reach the workload pods of blog on TCP\/8080/.test(f.message),
    ),
    JSON.stringify(found),
  );
});

test('a peer kind outside the model is reported, not ignored', () => {
  const objects = objectsAfter('blog', (p) =>
    p.spec.egress.push({ toServices: [{ k8sService: { serviceName: 'x', namespace: 'y' } }] }),
  );
  assert.ok(
    failures(objects).some((f) =>
      /toServices is not part of the reachability model/.test(f.message),
    ),
  );
});

test('a toFQDNs allow on a VPN-class service names the host it opens', () => {
  const objects = objectsAfter('sonarr', (p) =>
    p.spec.egress.push({
      toFQDNs: [{ matchName: 'tracker.example.org' }],
      toPorts: [{ ports: [{ port: '443', protocol: 'TCP' }] }],
    }),
  );
  const peer = failures(objects).find((f) => f.name === PEERS && /toFQDNs\[0\]/.test(f.object));
  assert.ok(peer, 'the undeclared host is reported');
  assert.deepEqual(peer.witness, { 'reserved:world': '', 'fqdn:name': 'tracker.example.org' });
});
