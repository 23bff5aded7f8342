// VPN-class egress as rendered: an IPv4 world allow minus the excluded blocks, the gateway
// policy with IPv4 exclusions only, a warning at platform.yaml for an IPv6 exclusion, and the
// proof that the workload reaches the internet only through the gateway, never over IPv6.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { catalogSchemas, runCatalog, runConformance } from '../../src/catalog/index.js';
import type { CheckResult, KubeObject } from '../../src/catalog/index.js';
import {
  at,
  catalogOf,
  clone,
  EXAMPLE_CATALOG,
  find,
  objectsOf,
  PLATFORM_TEXT,
  REPO,
  runExample,
} from './helpers.js';

const VPN = 'vpn-egress-only-through-gateway';

const QBITTORRENT = `name: qbittorrent
source: { image: "ghcr.io/example/qbittorrent:4.6.0" }
egress: vpn
ports: [{ name: http, port: 8080, protocol: TCP }]
`;

const DUAL_STACK = PLATFORM_TEXT.replace(
  'excludedCIDRs: [10.0.0.0/8, 192.168.0.0/16]',
  'excludedCIDRs: [10.0.0.0/8, "fd00::/8", 192.168.0.0/16]',
);

function run(platform: string) {
  return runCatalog(catalogOf({ 'qbittorrent.yaml': QBITTORRENT }, platform), catalogSchemas());
}

test('a VPN-class workload gets an IPv4 world allow minus the excluded blocks, never IPv6', () => {
  const result = run(PLATFORM_TEXT);
  assert.deepEqual(result.errors, []);
  const policy = find(objectsOf(result, 'qbittorrent'), 'CiliumNetworkPolicy', 'qbittorrent');
  const egress = at(policy, 'spec', 'egress') as unknown[];
  assert.deepEqual(egress.at(-1), {
    toCIDRSet: [{ cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '192.168.0.0/16'] }],
  });
  const text = JSON.stringify(egress);
  for (const forbidden of ['"world"', 'world-ipv6', '::/0'])
    assert.ok(!text.includes(forbidden), `no ${forbidden} in ${text}`);
});

test('IPv6 excluded CIDRs: valid objects, IPv4 ones to the gateway, a warning at platform.yaml', () => {
  const result = run(DUAL_STACK);
  assert.deepEqual(
    result.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  const gateway = find(objectsOf(result, 'qbittorrent'), 'CiliumEgressGatewayPolicy');
  assert.deepEqual(at(gateway, 'spec', 'excludedCIDRs'), ['10.0.0.0/8', '192.168.0.0/16']);
  assert.deepEqual(at(gateway, 'spec', 'destinationCIDRs'), ['0.0.0.0/0']);
  const warning = result.diagnostics.find((d) => d.code === 'CATALOG_VPN_EXCLUDED_IPV6');
  assert.ok(warning);
  assert.equal(warning.severity, 'warning');
  assert.equal(warning.file, 'catalog/platform.yaml');
  assert.equal(warning.path, 'vpn.excludedCIDRs[1]');
  const line = DUAL_STACK.split('\n').findIndex((l) => l.includes('excludedCIDRs')) + 1;
  assert.equal(warning.line, line);
  assert.match(warning.hint ?? '', /remove it/);
  // Once, at the platform, not at every definition it affects.
  assert.equal(result.diagnostics.filter((d) => d.code === 'CATALOG_VPN_EXCLUDED_IPV6').length, 1);
});

test('the proof says each VPN service of the example reaches the internet only through the gateway', () => {
  const example = runExample(false);
  const proved = example.checks.filter((c) => c.name === VPN);
  assert.deepEqual(
    proved.map((c) => [c.ok, c.object, c.message]),
    ['qbittorrent', 'sonarr'].map((s) => [
      true,
      `CiliumEgressGatewayPolicy ${s}-vpn`,
      `${s} reaches the internet only through the gateway; never over IPv6`,
    ]),
  );
});

function proofAfter(mutate: (objects: KubeObject[]) => void): CheckResult {
  const example = runExample(false);
  const objects = new Map(
    example.rendered.map((r) => [r.service, clone(r.objects) as KubeObject[]]),
  );
  mutate(objects.get('qbittorrent')!);
  const results = runConformance({
    platform: example.loaded.platform!,
    services: example.loaded.services,
    objects,
    previousWorkloads: new Map(),
  });
  const found = results.find((c) => c.name === VPN && c.object.includes('qbittorrent'));
  assert.ok(found);
  return found;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests edit plain rendered data
type Plain = Record<string, any>;
const workloadPolicy = (objects: KubeObject[]) =>
  objects.find(
    (o) => o.kind === 'CiliumNetworkPolicy' && o.metadata.name === 'qbittorrent',
  ) as unknown as Plain;

test('an IPv6 world allow fails the proof with the flow as witness', () => {
  const failed = proofAfter((objects) => {
    workloadPolicy(objects).spec.egress.push({ toEntities: ['world-ipv6'] });
  });
  assert.equal(failed.ok, false);
  assert.match(
    failed.message,
    /reaches the internet over IPv6 on .* over IPv6, which the egress gateway does not steer/,
  );
  const witness = failed.witness as { to: Record<string, string>; ports: string };
  assert.ok('reserved:world-ipv6' in witness.to);
  assert.match(witness.ports, /TCP\/1-65535/);
});

test('a world allow without the excluded blocks fails the proof: the LAN is reached around the gateway', () => {
  const failed = proofAfter((objects) => {
    const egress = workloadPolicy(objects).spec.egress as Plain[];
    delete egress.at(-1)!.toCIDRSet[0].except;
  });
  assert.equal(failed.ok, false);
  assert.match(failed.message, /reaches a LAN address in 10\.0\.0\.0\/8 .* directly/);
  assert.ok(failed.witness !== undefined);
});

test('without the gateway policy, or without the world allow, the proof fails', () => {
  const noGateway = proofAfter((objects) => {
    objects.splice(
      objects.findIndex((o) => o.kind === 'CiliumEgressGatewayPolicy'),
      1,
    );
  });
  assert.equal(noGateway.ok, false);
  assert.match(
    noGateway.message,
    /no egress gateway policy steers|no CiliumEgressGatewayPolicy selects/,
  );
  const noWorld = proofAfter((objects) => {
    const egress = workloadPolicy(objects).spec.egress as Plain[];
    egress.pop();
  });
  assert.equal(noWorld.ok, false);
  assert.match(noWorld.message, /cannot reach the internet/);
});

test('the build report carries the proved line for each VPN service', async () => {
  const { buildCatalogStage } = await import('../../src/catalog/stage.js');
  const { catalogSection } = await import('../../src/repo/report/catalog.js');
  const stage = await buildCatalogStage(EXAMPLE_CATALOG, { root: REPO });
  const html = catalogSection(stage.data);
  for (const s of ['qbittorrent', 'sonarr'])
    assert.ok(
      html.includes(`proved: ${s} reaches the internet only through the gateway; never over IPv6`),
      s,
    );
});
