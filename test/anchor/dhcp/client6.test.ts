// DHCPv6: the wire format of RFC 8415 §8/§21 and the client's exchange, driven with explicit times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { INITIAL_STATE6, nextWakeup6, step6 } from '../../../src/anchor/dhcp/client6.js';
import type {
  Client6Action,
  Client6Event,
  Client6Settings,
  Client6State,
} from '../../../src/anchor/dhcp/client6.js';
import { decodePacket6, duidLl, encodePacket6 } from '../../../src/anchor/dhcp/packet6.js';
import type { Dhcp6Packet, IaNa } from '../../../src/anchor/dhcp/packet6.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const SERVER_ID = Uint8Array.from([0, 1, 0, 1, 1, 2, 3, 4, 2, 0x42, 0xac, 0x1b, 0, 2]);
const SETTINGS: Client6Settings = {
  duid: duidLl('02:42:ac:1b:4d:03'),
  iaid: 0xac1b4d03,
  hostname: 'mailcow',
  backoffMaxMs: 8000,
  exchangeTimeoutMs: 30_000,
  retransmitMs: 1000,
};
const XID = 0x123456;
const IA: IaNa = {
  iaid: 0xac1b4d03,
  t1: 60,
  t2: 105,
  addresses: [{ address: 'fd42:77::1aa', preferred: 120, valid: 120 }],
  status: 0,
};

test('RFC 8415 §11.4: DUID-LL is type 3, hardware type 1, then the MAC', () => {
  assert.equal(hex(duidLl('02:42:ac:1b:4d:03')), '000300010242ac1b4d03');
});

test('RFC 8415 §8, §21: a SOLICIT on the wire', () => {
  const bytes = encodePacket6({
    type: 'SOLICIT',
    xid: XID,
    clientId: duidLl('02:42:ac:1b:4d:03'),
    iaNa: { ...IA, t1: 0, t2: 0, addresses: [] },
    elapsed: 0,
    status: 0,
  });
  assert.equal(
    hex(bytes),
    '01123456' + // SOLICIT, transaction id
      '0001000a000300010242ac1b4d03' + // §21.2 client identifier
      '0003000cac1b4d030000000000000000' + // §21.4 IA_NA, IAID, T1 0, T2 0
      '000800020000' + // §21.9 elapsed time
      '000600020017', // §21.7 ORO: DNS servers (23)
  );
});

test('an ADVERTISE as dnsmasq writes it decodes: server id, IA_NA, IAADDR, status', () => {
  const iaaddr = '0005' + '0018' + 'fd420077' + '0000'.repeat(5) + '01aa' + '00000078' + '00000078';
  const ia = '0003' + '0028' + 'ac1b4d03' + '0000003c' + '00000069' + iaaddr;
  const bytes = Buffer.from(
    '02123456' +
      '0002000e' +
      hex(SERVER_ID) +
      ia +
      '000d0009' +
      '0000' +
      Buffer.from('success').toString('hex'),
    'hex',
  );
  const result = decodePacket6(new Uint8Array(bytes));
  assert.ok(result.ok);
  assert.equal(result.packet.type, 'ADVERTISE');
  assert.equal(result.packet.xid, XID);
  assert.equal(hex(result.packet.serverId ?? new Uint8Array()), hex(SERVER_ID));
  assert.deepEqual(result.packet.iaNa, {
    ...IA,
    addresses: [{ address: 'fd42:77::1aa', preferred: 120, valid: 120 }],
  });
  assert.equal(result.packet.status, 0);
});

test('encode → decode keeps the IA_NA and its addresses', () => {
  const word = fc.integer({ min: 0, max: 0xffff });
  const address = fc
    .tuple(word, word, word, word, word, word, word, word)
    .map((g) => g.map((x) => x.toString(16)).join(':'));
  fc.assert(
    fc.property(
      fc.array(address, { maxLength: 4 }),
      fc.integer({ min: 0, max: 0xffffff }),
      (addrs, xid) => {
        const canonical = addrs.map((a) =>
          decodePacket6(
            encodePacket6({
              type: 'REPLY',
              xid,
              iaNa: { ...IA, addresses: [{ address: a, preferred: 1, valid: 2 }] },
              status: 0,
            }),
          ),
        );
        for (const [i, r] of canonical.entries()) {
          assert.ok(r.ok);
          const back = r.packet.iaNa?.addresses[0]?.address ?? '';
          // The text may be shortened (RFC 5952); the bytes may not change.
          assert.equal(
            hex(
              encodePacket6({
                type: 'REPLY',
                xid,
                iaNa: { ...IA, addresses: [{ address: back, preferred: 1, valid: 2 }] },
                status: 0,
              }),
            ),
            hex(
              encodePacket6({
                type: 'REPLY',
                xid,
                iaNa: {
                  ...IA,
                  addresses: [{ address: addrs[i] as string, preferred: 1, valid: 2 }],
                },
                status: 0,
              }),
            ),
          );
        }
      },
    ),
  );
});

test('decode never throws on arbitrary bytes', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 300 }),
      (bytes) => typeof decodePacket6(bytes).ok === 'boolean',
    ),
  );
});

function reply(type: Dhcp6Packet['type'], ia: IaNa | null = IA, xid = XID): Dhcp6Packet {
  return {
    type,
    xid,
    serverId: SERVER_ID,
    clientId: SETTINGS.duid,
    ...(ia !== null ? { iaNa: ia } : {}),
    status: 0,
  };
}

class Driver {
  state: Client6State = INITIAL_STATE6;
  feed(event: Client6Event): readonly Client6Action[] {
    const result = step6(this.state, event, SETTINGS);
    this.state = result.state;
    return result.actions;
  }
  packet(now: number, p: Dhcp6Packet) {
    return this.feed({ type: 'packet', now, entropy: 0, packet: p });
  }
}

test('SOLICIT, ADVERTISE, REQUEST (server id and IA echoed), REPLY: addresses configured, ok counted', () => {
  const d = new Driver();
  const solicit = d.feed({ type: 'start', now: 0, entropy: XID });
  assert.equal((solicit[0] as Extract<Client6Action, { type: 'send' }>).packet.type, 'SOLICIT');
  const request = d.packet(10, reply('ADVERTISE'));
  const sent = (request[0] as Extract<Client6Action, { type: 'send' }>).packet;
  assert.equal(sent.type, 'REQUEST');
  assert.equal(hex(sent.serverId ?? new Uint8Array()), hex(SERVER_ID));
  assert.deepEqual(sent.iaNa, IA);
  assert.equal(sent.fqdn, 'mailcow');
  const actions = d.packet(20, reply('REPLY'));
  assert.deepEqual(
    actions.map((a) => a.type),
    ['configure', 'acquired'],
  );
  const lease = (actions[0] as Extract<Client6Action, { type: 'configure' }>).lease;
  assert.deepEqual(lease.addresses, ['fd42:77::1aa']);
  assert.equal(lease.expiresAt, 20 + 120_000);
  // A fresh SOLICIT at T1 (60 s), as anchord re-solicits instead of renewing.
  assert.equal(nextWakeup6(d.state), 20 + 60_000);
});

test('anchord TestExtractV6Addrs_NoIANAYieldsNil: a REPLY without IA_NA fails the attempt', () => {
  const d = new Driver();
  d.feed({ type: 'start', now: 0, entropy: XID });
  d.packet(10, reply('ADVERTISE'));
  const actions = d.packet(20, reply('REPLY', null));
  assert.deepEqual(actions, [
    { type: 'acquired', outcome: 'error', reason: 'v6 reply contained no IA_NA addresses' },
  ]);
  assert.equal(d.state.kind, 'backoff');
});

test('re-solicit keeps the addresses; a server that does not answer loses them at the valid lifetime', () => {
  const d = new Driver();
  d.feed({ type: 'start', now: 0, entropy: XID });
  d.packet(10, reply('ADVERTISE'));
  d.packet(20, reply('REPLY'));
  let now = nextWakeup6(d.state) as number;
  let removed: readonly Client6Action[] = [];
  for (let i = 0; i < 200 && removed.length === 0; i++) {
    const actions = d.feed({ type: 'timer', now, entropy: XID });
    if (actions.some((a) => a.type === 'unconfigure')) removed = actions;
    now = nextWakeup6(d.state) ?? now + 1000;
  }
  assert.equal(removed[0]?.type, 'unconfigure');
  assert.ok(now >= 20 + 120_000);
});

test('stop removes held addresses and sends nothing (anchord sends no v6 RELEASE)', () => {
  const d = new Driver();
  d.feed({ type: 'start', now: 0, entropy: XID });
  d.packet(10, reply('ADVERTISE'));
  d.packet(20, reply('REPLY'));
  assert.deepEqual(
    d.feed({ type: 'stop', now: 30, entropy: 0 }).map((a) => a.type),
    ['unconfigure'],
  );
});
