import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AnchorMetrics } from '../../src/anchor/metrics.js';
import type { Family } from '../../src/anchor/model.js';
import { renderNftScript } from '../../src/anchor/nft-script.js';
import { createLogger, runAnchorDaemon } from '../../src/anchor/run.js';
import { ServiceAnchor, pickGateways } from '../../src/anchor/service-anchor.js';
import type { DefaultRoute, RoutePort } from '../../src/anchor/service-anchor.js';
import { loadServiceAnchorConfig } from '../../src/anchor/service-anchor-config.js';
import { run } from '../../src/cli/anchor.js';
import { memoryIO } from '../../src/cli/io.js';

/** A namespace's routing table as the service-anchor sees it. */
class Table implements RoutePort {
  readonly routes = new Map<Family, DefaultRoute>();
  readonly calls: string[] = [];
  async current(family: Family): Promise<DefaultRoute | undefined> {
    return this.routes.get(family);
  }
  async replace(family: Family, route: DefaultRoute): Promise<void> {
    this.calls.push(
      `replace ${family} ${route.gateway}${route.device ? ` dev ${route.device}` : ''}`,
    );
    this.routes.set(family, route);
  }
  async remove(family: Family, gateway: string): Promise<void> {
    this.calls.push(`remove ${family} ${gateway}`);
    if (this.routes.get(family)?.gateway !== gateway) throw new Error('No such process');
    this.routes.delete(family);
  }
}

function anchorWith(
  env: Record<string, string>,
  table: Table,
  resolve = async () => ['172.30.0.2'],
) {
  const lines: Record<string, unknown>[] = [];
  const metrics = new AnchorMetrics();
  const anchor = new ServiceAnchor(loadServiceAnchorConfig(env).config, {
    routes: table,
    resolve,
    logger: createLogger('debug', (line) => lines.push(JSON.parse(line))),
    metrics,
  });
  return { anchor, lines, metrics };
}

test('service-anchor: points the default route at the anchor, restores Docker’s on stop', async () => {
  const table = new Table();
  table.routes.set('ipv4', { gateway: '172.30.0.1', device: 'eth0' });
  const { anchor, lines, metrics } = anchorWith({ ANCHORD_GATEWAY_RESOLVE_INTERVAL: '1h' }, table);
  await anchor.start();
  assert.equal(table.routes.get('ipv4')?.gateway, '172.30.0.2');
  const text = await metrics.registry.metrics();
  assert.match(text, /^anchord_default_route_present\{family="v4"\} 1$/m);
  assert.match(text, /^anchord_gateway_route_replaces_total\{family="v4"\} 1$/m);
  assert.match(text, /^anchord_gateway_resolve_total\{family="v6",outcome="error"\} 1$/m);
  await anchor.stop();
  assert.deepEqual(table.calls, [
    'replace ipv4 172.30.0.2',
    'remove ipv4 172.30.0.2',
    'replace ipv4 172.30.0.1 dev eth0',
  ]);
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg]),
    [
      ['INFO', 'service-anchor starting'],
      ['INFO', 'default route updated'],
      ['INFO', 'default route removed'],
      ['INFO', 'default route restored'],
    ],
  );
  assert.equal(lines[1]?.family, 'v4');
  assert.equal(lines[1]?.gateway, '172.30.0.2');
  assert.equal(await anchor.done, 0);
});

test('service-anchor: ANCHORD_GATEWAY_IP skips DNS', async () => {
  const table = new Table();
  let asked = 0;
  const { anchor } = anchorWith({ ANCHORD_GATEWAY_IP: '10.9.0.2,fd09::2' }, table, async () => {
    asked++;
    return [];
  });
  await anchor.start();
  await anchor.stop();
  assert.equal(asked, 0);
  assert.deepEqual(table.calls.slice(0, 2), ['replace ipv4 10.9.0.2', 'replace ipv6 fd09::2']);
});

test('service-anchor: hostile DNS answers never reach ip', () => {
  assert.deepEqual(
    pickGateways(['0.0.0.0', '224.0.0.1', 'fe80::1', '::1', '1.2.3.4; reboot', '172.30.0.4']),
    {
      ipv4: '172.30.0.4',
    },
  );
});

test('CLI: service-anchor runs the sidecar; anchord modes not implemented say "not supported"', async () => {
  const controller = new AbortController();
  controller.abort('SIGTERM');
  const lines: Record<string, unknown>[] = [];
  const table = new Table();
  const code = await runAnchorDaemon({
    env: {
      ANCHORD_MODE: 'network-anchor',
      ANCHORD_METRICS_ADDR: '',
      ANCHORD_GATEWAY_IP: '172.30.0.2',
    },
    modeArgument: 'service-anchor',
    write: (line) => lines.push(JSON.parse(line)),
    signal: controller.signal,
    routes: table,
  });
  assert.equal(code, 0);
  assert.equal(lines[0]?.msg, 'signal received, shutting down');
  for (const mode of ['dhcp-refresh']) {
    const io = memoryIO({ env: {} });
    assert.equal(await run([mode], io), 1, mode);
    const line = JSON.parse(io.out.trim()) as Record<string, unknown>;
    assert.equal(line.code, 'ANCHOR_MODE_NOT_SUPPORTED');
    assert.match(String(line.err), /not supported/);
    assert.doesNotMatch(String(line.err), /unknown mode/);
  }
  const bad = memoryIO({ env: { ANCHORD_GATEWAY_IP: 'nope' } });
  assert.equal(await run(['service-anchor'], bad), 1);
  assert.equal((JSON.parse(bad.out.trim()) as Record<string, unknown>).env, 'ANCHORD_GATEWAY_IP');
});

test('inbound masquerade: every DNATed connection is masqueraded, not only hairpin', () => {
  const entries = [
    {
      family: 'ipv4' as const,
      proto: 'tcp' as const,
      port: 80,
      address: '172.20.0.2',
      backendPort: 80,
      container: 'a',
    },
  ];
  const plain = renderNftScript(entries, { extIface: 'eth0' });
  const masq = renderNftScript(entries, { extIface: 'eth0', masqueradeInbound: true });
  assert.match(plain, /ct status dnat iifname != "eth0" masquerade/);
  assert.match(masq, /\tct status dnat masquerade\n/);
  assert.doesNotMatch(masq, /iifname != "eth0"/);
});

test('CLI: the mode argument wins over ANCHORD_MODE, as anchord selectMode does', async () => {
  // `anchor network-anchor` runs the network anchor even with ANCHORD_MODE=service-anchor: its
  // first complaint is the network anchor's (no project, no selector).
  const io = memoryIO({ env: { ANCHORD_MODE: 'service-anchor', ANCHORD_METRICS_ADDR: '' } });
  assert.equal(await run(['network-anchor'], io), 1);
  const line = JSON.parse(io.out.trim()) as Record<string, unknown>;
  assert.equal(line.env, 'ANCHORD_PROJECT');
  assert.equal(line.level, 'ERROR');
  // `anchor run` leaves the choice to ANCHORD_MODE.
  const viaEnv = memoryIO({ env: { ANCHORD_MODE: 'external-rebinder' } });
  assert.equal(await run(['run'], viaEnv), 1);
  assert.equal(
    (JSON.parse(viaEnv.out.trim()) as Record<string, unknown>).err,
    'ANCHORD_FOLLOW_NETWORK must be set in external-rebinder mode',
  );
});
