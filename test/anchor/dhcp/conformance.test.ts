// anchord's DHCP test cases, as data (test/anchor/conformance/anchord/dhcp.json): each names the
// upstream file and test it was recorded from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { INITIAL_STATE, nextWakeup, step } from '../../../src/anchor/dhcp/client.js';
import type { ClientSettings, ClientState } from '../../../src/anchor/dhcp/client.js';
import { loadDhcpConfig } from '../../../src/anchor/dhcp/config.js';
import { clientIdentifier } from '../../../src/anchor/dhcp/identity.js';
import { renewalSeconds } from '../../../src/anchor/dhcp/lease.js';
import { INITIAL_STATE6, step6 } from '../../../src/anchor/dhcp/client6.js';
import type { Client6Settings } from '../../../src/anchor/dhcp/client6.js';
import { duidLl } from '../../../src/anchor/dhcp/packet6.js';
import type { DhcpPacket } from '../../../src/anchor/dhcp/packet.js';
import { loadConfig, resolveScope } from '../../../src/anchor/config.js';

interface Upstream {
  readonly file: string;
  readonly test: string;
}
interface Cases {
  renewal: {
    name: string;
    upstream: Upstream;
    leaseTime?: number;
    renewalTime?: number;
    want: number;
  }[];
  backoff: { name: string; upstream: Upstream; max: number; start: number; want: number[] }[];
  clientId: { name: string; upstream: Upstream; hostname: string; wantHex: string }[];
  hostname: { name: string; upstream: Upstream; env: Record<string, string>; want: string }[];
  backoffMax: { name: string; upstream: Upstream; env: Record<string, string>; want: number }[];
  skipped: { upstream: Upstream; reason: string }[];
  v6Reply: { name: string; upstream: Upstream; iaNa: boolean; wantError: string }[];
}

const cases = JSON.parse(
  readFileSync(new URL('../conformance/anchord/dhcp.json', import.meta.url), 'utf8'),
) as Cases;
const title = (u: Upstream, name: string) => `anchord ${u.file} ${u.test}: ${name}`;

for (const row of cases.renewal) {
  test(title(row.upstream, row.name), () => {
    const options = {
      ...(row.leaseTime !== undefined ? { leaseTime: row.leaseTime } : {}),
      ...(row.renewalTime !== undefined ? { renewalTime: row.renewalTime } : {}),
    };
    assert.equal(renewalSeconds(options), row.want);
  });
}

const MAC = '02:42:00:00:00:01';
function nak(xid: number): DhcpPacket {
  return {
    op: 2,
    xid,
    secs: 0,
    flags: 0,
    ciaddr: '0.0.0.0',
    yiaddr: '0.0.0.0',
    siaddr: '0.0.0.0',
    giaddr: '0.0.0.0',
    chaddr: MAC,
    options: { messageType: 'NAK', serverId: '10.0.0.1' },
  };
}

/** The back-off waits after consecutive NAKed attempts, starting from a given back-off. */
function waits(startMs: number, maxMs: number, count: number): number[] {
  const settings: ClientSettings = {
    mac: MAC,
    hostname: 'h',
    clientId: clientIdentifier('h'),
    backoffMaxMs: maxMs,
    exchangeTimeoutMs: 30_000,
    retransmitMs: 4000,
    renewRetryMaxMs: Number.POSITIVE_INFINITY,
  };
  // The state machine's own back-off starts at 1 s; anchord's tests start it elsewhere.
  let state: ClientState = { ...INITIAL_STATE, backoffMs: startMs } as ClientState;
  let now = 0;
  state = step(state, { type: 'start', now, entropy: 7 }, settings).state;
  const out: number[] = [];
  for (let i = 0; i < count + 1; i++) {
    const offer = {
      ...nak(7),
      yiaddr: '10.0.0.5',
      options: { messageType: 'OFFER' as const, serverId: '10.0.0.1' },
    };
    state = step(state, { type: 'packet', now, entropy: 7, packet: offer }, settings).state;
    state = step(state, { type: 'packet', now, entropy: 7, packet: nak(7) }, settings).state;
    const until = nextWakeup(state) as number;
    out.push(until - now);
    now = until;
    state = step(state, { type: 'timer', now, entropy: 7 }, settings).state;
  }
  // anchord's sleepBackoff reports the back-off after doubling: the wait of the next attempt.
  return out.slice(1);
}

for (const row of cases.backoff) {
  test(title(row.upstream, row.name), () => {
    assert.deepEqual(
      waits(row.start * 1000, row.max * 1000, row.want.length),
      row.want.map((s) => s * 1000),
    );
  });
}

for (const row of cases.clientId) {
  test(title(row.upstream, row.name), () => {
    assert.equal(Buffer.from(clientIdentifier(row.hostname)).toString('hex'), row.wantHex);
    assert.deepEqual(clientIdentifier(row.hostname), clientIdentifier(row.hostname));
  });
}

for (const row of cases.hostname) {
  test(title(row.upstream, row.name), () => {
    assert.equal(loadDhcpConfig(row.env, resolveScope(row.env).scope).hostname, row.want);
  });
}

for (const row of cases.backoffMax) {
  test(title(row.upstream, row.name), () => {
    assert.equal(
      loadDhcpConfig(row.env, resolveScope(row.env).scope).backoffMaxMs,
      row.want * 1000,
    );
  });
}

for (const row of cases.skipped) {
  test(title(row.upstream, 'deliberately not recorded'), { skip: row.reason }, () => undefined);
}

test('loadConfig: dhcp-refresh carries the DHCP settings; bootstrap carries none', () => {
  const dhcp = loadConfig({
    ANCHORD_PROJECT: 'mailcow',
    ANCHORD_ADDRESS_MODE: 'dhcp-refresh',
    ANCHORD_EXT_GATEWAY_IP: '192.168.9.1, 2001:db8::1',
  }).config;
  assert.equal(dhcp.addressMode, 'dhcp-refresh');
  assert.deepEqual(dhcp.dhcp, {
    hostname: 'mailcow',
    backoffMaxMs: 300_000,
    gatewayPin: '192.168.9.1',
  });
  const bootstrap = loadConfig({ ANCHORD_PROJECT: 'mailcow' }).config;
  assert.equal(bootstrap.addressMode, 'bootstrap');
  assert.equal(bootstrap.dhcp, undefined);
});

for (const row of cases.v6Reply) {
  test(title(row.upstream, row.name), () => {
    const settings: Client6Settings = {
      duid: duidLl(MAC),
      iaid: 1,
      hostname: 'h',
      backoffMaxMs: 1000,
      exchangeTimeoutMs: 30_000,
      retransmitMs: 1000,
    };
    const serverId = Uint8Array.from([0, 3, 0, 1, 2, 0, 0, 0, 0, 1]);
    const ia = {
      iaid: 1,
      t1: 0,
      t2: 0,
      addresses: [{ address: 'fd00::5', preferred: 60, valid: 60 }],
      status: 0,
    };
    let state = step6(INITIAL_STATE6, { type: 'start', now: 0, entropy: 9 }, settings).state;
    const advertise = { type: 'ADVERTISE' as const, xid: 9, serverId, iaNa: ia, status: 0 };
    state = step6(state, { type: 'packet', now: 1, entropy: 0, packet: advertise }, settings).state;
    const replyPacket = {
      type: 'REPLY' as const,
      xid: 9,
      serverId,
      status: 0,
      ...(row.iaNa ? { iaNa: ia } : {}),
    };
    const result = step6(
      state,
      { type: 'packet', now: 2, entropy: 0, packet: replyPacket },
      settings,
    );
    assert.deepEqual(result.actions, [
      { type: 'acquired', outcome: 'error', reason: row.wantError },
    ]);
  });
}
