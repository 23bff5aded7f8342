// The DHCPv4 client state machine, driven by events with explicit times (no clock).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INITIAL_STATE, nextWakeup, step } from '../../../src/anchor/dhcp/client.js';
import type {
  ClientAction,
  ClientEvent,
  ClientSettings,
  ClientState,
} from '../../../src/anchor/dhcp/client.js';
import { clientIdentifier } from '../../../src/anchor/dhcp/identity.js';
import type { DhcpOptions, DhcpPacket } from '../../../src/anchor/dhcp/packet.js';

const MAC = '02:42:ac:1f:00:05';
const SETTINGS: ClientSettings = {
  mac: MAC,
  hostname: 'mailcow',
  clientId: clientIdentifier('mailcow'),
  backoffMaxMs: 8000,
  exchangeTimeoutMs: 30_000,
  retransmitMs: 4000,
  renewRetryMaxMs: Number.POSITIVE_INFINITY,
};
const XID = 0x1234;

function reply(
  type: DhcpOptions['messageType'],
  xid = XID,
  options: DhcpOptions = {},
  yiaddr = '192.168.1.100',
): DhcpPacket {
  return {
    op: 2,
    xid,
    secs: 0,
    flags: 0,
    ciaddr: '0.0.0.0',
    yiaddr,
    siaddr: '0.0.0.0',
    giaddr: '0.0.0.0',
    chaddr: MAC,
    options: { messageType: type, serverId: '192.168.1.1', ...options },
  };
}

const ACK_OPTIONS: DhcpOptions = {
  leaseTime: 3600,
  renewalTime: 900,
  rebindingTime: 3000,
  subnetMask: '255.255.255.0',
  routers: ['192.168.1.254'],
};

class Driver {
  state: ClientState = INITIAL_STATE;
  actions: ClientAction[] = [];
  feed(event: ClientEvent): readonly ClientAction[] {
    const result = step(this.state, event, SETTINGS);
    this.state = result.state;
    this.actions = [...result.actions];
    return result.actions;
  }
  start(now = 0) {
    return this.feed({ type: 'start', now, entropy: XID });
  }
  timer(now: number, entropy = XID) {
    return this.feed({ type: 'timer', now, entropy });
  }
  packet(now: number, packet: DhcpPacket) {
    return this.feed({ type: 'packet', now, entropy: 0, packet });
  }
  /** DISCOVER at 0, OFFER at 100, ACK at 200: bound at 200. */
  bind() {
    this.start(0);
    this.packet(100, reply('OFFER'));
    return this.packet(200, reply('ACK', XID, ACK_OPTIONS));
  }
}

function sent(actions: readonly ClientAction[]) {
  const sends = actions.filter((a) => a.type === 'send');
  assert.equal(sends.length, 1, `one send in ${JSON.stringify(actions.map((a) => a.type))}`);
  return sends[0] as Extract<ClientAction, { type: 'send' }>;
}

test('start: a broadcast DISCOVER with client id, hostname and the parameter list', () => {
  const d = new Driver();
  const send = sent(d.start(0));
  assert.equal(send.to, 'broadcast');
  assert.equal(send.packet.options.messageType, 'DISCOVER');
  assert.equal(send.packet.flags, 0x8000);
  assert.equal(send.packet.chaddr, MAC);
  assert.equal(send.packet.options.hostname, 'mailcow');
  assert.deepEqual([...(send.packet.options.clientId ?? [])], [0, ...Buffer.from('mailcow')]);
  assert.deepEqual(send.packet.options.parameterRequestList, [1, 3, 6, 51, 58, 59]);
  assert.equal(nextWakeup(d.state), 4000);
});

test('an OFFER is answered by a REQUEST naming the address (50) and the server (54)', () => {
  const d = new Driver();
  d.start(0);
  const send = sent(d.packet(100, reply('OFFER')));
  assert.equal(send.to, 'broadcast');
  assert.equal(send.packet.options.messageType, 'REQUEST');
  assert.equal(send.packet.options.requestedIp, '192.168.1.100');
  assert.equal(send.packet.options.serverId, '192.168.1.1');
  assert.equal(send.packet.xid, XID);
});

test('replies for another transaction, another MAC, or without a server id are ignored', () => {
  const d = new Driver();
  d.start(0);
  assert.deepEqual(d.packet(10, reply('OFFER', XID + 1)), []);
  assert.deepEqual(d.packet(10, { ...reply('OFFER'), chaddr: '02:00:00:00:00:01' }), []);
  const noServer = reply('OFFER');
  assert.deepEqual(d.packet(10, { ...noServer, options: { messageType: 'OFFER' } }), []);
  assert.equal(d.state.kind, 'selecting');
});

test('an ACK configures the address, routes via option 3, counts ok, and waits for T1', () => {
  const d = new Driver();
  const actions = d.bind();
  assert.deepEqual(
    actions.map((a) => a.type),
    ['configure', 'route', 'acquired'],
  );
  const configure = actions[0] as Extract<ClientAction, { type: 'configure' }>;
  assert.equal(configure.lease.address, '192.168.1.100');
  assert.equal(configure.lease.prefixLength, 24);
  assert.deepEqual(actions[1], { type: 'route', gateway: '192.168.1.254' });
  assert.deepEqual(actions[2], { type: 'acquired', outcome: 'ok' });
  assert.equal(nextWakeup(d.state), 200 + 900_000);
});

test('without T1 the renewal is at half the lease; without a mask the prefix is /32', () => {
  const d = new Driver();
  d.start(0);
  d.packet(100, reply('OFFER'));
  const actions = d.packet(200, reply('ACK', XID, { leaseTime: 600 }));
  assert.equal(nextWakeup(d.state), 200 + 300_000);
  const configure = actions[0] as Extract<ClientAction, { type: 'configure' }>;
  assert.equal(configure.lease.prefixLength, 32);
  assert.equal(
    actions.some((a) => a.type === 'route'),
    false,
  );
});

test('T1: a unicast REQUEST to the server with ciaddr and neither option 50 nor 54', () => {
  const d = new Driver();
  d.bind();
  const send = sent(d.timer(200 + 900_000, 0x77));
  assert.equal(d.state.kind, 'renewing');
  assert.equal(send.to, '192.168.1.1');
  assert.equal(send.packet.ciaddr, '192.168.1.100');
  assert.equal(send.packet.flags, 0);
  assert.equal(send.packet.xid, 0x77);
  assert.equal(send.packet.options.requestedIp, undefined);
  assert.equal(send.packet.options.serverId, undefined);
});

test('a renewal ACK keeps the lease bound with new timers and counts ok again', () => {
  const d = new Driver();
  d.bind();
  d.timer(900_200, 0x77);
  const actions = d.packet(901_000, reply('ACK', 0x77, ACK_OPTIONS));
  assert.equal(d.state.kind, 'bound');
  const configure = actions[0] as Extract<ClientAction, { type: 'configure' }>;
  assert.equal(configure.previous?.address, '192.168.1.100');
  assert.equal(nextWakeup(d.state), 901_000 + 900_000);
  assert.deepEqual(actions.at(-1), { type: 'acquired', outcome: 'ok' });
});

test('no answer to renewals: retries until T2, broadcasts from T2, drops the lease at expiry', () => {
  const d = new Driver();
  d.bind();
  d.timer(900_200, 0x77);
  // Half the time left to T2 (3000 s after the ACK): (3_000_200 - 900_200) / 2.
  assert.equal(nextWakeup(d.state), 900_200 + 1_050_000);
  let now = nextWakeup(d.state) as number;
  while (d.state.kind === 'renewing') {
    const send = sent(d.timer(now));
    if (d.state.kind === 'renewing') assert.equal(send.to, '192.168.1.1');
    else assert.equal(send.to, 'broadcast');
    now = nextWakeup(d.state) as number;
  }
  assert.equal(d.state.kind, 'rebinding');
  assert.ok(now <= 200 + 3_600_000);
  while (d.state.kind === 'rebinding') {
    d.timer(now);
    now = nextWakeup(d.state) as number;
  }
  assert.deepEqual(
    d.actions.map((a) => a.type),
    ['unconfigure', 'acquired'],
  );
  assert.equal(d.state.kind, 'backoff');
  assert.equal(nextWakeup(d.state), 200 + 3_600_000 + 1000);
});

test('a NAK to a renewal removes the address and starts over after the back-off', () => {
  const d = new Driver();
  d.bind();
  d.timer(900_200, 0x77);
  const actions = d.packet(900_300, reply('NAK', 0x77));
  assert.deepEqual(
    actions.map((a) => a.type),
    ['unconfigure', 'acquired'],
  );
  assert.equal(d.state.kind, 'backoff');
});

test('no OFFER: DISCOVER is resent at 4 s, then 8 s, and the attempt fails at the timeout', () => {
  const d = new Driver();
  d.start(0);
  assert.equal(sent(d.timer(4000)).packet.secs, 4);
  assert.equal(nextWakeup(d.state), 12_000);
  sent(d.timer(12_000));
  assert.equal(nextWakeup(d.state), 28_000);
  sent(d.timer(28_000));
  assert.equal(nextWakeup(d.state), 30_000);
  assert.deepEqual(d.timer(30_000), [
    { type: 'acquired', outcome: 'error', reason: 'no DHCPOFFER before the timeout' },
  ]);
  assert.equal(nextWakeup(d.state), 31_000);
});

test('failed attempts back off 1 s, 2 s, 4 s, then the cap (8 s here), counting restarts', () => {
  const d = new Driver();
  d.start(0);
  const waits: number[] = [];
  let now = 0;
  for (let attempt = 0; attempt < 5; attempt++) {
    d.packet(now + 1, reply('OFFER'));
    d.packet(now + 2, reply('NAK'));
    const until = nextWakeup(d.state) as number;
    waits.push(until - (now + 2));
    now = until;
    const actions = d.timer(now);
    assert.equal(actions[0]?.type, 'restart');
  }
  assert.deepEqual(waits, [1000, 2000, 4000, 8000, 8000]);
});

test('a lease resets the back-off to 1 s', () => {
  const d = new Driver();
  d.start(0);
  d.packet(1, reply('OFFER'));
  d.packet(2, reply('NAK'));
  d.timer(1002);
  d.packet(1003, reply('OFFER'));
  d.packet(1004, reply('NAK'));
  d.timer(3004);
  d.packet(3005, reply('OFFER'));
  d.packet(3006, reply('ACK', XID, { leaseTime: 10, renewalTime: 5, rebindingTime: 8 }));
  d.timer(8006);
  d.packet(8007, reply('NAK'));
  assert.equal((nextWakeup(d.state) as number) - 8007, 1000);
});

test('stop while bound: a unicast RELEASE naming the server, then the address is removed', () => {
  const d = new Driver();
  d.bind();
  const actions = d.feed({ type: 'stop', now: 5000, entropy: 0x99 });
  const send = sent(actions);
  assert.equal(send.to, '192.168.1.1');
  assert.equal(send.packet.options.messageType, 'RELEASE');
  assert.equal(send.packet.options.serverId, '192.168.1.1');
  assert.equal(send.packet.ciaddr, '192.168.1.100');
  assert.equal(send.packet.options.hostname, undefined);
  assert.equal(actions[1]?.type, 'unconfigure');
  assert.equal(d.state.kind, 'stopped');
  assert.deepEqual(d.timer(10_000), []);
});

test('stop during back-off sends nothing', () => {
  const d = new Driver();
  d.start(0);
  d.packet(1, reply('OFFER'));
  d.packet(2, reply('NAK'));
  assert.deepEqual(d.feed({ type: 'stop', now: 3, entropy: 0 }), []);
  assert.equal(nextWakeup(d.state), undefined);
});

test('an infinite lease (0xffffffff) never expires', () => {
  const d = new Driver();
  d.start(0);
  d.packet(1, reply('OFFER'));
  const actions = d.packet(2, reply('ACK', XID, { leaseTime: 0xffffffff }));
  const configure = actions[0] as Extract<ClientAction, { type: 'configure' }>;
  assert.equal(configure.lease.expiresAt, Number.POSITIVE_INFINITY);
});

test('the renewal retry cap bounds the wait between renewal requests', () => {
  const result = step(
    { kind: 'idle', attempts: 0, backoffMs: 1000 },
    { type: 'start', now: 0, entropy: XID },
    { ...SETTINGS, renewRetryMaxMs: 60_000 },
  );
  let state = result.state;
  const capped = { ...SETTINGS, renewRetryMaxMs: 60_000 };
  state = step(state, { type: 'packet', now: 1, entropy: 0, packet: reply('OFFER') }, capped).state;
  state = step(
    state,
    { type: 'packet', now: 2, entropy: 0, packet: reply('ACK', XID, ACK_OPTIONS) },
    capped,
  ).state;
  state = step(state, { type: 'timer', now: 900_002, entropy: XID }, capped).state;
  assert.equal(state.kind, 'renewing');
  assert.equal(nextWakeup(state), 900_002 + 60_000);
});
