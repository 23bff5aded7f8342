/**
 * DHCPv4 messages on the wire (RFC 2131 §2, options from RFC 2132), encoded and decoded as plain
 * data. Pure: no sockets, no clock.
 *
 * Layout: a fixed 236-byte header (op, htype, hlen, hops, xid, secs, flags, ciaddr, yiaddr,
 * siaddr, giaddr, chaddr[16], sname[64], file[128]), the magic cookie 99.130.83.99, then options
 * as code/length/value triples, ended by 255. Traps this codec pins with tests:
 *
 * 1. Pad (0) has no length byte; End (255) stops parsing, and anything after it is ignored.
 * 2. An option may appear more than once; RFC 3396 says the values concatenate, so they do here.
 * 3. Option overload (52) would move options into `sname`/`file`; the anchor asks for none and a
 *    server that uses it only loses the overloaded options here, never the header.
 * 4. A reply is read from untrusted network input: decoding never throws, it returns a reason.
 */

/** DHCP message types (option 53, RFC 2132 §9.6). */
export const MESSAGE_TYPES = {
  DISCOVER: 1,
  OFFER: 2,
  REQUEST: 3,
  DECLINE: 4,
  ACK: 5,
  NAK: 6,
  RELEASE: 7,
  INFORM: 8,
} as const;

export type MessageType = keyof typeof MESSAGE_TYPES;

/** Option codes this client reads or writes (RFC 2132). */
export const OPTION = {
  subnetMask: 1,
  routers: 3,
  dnsServers: 6,
  hostname: 12,
  requestedIp: 50,
  leaseTime: 51,
  overload: 52,
  messageType: 53,
  serverId: 54,
  parameterRequestList: 55,
  renewalTime: 58,
  rebindingTime: 59,
  clientId: 61,
} as const;

/** The options of a message, typed where this client uses them. */
export interface DhcpOptions {
  readonly messageType?: MessageType;
  readonly subnetMask?: string;
  readonly routers?: readonly string[];
  readonly dnsServers?: readonly string[];
  readonly hostname?: string;
  readonly requestedIp?: string;
  /** Seconds; 0xffffffff is "infinite" (RFC 2131 §3.3). */
  readonly leaseTime?: number;
  readonly serverId?: string;
  readonly parameterRequestList?: readonly number[];
  /** T1, seconds. */
  readonly renewalTime?: number;
  /** T2, seconds. */
  readonly rebindingTime?: number;
  readonly clientId?: Uint8Array;
}

/** One DHCPv4 message. Addresses are dotted quads; `chaddr` is a lower-case MAC. */
export interface DhcpPacket {
  /** 1 BOOTREQUEST (client to server), 2 BOOTREPLY. */
  readonly op: 1 | 2;
  readonly xid: number;
  readonly secs: number;
  /** Bit 15 is BROADCAST (RFC 2131 §2, figure 2). */
  readonly flags: number;
  readonly ciaddr: string;
  readonly yiaddr: string;
  readonly siaddr: string;
  readonly giaddr: string;
  readonly chaddr: string;
  readonly options: DhcpOptions;
}

export const BROADCAST_FLAG = 0x8000;
const HEADER = 236;
const COOKIE = [99, 130, 83, 99] as const;
const TYPE_NAMES = new Map<number, MessageType>(
  Object.entries(MESSAGE_TYPES).map(([name, code]) => [code, name as MessageType]),
);

function ipBytes(text: string): number[] {
  const parts = text.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255))
    throw new Error(`not an IPv4 address: ${text}`);
  return parts;
}

function macBytes(text: string): number[] {
  const parts = text.split(':').map((p) => Number.parseInt(p, 16));
  if (parts.length !== 6 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255))
    throw new Error(`not a MAC address: ${text}`);
  return parts;
}

function uint32(value: number): number[] {
  return [(value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
}

function option(out: number[], code: number, value: readonly number[]): void {
  // A value longer than 255 bytes is split into several instances (RFC 3396).
  for (let at = 0; at < value.length || at === 0; at += 255) {
    const part = value.slice(at, at + 255);
    out.push(code, part.length);
    for (const byte of part) out.push(byte);
  }
}

function encodeOptions(o: DhcpOptions): number[] {
  const out: number[] = [];
  if (o.messageType !== undefined) option(out, OPTION.messageType, [MESSAGE_TYPES[o.messageType]]);
  if (o.clientId !== undefined) option(out, OPTION.clientId, [...o.clientId]);
  if (o.requestedIp !== undefined) option(out, OPTION.requestedIp, ipBytes(o.requestedIp));
  if (o.serverId !== undefined) option(out, OPTION.serverId, ipBytes(o.serverId));
  if (o.leaseTime !== undefined) option(out, OPTION.leaseTime, uint32(o.leaseTime));
  if (o.renewalTime !== undefined) option(out, OPTION.renewalTime, uint32(o.renewalTime));
  if (o.rebindingTime !== undefined) option(out, OPTION.rebindingTime, uint32(o.rebindingTime));
  if (o.subnetMask !== undefined) option(out, OPTION.subnetMask, ipBytes(o.subnetMask));
  if (o.routers !== undefined) option(out, OPTION.routers, o.routers.flatMap(ipBytes));
  if (o.dnsServers !== undefined) option(out, OPTION.dnsServers, o.dnsServers.flatMap(ipBytes));
  if (o.hostname !== undefined)
    option(out, OPTION.hostname, [...new TextEncoder().encode(o.hostname)]);
  if (o.parameterRequestList !== undefined)
    option(out, OPTION.parameterRequestList, [...o.parameterRequestList]);
  out.push(255);
  return out;
}

/**
 * The wire bytes of a message. Throws a plain Error for an address that is not a dotted quad or
 * a MAC that is not six hex pairs: the client builds every message itself, so that is a bug.
 */
export function encodePacket(packet: DhcpPacket): Uint8Array {
  const header = new Uint8Array(HEADER);
  header.set([packet.op, 1, 6, 0, ...uint32(packet.xid)], 0);
  header.set([(packet.secs >>> 8) & 255, packet.secs & 255], 8);
  header.set([(packet.flags >>> 8) & 255, packet.flags & 255], 10);
  header.set(ipBytes(packet.ciaddr), 12);
  header.set(ipBytes(packet.yiaddr), 16);
  header.set(ipBytes(packet.siaddr), 20);
  header.set(ipBytes(packet.giaddr), 24);
  header.set(macBytes(packet.chaddr), 28);
  const options = encodeOptions(packet.options);
  const out = new Uint8Array(HEADER + COOKIE.length + options.length);
  out.set(header, 0);
  out.set(COOKIE, HEADER);
  out.set(options, HEADER + COOKIE.length);
  return out;
}

/** A decoded message, or why the bytes are not one. */
export type DecodeResult =
  | { readonly ok: true; readonly packet: DhcpPacket }
  | { readonly ok: false; readonly reason: string };

function ipAt(bytes: Uint8Array, at: number): string {
  return `${bytes[at]}.${bytes[at + 1]}.${bytes[at + 2]}.${bytes[at + 3]}`;
}

function readUint32(bytes: Uint8Array, at = 0): number {
  return (
    (((bytes[at] ?? 0) << 24) >>> 0) +
    ((bytes[at + 1] ?? 0) << 16) +
    ((bytes[at + 2] ?? 0) << 8) +
    (bytes[at + 3] ?? 0)
  );
}

/** Splits the option area into code → concatenated value (trap 2), or a reason. */
function rawOptions(bytes: Uint8Array, start: number): Map<number, number[]> | string {
  const out = new Map<number, number[]>();
  let at = start;
  while (at < bytes.length) {
    const code = bytes[at] as number;
    if (code === 255) return out;
    if (code === 0) {
      at += 1;
      continue;
    }
    if (at + 1 >= bytes.length) return `option ${code} has no length`;
    const length = bytes[at + 1] as number;
    if (at + 2 + length > bytes.length) return `option ${code} runs past the end`;
    const value = out.get(code) ?? [];
    for (let i = 0; i < length; i++) value.push(bytes[at + 2 + i] as number);
    out.set(code, value);
    at += 2 + length;
  }
  // RFC 2131 requires End; servers seen in the wild sometimes stop at the buffer's end.
  return out;
}

function ipList(value: readonly number[] | undefined): string[] | undefined {
  if (value === undefined || value.length === 0 || value.length % 4 !== 0) return undefined;
  const bytes = Uint8Array.from(value);
  const out: string[] = [];
  for (let at = 0; at < bytes.length; at += 4) out.push(ipAt(bytes, at));
  return out;
}

function seconds(value: readonly number[] | undefined): number | undefined {
  return value !== undefined && value.length === 4 ? readUint32(Uint8Array.from(value)) : undefined;
}

function typedOptions(raw: Map<number, number[]>): DhcpOptions {
  const typeByte = raw.get(OPTION.messageType);
  const single = (code: number) => {
    const list = ipList(raw.get(code));
    return list !== undefined && list.length === 1 ? list[0] : undefined;
  };
  const hostname = raw.get(OPTION.hostname);
  const clientId = raw.get(OPTION.clientId);
  const prl = raw.get(OPTION.parameterRequestList);
  const o: Record<string, unknown> = {
    messageType: typeByte?.length === 1 ? TYPE_NAMES.get(typeByte[0] as number) : undefined,
    subnetMask: single(OPTION.subnetMask),
    routers: ipList(raw.get(OPTION.routers)),
    dnsServers: ipList(raw.get(OPTION.dnsServers)),
    hostname: hostname && new TextDecoder().decode(Uint8Array.from(hostname)),
    requestedIp: single(OPTION.requestedIp),
    leaseTime: seconds(raw.get(OPTION.leaseTime)),
    serverId: single(OPTION.serverId),
    parameterRequestList: prl && [...prl],
    renewalTime: seconds(raw.get(OPTION.renewalTime)),
    rebindingTime: seconds(raw.get(OPTION.rebindingTime)),
    clientId: clientId && Uint8Array.from(clientId),
  };
  for (const key of Object.keys(o)) if (o[key] === undefined) delete o[key];
  return o as DhcpOptions;
}

/** Decodes a message received from the network. Never throws (trap 4). */
export function decodePacket(bytes: Uint8Array): DecodeResult {
  if (bytes.length < HEADER + COOKIE.length)
    return { ok: false, reason: `${bytes.length} bytes is shorter than a DHCP message` };
  const op = bytes[0];
  if (op !== 1 && op !== 2) return { ok: false, reason: `op ${op} is neither request nor reply` };
  if (bytes[1] !== 1 || bytes[2] !== 6)
    return { ok: false, reason: 'hardware type is not Ethernet' };
  if (COOKIE.some((byte, i) => bytes[HEADER + i] !== byte))
    return { ok: false, reason: 'the magic cookie is missing' };
  const raw = rawOptions(bytes, HEADER + COOKIE.length);
  if (typeof raw === 'string') return { ok: false, reason: raw };
  const mac = [...bytes.subarray(28, 34)].map((b) => b.toString(16).padStart(2, '0')).join(':');
  return {
    ok: true,
    packet: {
      op,
      xid: readUint32(bytes, 4),
      secs: ((bytes[8] as number) << 8) + (bytes[9] as number),
      flags: ((bytes[10] as number) << 8) + (bytes[11] as number),
      ciaddr: ipAt(bytes, 12),
      yiaddr: ipAt(bytes, 16),
      siaddr: ipAt(bytes, 20),
      giaddr: ipAt(bytes, 24),
      chaddr: mac,
      options: typedOptions(raw),
    },
  };
}
