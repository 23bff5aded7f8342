// The daemon's failure codes from the real adapters: the nft/conntrack/ip wrappers pointed at a
// program that fails, and discovery against the Docker stand-in when the anchor cannot find
// itself or its outside network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LabelwiseError } from '../../src/base/errors.js';
import { AnchorDaemon, loadConfig } from '../../src/anchor/index.js';
import { DockerDiscovery } from '../../src/anchor/io/docker-discovery.js';
import { NftCli } from '../../src/anchor/io/nft.js';
import { IpRoutes } from '../../src/anchor/io/routes.js';
import { AnchorMetrics } from '../../src/anchor/metrics.js';
import { createLogger } from '../../src/anchor/run.js';
import { fake, startStandIn } from './docker-stand-in.js';

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    assert.ok(error instanceof LabelwiseError, String(error));
    return error.code;
  }
}

test('ANCHOR_NFT_FAILED and ANCHOR_CONNTRACK_FAILED: the kernel tools refuse', async () => {
  const failing = new NftCli('false', 'false');
  assert.equal(await codeOf(failing.apply('table ip x {}\n')), 'ANCHOR_NFT_FAILED');
  assert.equal(
    await codeOf(
      failing.flush({ family: 'ipv4', proto: 'tcp', address: '172.20.0.2', backendPort: 80 }),
    ),
    'ANCHOR_CONNTRACK_FAILED',
  );
  assert.equal(await failing.probeFib('ipv6'), false, 'a failing check means no fib');
});

test('ANCHOR_ROUTE_FAILED: ip refuses the route (service-anchor)', async () => {
  const routes = new IpRoutes('false');
  assert.equal(
    await codeOf(routes.replace('ipv4', { gateway: '172.30.0.2' })),
    'ANCHOR_ROUTE_FAILED',
  );
  assert.equal(
    await codeOf(new IpRoutes('/nonexistent/ip').remove('ipv4', '172.30.0.2')),
    'ANCHOR_TOOL_MISSING',
  );
});

async function fatalCode(
  env: Record<string, string>,
  macs: Map<string, string>,
  containers: Parameters<typeof startStandIn>[0],
): Promise<unknown> {
  const standIn = await startStandIn(containers);
  const lines: Record<string, unknown>[] = [];
  const { config } = loadConfig({
    ANCHORD_LABEL_SELECTOR: 'role=a',
    ANCHORD_METRICS_ADDR: '',
    ...env,
  });
  const daemon = new AnchorDaemon(config, {
    discovery: new DockerDiscovery({ kind: 'unix', socketPath: standIn.socketPath }),
    kernel: { apply: async () => undefined, flush: async () => 0 },
    interfaces: async () => macs,
    logger: createLogger('debug', (line) => lines.push(JSON.parse(line))),
    metrics: new AnchorMetrics(),
  });
  try {
    await daemon.start();
    assert.equal(await daemon.done, 1);
  } finally {
    await daemon.stop();
    await standIn.close();
  }
  return lines.find((l) => l.msg === 'fatal')?.code;
}

const self = {
  Id: 'anchor-0123456789abcdef',
  Names: ['/anchor'],
  Created: 1_600_000_000,
  Labels: {},
  NetworkSettings: {
    Networks: {
      dmz: { IPAddress: '192.0.2.81', MacAddress: '02:42:0a:00:00:01' },
      transit: { IPAddress: '172.20.0.10', MacAddress: '02:42:ac:14:00:0a' },
    },
  },
};
const backend = fake('a', { role: 'a', 'anchord.expose': 'tcp/80' }, 'transit', '172.20.0.2');

test('ANCHOR_SELF_NOT_FOUND: no container has this namespace’s MAC addresses', async () => {
  assert.equal(
    await fatalCode({}, new Map([['02:42:ff:ff:ff:ff', 'eth0']]), [self, backend]),
    'ANCHOR_SELF_NOT_FOUND',
  );
});

test('ANCHOR_EXT_NETWORK_NOT_ATTACHED and ANCHOR_EXT_IFACE_NOT_FOUND', async () => {
  const macs = new Map([
    ['02:42:0a:00:00:01', 'eth0'],
    ['02:42:ac:14:00:0a', 'eth1'],
  ]);
  assert.equal(
    await fatalCode({ ANCHORD_EXT_NETWORK: 'elsewhere' }, macs, [self, backend]),
    'ANCHOR_EXT_NETWORK_NOT_ATTACHED',
  );
  const onlyTransitMac = new Map([['02:42:ac:14:00:0a', 'eth1']]);
  assert.equal(
    await fatalCode({ ANCHORD_EXT_NETWORK: 'dmz' }, onlyTransitMac, [self, backend]),
    'ANCHOR_EXT_IFACE_NOT_FOUND',
  );
});
