// The supervisor's edges without a network: anchord's duration words, and the `ip` failures that
// surface as ANCHOR_DHCP_FAILED.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LabelwiseError } from '../../../src/base/errors.js';
import { IpAddressing } from '../../../src/anchor/dhcp/io/addressing.js';
import { goDuration } from '../../../src/anchor/dhcp/io/supervisor.js';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { DhcpSupervisor } from '../../../src/anchor/dhcp/io/supervisor.js';
import type { AddressingPort } from '../../../src/anchor/dhcp/io/addressing.js';
import type { TransportHandlers } from '../../../src/anchor/dhcp/io/socket.js';
import { dhcpMetrics } from '../../../src/anchor/dhcp/io/start.js';
import { clientIdentifier } from '../../../src/anchor/dhcp/identity.js';
import type { DhcpPacket } from '../../../src/anchor/dhcp/packet.js';
import type { Lease } from '../../../src/anchor/dhcp/lease.js';
import { AnchorMetrics } from '../../../src/anchor/metrics.js';

test("back-off durations print as Go's time.Duration does", () => {
  const rows: [number, string][] = [
    [500, '500ms'],
    [1000, '1s'],
    [1500, '1.5s'],
    [90_000, '1m30s'],
    [300_000, '5m0s'],
    [3_600_000, '1h0m0s'],
  ];
  for (const [ms, want] of rows) assert.equal(goDuration(ms), want, `${ms} ms`);
});

test('ip refusing the broadcast route is ANCHOR_DHCP_FAILED', async () => {
  // `false` exits 1 without output: what ip does without NET_ADMIN, minus the words.
  const addressing = new IpAddressing('false');
  await assert.rejects(addressing.prepare('eth0'), (error: unknown) => {
    assert.ok(error instanceof LabelwiseError);
    assert.equal(error.code, 'ANCHOR_DHCP_FAILED');
    assert.equal(error.kind, 'unavailable');
    return true;
  });
});

test('a missing ip binary is ANCHOR_TOOL_MISSING', async () => {
  const addressing = new IpAddressing('/nonexistent/ip');
  await assert.rejects(addressing.defaultRoute('eth0', '10.0.0.1'), (error: unknown) => {
    assert.ok(error instanceof LabelwiseError);
    assert.equal(error.code, 'ANCHOR_TOOL_MISSING');
    return true;
  });
});

/** A DHCP server in memory: answers DISCOVER with OFFER and REQUEST with ACK, at once. */
function answer(packet: DhcpPacket): DhcpPacket | undefined {
  const type = packet.options.messageType;
  if (type !== 'DISCOVER' && type !== 'REQUEST') return undefined;
  return {
    ...packet,
    op: 2,
    yiaddr: '10.9.0.50',
    options: {
      messageType: type === 'DISCOVER' ? 'OFFER' : 'ACK',
      serverId: '10.9.0.1',
      leaseTime: 600,
      subnetMask: '255.255.255.0',
      routers: ['10.9.0.254'],
    },
  };
}

test('the supervisor carries out a lease: address, route, metrics, then RELEASE on stop', async () => {
  const calls: string[] = [];
  const sent: DhcpPacket[] = [];
  const addressing: AddressingPort = {
    prepare: async (iface) => void calls.push(`prepare ${iface}`),
    configure: async (iface, lease: Lease) =>
      void calls.push(`configure ${iface} ${lease.address}/${lease.prefixLength}`),
    unconfigure: async (iface, lease: Lease) =>
      void calls.push(`unconfigure ${iface} ${lease.address}`),
    defaultRoute: async (iface, gateway) => void calls.push(`route ${iface} ${gateway}`),
    finish: async (iface) => void calls.push(`finish ${iface}`),
    configure6: async () => void calls.push('configure6'),
    unconfigure6: async () => void calls.push('unconfigure6'),
  };
  const lines: string[] = [];
  const logger = pino(
    { level: 'debug', base: null },
    new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }),
  );
  const metrics = new AnchorMetrics();
  // The gauge counts down against the wall clock at scrape time, so the lease starts now.
  let now = Date.now();
  const supervisor = new DhcpSupervisor(
    'eth1',
    {
      mac: '02:42:0a:09:00:05',
      hostname: 'mailcow',
      clientId: clientIdentifier('mailcow'),
      backoffMaxMs: 300_000,
      exchangeTimeoutMs: 30_000,
      retransmitMs: 4000,
      renewRetryMaxMs: 60_000,
    },
    {
      open: async (handlers: TransportHandlers) => ({
        send: async (packet) => {
          sent.push(packet);
          const reply = answer(packet);
          if (reply !== undefined) setImmediate(() => handlers.onPacket(reply));
        },
        close: async () => void calls.push('close'),
      }),
      addressing,
      logger,
      metrics: dhcpMetrics(metrics),
      now: () => now,
      entropy: () => 0xabcd,
    },
    { pin: '10.9.0.253' },
  );
  await supervisor.start();
  for (let i = 0; i < 20 && supervisor.current().kind !== 'bound'; i++)
    await new Promise((resolve) => setImmediate(resolve));
  assert.equal(supervisor.current().kind, 'bound');
  const text = await metrics.registry.metrics();
  assert.match(text, /anchord_dhcp_acquired_total\{family="v4",outcome="ok"\} 1/);
  assert.match(text, /anchord_dhcp_lease_remaining_seconds\{family="v4"\} (59\d|600)(\.\d+)?\n/);
  now += 1000;
  await supervisor.stop();
  assert.deepEqual(calls, [
    'prepare eth1',
    'route eth1 10.9.0.253',
    'configure eth1 10.9.0.50/24',
    'route eth1 10.9.0.254',
    'unconfigure eth1 10.9.0.50',
    'close',
    'finish eth1',
  ]);
  assert.deepEqual(
    sent.map((p) => p.options.messageType),
    ['DISCOVER', 'REQUEST', 'RELEASE'],
  );
  assert.ok(
    lines.some(
      (l) => l.includes('"msg":"dhcp v4 lease acquired"') && l.includes('"ip":"10.9.0.50"'),
    ),
  );
  assert.match(
    await metrics.registry.metrics(),
    /anchord_dhcp_lease_remaining_seconds\{family="v4"\} 0/,
  );
});
