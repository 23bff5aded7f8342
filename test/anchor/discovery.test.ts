import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DockerDiscovery } from '../../src/anchor/io/docker-discovery.js';
import { loadConfig, plan } from '../../src/anchor/index.js';
import { LabelwiseError } from '../../src/base/errors.js';
import type { FakeContainer } from './docker-stand-in.js';
import { fake, startStandIn } from './docker-stand-in.js';

const SELF_MAC = '02:42:0a:00:00:01';

function anchorContainer(): FakeContainer {
  return {
    Id: 'anchor-0123456789abcdef',
    Names: ['/anchord-ldap'],
    Created: 1_600_000_000,
    Labels: { 'com.docker.compose.project': 'ix-authentik' },
    NetworkSettings: {
      Networks: {
        dmz: { IPAddress: '192.0.2.81', MacAddress: SELF_MAC },
        'ix-authentik_transit': { IPAddress: '172.20.0.10', MacAddress: '02:42:ac:14:00:0a' },
      },
    },
  };
}

const seedContainers = (): FakeContainer[] => [
  anchorContainer(),
  fake(
    'ldap',
    { role: 'ldap', env: 'prod', 'anchord.expose': 'tcp/389,tcp/636' },
    'ix-authentik_transit',
    '172.20.0.2',
  ),
  fake(
    'proxy',
    { role: 'proxy', 'anchord.expose': 'tcp/443' },
    'ix-authentik_transit',
    '172.20.0.3',
  ),
  fake(
    'plain',
    { 'com.docker.compose.project': 'ix-authentik', 'anchord.expose': 'tcp/80' },
    'ix-authentik_transit',
    '172.20.0.4',
  ),
  fake(
    'ldap-staging',
    { role: 'ldap', env: 'staging', 'anchord.expose': 'tcp/1389' },
    'ix-authentik_transit',
    '172.20.0.5',
  ),
];

async function discover(env: Record<string, string>) {
  const standIn = await startStandIn(seedContainers());
  try {
    const { config } = loadConfig({ ...env, DOCKER_HOST: `unix://${standIn.socketPath}` });
    const discovery = new DockerDiscovery(config.docker);
    const self = await discovery.findSelf(new Set([SELF_MAC]));
    const snapshot = await discovery.snapshot(self.id, config.scope);
    const result = plan(snapshot, { scope: config.scope, excludeNetworks: ['dmz'] });
    return { self, result, requests: standIn.requests };
  } finally {
    await standIn.close();
  }
}

test('anchord scenario (mocked Docker API): selector {role: ldap} returns only the ldap containers', async () => {
  const { result, requests } = await discover({ ANCHORD_LABEL_SELECTOR: 'role=ldap' });
  assert.deepEqual(
    result.backends.map((b) => b.container),
    ['ldap', 'ldap-staging'],
  );
  const list = requests.find(
    (r) => r.startsWith('GET /containers/json') && r.includes('anchord.expose'),
  );
  assert.ok(list !== undefined, requests.join('\n'));
  const filters = JSON.parse(
    new URL(list.slice(4), 'http://x').searchParams.get('filters') ?? '{}',
  ) as { label: string[] };
  assert.deepEqual(filters.label, ['role=ldap', 'anchord.expose']);
});

test('anchord scenario (mocked Docker API): AND of two keys', async () => {
  const { result } = await discover({ ANCHORD_LABEL_SELECTOR: 'role=ldap,env=prod' });
  assert.deepEqual(
    result.backends.map((b) => b.container),
    ['ldap'],
  );
  assert.deepEqual(
    result.entries.map((e) => `${e.port}->${e.address}`),
    ['389->172.20.0.2', '636->172.20.0.2'],
  );
});

test('anchord scenario (mocked Docker API): empty selector behaves as the project filter', async () => {
  const { result, requests } = await discover({
    ANCHORD_LABEL_SELECTOR: '',
    ANCHORD_PROJECT: 'ix-authentik',
  });
  assert.deepEqual(
    result.backends.map((b) => b.container),
    ['plain'],
  );
  // Identical to the legacy configuration: same plan, same Docker filters, no selector lines.
  const legacy = await discover({ ANCHORD_PROJECT: 'ix-authentik' });
  assert.deepEqual(result, legacy.result);
  const filtersOf = (list: string[]): unknown[] =>
    list
      .filter((r) => r.startsWith('GET /containers/json') && r.includes('anchord.expose'))
      .map((r) => JSON.parse(new URL(r.slice(4), 'http://x').searchParams.get('filters') ?? '{}'));
  assert.deepEqual(filtersOf(requests), filtersOf(legacy.requests));
  assert.deepEqual(filtersOf(requests), [
    { status: ['running'], label: ['com.docker.compose.project=ix-authentik', 'anchord.expose'] },
  ]);
  assert.deepEqual(
    loadConfig({ ANCHORD_LABEL_SELECTOR: '', ANCHORD_PROJECT: 'ix-authentik' }).notices,
    [],
  );
});

test('the anchor finds itself by MAC address when its hostname is not a container', async () => {
  const { self, result } = await discover({ ANCHORD_PROJECT: 'ix-authentik' });
  assert.equal(self.id, 'anchor-0123456789abcdef');
  assert.equal(result.sharedNetwork, 'ix-authentik_transit');
});

test('network_mode container:X is resolved through inspect', async () => {
  const containers = seedContainers();
  const sidecar = fake('sidecar', { role: 'ldap', 'anchord.expose': 'tcp/3890' }, 'unused', '');
  sidecar.NetworkSettings.Networks = {};
  sidecar.HostConfig = { NetworkMode: 'container:proxy-0123456789abcdef' };
  containers.push(sidecar);
  const standIn = await startStandIn(containers);
  try {
    const { config } = loadConfig({
      ANCHORD_LABEL_SELECTOR: 'role=ldap',
      DOCKER_HOST: `unix://${standIn.socketPath}`,
    });
    const discovery = new DockerDiscovery(config.docker);
    const snapshot = await discovery.snapshot('anchor-0123456789abcdef', config.scope);
    const result = plan(snapshot, { scope: config.scope, excludeNetworks: ['dmz'] });
    assert.deepEqual(
      result.entries.filter((e) => e.container === 'sidecar').map((e) => e.address),
      ['172.20.0.3'],
    );
  } finally {
    await standIn.close();
  }
});

test('Docker errors surface as unavailable LabelwiseErrors (never fatal by themselves)', async () => {
  const standIn = await startStandIn(seedContainers());
  standIn.failing = true;
  try {
    const discovery = new DockerDiscovery({ kind: 'unix', socketPath: standIn.socketPath });
    await assert.rejects(
      discovery.snapshot(
        'anchor-0123456789abcdef',
        loadConfig({ ANCHORD_PROJECT: 'x' }).config.scope,
      ),
      (e: unknown) =>
        e instanceof LabelwiseError &&
        e.code === 'ANCHOR_DOCKER_UNAVAILABLE' &&
        e.kind === 'unavailable',
    );
  } finally {
    await standIn.close();
  }
});

test('no Docker socket at all: unavailable, not a crash', async () => {
  const discovery = new DockerDiscovery({ kind: 'unix', socketPath: '/nonexistent/docker.sock' });
  await assert.rejects(
    discovery.findSelf(new Set()),
    (e: unknown) => e instanceof LabelwiseError && e.kind === 'unavailable',
  );
});

test('the anchor finds itself by hostname (its container id) when the MAC addresses agree', async () => {
  const { hostname } = await import('node:os');
  const self = anchorContainer();
  self.Id = `${hostname()}-full-id`;
  const decoy = anchorContainer();
  decoy.Id = 'decoy-0123456789abcdef';
  decoy.Names = ['/decoy'];
  const standIn = await startStandIn([decoy, self]);
  try {
    const discovery = new DockerDiscovery({ kind: 'unix', socketPath: standIn.socketPath });
    assert.equal((await discovery.findSelf(new Set([SELF_MAC]))).id, self.Id);
    assert.ok(standIn.requests.some((r) => r.startsWith(`GET /containers/${hostname()}/json`)));
  } finally {
    await standIn.close();
  }
});

test('DOCKER_HOST=tcp://host:port (a socket proxy) works the same', async () => {
  const standIn = await startStandIn(seedContainers(), { tcp: true });
  try {
    const { config } = loadConfig({
      ANCHORD_LABEL_SELECTOR: 'role=ldap,env=prod',
      DOCKER_HOST: `tcp://127.0.0.1:${standIn.port}`,
    });
    assert.deepEqual(config.docker, { kind: 'tcp', host: '127.0.0.1', port: standIn.port });
    const discovery = new DockerDiscovery(config.docker);
    const snapshot = await discovery.snapshot('anchor-0123456789abcdef', config.scope);
    const result = plan(snapshot, { scope: config.scope, excludeNetworks: ['dmz'] });
    assert.deepEqual(
      result.backends.map((b) => b.container),
      ['ldap'],
    );
  } finally {
    await standIn.close();
  }
});
