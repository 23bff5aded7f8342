// DHCPv4 wire format: the layout of RFC 2131 §2 (figure 1) and the option encodings of RFC 2132,
// each row named after the section it pins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodePacket, encodePacket } from '../../../src/anchor/dhcp/packet.js';
import type { DhcpPacket } from '../../../src/anchor/dhcp/packet.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

const DISCOVER: DhcpPacket = {
  op: 1,
  xid: 0x3903f326,
  secs: 0,
  flags: 0x8000,
  ciaddr: '0.0.0.0',
  yiaddr: '0.0.0.0',
  siaddr: '0.0.0.0',
  giaddr: '0.0.0.0',
  chaddr: '02:42:ac:1f:00:05',
  options: { messageType: 'DISCOVER', hostname: 'mailcow', parameterRequestList: [1, 3, 6] },
};

/** A reply as a server writes it: header by hand from RFC 2131 figure 1, options by RFC 2132. */
function handMadeAck(): Uint8Array {
  const header = Buffer.alloc(236);
  header.set([2, 1, 6, 0], 0); // op BOOTREPLY, htype Ethernet, hlen 6, hops 0
  header.writeUInt32BE(0x3903f326, 4);
  header.writeUInt16BE(0x8000, 10);
  header.set([192, 168, 1, 100], 16); // yiaddr
  header.set([192, 168, 1, 1], 20); // siaddr
  header.set([0x02, 0x42, 0xac, 0x1f, 0x00, 0x05], 28);
  const options = [
    [53, 1, 5], // §9.6 DHCPACK
    [54, 4, 192, 168, 1, 1], // §9.7 server identifier
    [51, 4, 0, 0, 0x0e, 0x10], // §9.2 lease 3600 s
    [58, 4, 0, 0, 0x03, 0x84], // §9.11 T1 900 s
    [59, 4, 0, 0, 0x0b, 0xb8], // §9.12 T2 3000 s
    [1, 4, 255, 255, 255, 0], // §3.3 subnet mask
    [0, 0], // §3.1 pad, twice
    [3, 8, 192, 168, 1, 1, 192, 168, 1, 2], // §3.5 routers, two
    [6, 4, 9, 9, 9, 9], // §3.8 DNS
    [255], // §3.2 end
    [1, 2, 3], // after End: ignored
  ].flat();
  return Uint8Array.from([...header, 99, 130, 83, 99, ...options]);
}

test('RFC 2131 §2: DISCOVER header layout, magic cookie, options, end', () => {
  const bytes = encodePacket(DISCOVER);
  assert.equal(hex(bytes.subarray(0, 12)), '010106003903f32600008000');
  assert.equal(hex(bytes.subarray(28, 34)), '0242ac1f0005');
  assert.equal(hex(bytes.subarray(236, 240)), '63825363');
  // §9.6 message type first, §3.14 hostname, §9.8 parameter request list, §3.2 end.
  assert.equal(hex(bytes.subarray(240)), '350101' + '0c076d61696c636f77' + '3703010306' + 'ff');
});

test('RFC 2132: an ACK written by hand decodes with every option this client reads', () => {
  const result = decodePacket(handMadeAck());
  assert.ok(result.ok);
  const { packet } = result;
  assert.equal(packet.op, 2);
  assert.equal(packet.xid, 0x3903f326);
  assert.equal(packet.yiaddr, '192.168.1.100');
  assert.equal(packet.chaddr, '02:42:ac:1f:00:05');
  assert.deepEqual(
    { ...packet.options },
    {
      messageType: 'ACK',
      serverId: '192.168.1.1',
      leaseTime: 3600,
      renewalTime: 900,
      rebindingTime: 3000,
      subnetMask: '255.255.255.0',
      routers: ['192.168.1.1', '192.168.1.2'],
      dnsServers: ['9.9.9.9'],
    },
  );
});

test('RFC 3396: an option split over two instances concatenates', () => {
  const bytes = handMadeAck();
  // The End option is the fourth byte from the end (three ignored bytes follow it).
  const at = bytes.length - 4;
  const withSplit = Uint8Array.from([
    ...bytes.subarray(0, at),
    ...[12, 3, 0x61, 0x62, 0x63, 12, 2, 0x64, 0x65],
    255,
  ]);
  const result = decodePacket(withSplit);
  assert.ok(result.ok);
  assert.equal(result.packet.options.hostname, 'abcde');
});

test('RFC 2132 §9.14: a client identifier round-trips byte for byte', () => {
  const clientId = Uint8Array.from([0, 0x6d, 0x61, 0x69, 0x6c]);
  const result = decodePacket(
    encodePacket({
      ...DISCOVER,
      options: { messageType: 'REQUEST', clientId, requestedIp: '10.0.0.9', serverId: '10.0.0.1' },
    }),
  );
  assert.ok(result.ok);
  assert.deepEqual([...(result.packet.options.clientId ?? [])], [...clientId]);
  assert.equal(result.packet.options.requestedIp, '10.0.0.9');
  assert.equal(result.packet.options.serverId, '10.0.0.1');
});

const refused: readonly { name: string; bytes: () => Uint8Array; reason: RegExp }[] = [
  { name: 'too short', bytes: () => new Uint8Array(100), reason: /shorter/ },
  {
    name: 'no magic cookie',
    bytes: () => {
      const b = handMadeAck();
      b[236] = 0;
      return b;
    },
    reason: /cookie/,
  },
  {
    name: 'not Ethernet',
    bytes: () => {
      const b = handMadeAck();
      b[1] = 6;
      return b;
    },
    reason: /Ethernet/,
  },
  {
    name: 'an option runs past the end',
    bytes: () => Uint8Array.from([...handMadeAck().subarray(0, 240), 51, 4, 0, 0]),
    reason: /past the end/,
  },
  { name: 'op 3', bytes: () => Uint8Array.from([3, ...handMadeAck().subarray(1)]), reason: /op 3/ },
];

for (const row of refused) {
  test(`decode refuses ${row.name}`, () => {
    const result = decodePacket(row.bytes());
    assert.equal(result.ok, false);
    assert.match((result as { reason: string }).reason, row.reason);
  });
}

test('decode never throws on arbitrary bytes, and a valid header decodes whatever follows', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 600 }), (tail) => {
      decodePacket(tail);
      const result = decodePacket(Uint8Array.from([...handMadeAck().subarray(0, 240), ...tail]));
      return typeof result.ok === 'boolean';
    }),
  );
});

test('encode → decode is the identity on the fields the client writes', () => {
  const ip = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));
  const mac = fc
    .uint8Array({ minLength: 6, maxLength: 6 })
    .map((b) => [...b].map((x) => x.toString(16).padStart(2, '0')).join(':'));
  fc.assert(
    fc.property(
      fc.nat(),
      ip,
      mac,
      fc.array(ip, { minLength: 1, maxLength: 70 }),
      fc.nat(),
      (xid, addr, chaddr, routers, lease) => {
        const packet: DhcpPacket = {
          ...DISCOVER,
          xid,
          ciaddr: addr,
          chaddr,
          options: { messageType: 'ACK', routers, leaseTime: lease },
        };
        const result = decodePacket(encodePacket(packet));
        assert.ok(result.ok);
        assert.deepEqual(result.packet, { ...packet, options: { ...packet.options } });
      },
    ),
  );
});
