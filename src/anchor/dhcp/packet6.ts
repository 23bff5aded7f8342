/**
 * DHCPv6 messages on the wire (RFC 8415 §8 and §21), the part a stateful client needs: SOLICIT,
 * ADVERTISE, REQUEST, REPLY with one IA_NA. Pure; decoding never throws.
 *
 * Layout: msg-type (1 byte), transaction-id (3 bytes), then options as code (2), length (2),
 * value. IA_NA (3) nests its own options after IAID, T1 and T2; IAADDR (5) nests after the
 * address and its two lifetimes. A status code (13) of 0 or none means success.
 */

export const MESSAGE_TYPES6 = {
  SOLICIT: 1,
  ADVERTISE: 2,
  REQUEST: 3,
  RENEW: 5,
  REPLY: 7,
  RELEASE: 8,
} as const;

export type MessageType6 = keyof typeof MESSAGE_TYPES6;

const OPTION6 = {
  clientId: 1,
  serverId: 2,
  iaNa: 3,
  iaAddr: 5,
  oro: 6,
  elapsed: 8,
  statusCode: 13,
  fqdn: 39,
} as const;

export interface IaAddress {
  readonly address: string;
  readonly preferred: number;
  readonly valid: number;
}

export interface IaNa {
  readonly iaid: number;
  readonly t1: number;
  readonly t2: number;
  readonly addresses: readonly IaAddress[];
  /** The IA's status code; 0 (success) when absent. */
  readonly status: number;
}

export interface Dhcp6Packet {
  readonly type: MessageType6;
  /** 24 bits. */
  readonly xid: number;
  readonly clientId?: Uint8Array;
  readonly serverId?: Uint8Array;
  readonly iaNa?: IaNa;
  /** Hundredths of a second since the exchange began (option 8). */
  readonly elapsed?: number;
  /** Option 39 with flags 0: the server decides about DNS updates, as in anchord. */
  readonly fqdn?: string;
  /** The message's status code; 0 when absent. */
  readonly status: number;
}

const TYPE_NAMES6 = new Map<number, MessageType6>(
  Object.entries(MESSAGE_TYPES6).map(([name, code]) => [code, name as MessageType6]),
);

function opt(out: number[], code: number, value: readonly number[]): void {
  out.push(code >> 8, code & 255, value.length >> 8, value.length & 255);
  for (const byte of value) out.push(byte);
}

function u32(value: number): number[] {
  return [(value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
}

/** An IPv6 address in canonical text (ipaddr.js form) to its 16 bytes. */
function v6Bytes(text: string): number[] {
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const fill =
    tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  const all = [...left, ...fill, ...right];
  if (all.length !== 8) throw new Error(`not an IPv6 address: ${text}`);
  return all.flatMap((g) => {
    const n = Number.parseInt(g, 16);
    return [n >> 8, n & 255];
  });
}

function v6Text(bytes: readonly number[]): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] ?? 0) << 8) + (bytes[i + 1] ?? 0));
  // RFC 5952: the longest run of two or more zero groups becomes "::".
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [best, bestLength] = [i, j - i];
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`;
}

/** DNS wire format of a name (RFC 1035 §3.1), as option 39 carries it. */
function dnsName(name: string): number[] {
  const out: number[] = [];
  for (const label of name.split('.').filter((l) => l !== '')) {
    const bytes = [...new TextEncoder().encode(label)].slice(0, 63);
    out.push(bytes.length);
    for (const byte of bytes) out.push(byte);
  }
  out.push(0);
  return out;
}

function encodeIaNa(ia: IaNa): number[] {
  const value = [...u32(ia.iaid), ...u32(ia.t1), ...u32(ia.t2)];
  for (const a of ia.addresses)
    opt(value, OPTION6.iaAddr, [...v6Bytes(a.address), ...u32(a.preferred), ...u32(a.valid)]);
  return value;
}

/** The wire bytes of a message the client builds. */
export function encodePacket6(packet: Dhcp6Packet): Uint8Array {
  const out = [
    MESSAGE_TYPES6[packet.type],
    (packet.xid >> 16) & 255,
    (packet.xid >> 8) & 255,
    packet.xid & 255,
  ];
  if (packet.clientId !== undefined) opt(out, OPTION6.clientId, [...packet.clientId]);
  if (packet.serverId !== undefined) opt(out, OPTION6.serverId, [...packet.serverId]);
  if (packet.iaNa !== undefined) opt(out, OPTION6.iaNa, encodeIaNa(packet.iaNa));
  if (packet.elapsed !== undefined)
    opt(out, OPTION6.elapsed, [(packet.elapsed >> 8) & 255, packet.elapsed & 255]);
  if (packet.fqdn !== undefined) opt(out, OPTION6.fqdn, [0, ...dnsName(packet.fqdn)]);
  if (packet.type === 'SOLICIT' || packet.type === 'REQUEST') opt(out, OPTION6.oro, [0, 23]); // DNS servers
  return Uint8Array.from(out);
}

/** code → values of each instance, or a reason. */
function options6(bytes: Uint8Array, start: number, end: number): Map<number, number[][]> | string {
  const out = new Map<number, number[][]>();
  let at = start;
  while (at < end) {
    if (at + 4 > end) return 'an option header runs past the end';
    const code = ((bytes[at] as number) << 8) + (bytes[at + 1] as number);
    const length = ((bytes[at + 2] as number) << 8) + (bytes[at + 3] as number);
    if (at + 4 + length > end) return `option ${code} runs past the end`;
    const list = out.get(code) ?? [];
    list.push([...bytes.subarray(at + 4, at + 4 + length)]);
    out.set(code, list);
    at += 4 + length;
  }
  return out;
}

function read32(v: readonly number[], at: number): number {
  return (
    (v[at] ?? 0) * 2 ** 24 + ((v[at + 1] ?? 0) << 16) + ((v[at + 2] ?? 0) << 8) + (v[at + 3] ?? 0)
  );
}

function statusOf(map: Map<number, number[][]>): number {
  const value = map.get(OPTION6.statusCode)?.[0];
  return value !== undefined && value.length >= 2
    ? ((value[0] as number) << 8) + (value[1] as number)
    : 0;
}

function decodeIaNa(value: readonly number[]): IaNa | undefined {
  if (value.length < 12) return undefined;
  const inner = options6(Uint8Array.from(value), 12, value.length);
  if (typeof inner === 'string') return undefined;
  const addresses = (inner.get(OPTION6.iaAddr) ?? [])
    .filter((a) => a.length >= 24)
    .map((a) => ({
      address: v6Text(a.slice(0, 16)),
      preferred: read32(a, 16),
      valid: read32(a, 20),
    }));
  return {
    iaid: read32(value, 0),
    t1: read32(value, 4),
    t2: read32(value, 8),
    addresses,
    status: statusOf(inner),
  };
}

export type Decode6Result =
  | { readonly ok: true; readonly packet: Dhcp6Packet }
  | { readonly ok: false; readonly reason: string };

/** Decodes a message from the network. Never throws. */
export function decodePacket6(bytes: Uint8Array): Decode6Result {
  if (bytes.length < 4)
    return { ok: false, reason: `${bytes.length} bytes is shorter than a DHCPv6 message` };
  const type = TYPE_NAMES6.get(bytes[0] as number);
  if (type === undefined)
    return { ok: false, reason: `message type ${bytes[0]} is not one this client reads` };
  const map = options6(bytes, 4, bytes.length);
  if (typeof map === 'string') return { ok: false, reason: map };
  const clientId = map.get(OPTION6.clientId)?.[0];
  const serverId = map.get(OPTION6.serverId)?.[0];
  const ia = map.get(OPTION6.iaNa)?.[0];
  const iaNa = ia === undefined ? undefined : decodeIaNa(ia);
  return {
    ok: true,
    packet: {
      type,
      xid: ((bytes[1] as number) << 16) + ((bytes[2] as number) << 8) + (bytes[3] as number),
      ...(clientId !== undefined ? { clientId: Uint8Array.from(clientId) } : {}),
      ...(serverId !== undefined ? { serverId: Uint8Array.from(serverId) } : {}),
      ...(iaNa !== undefined ? { iaNa } : {}),
      status: statusOf(map),
    },
  };
}

/** DUID-LL (RFC 8415 §11.4): type 3, hardware type 1 (Ethernet), the MAC. */
export function duidLl(mac: string): Uint8Array {
  return Uint8Array.from([0, 3, 0, 1, ...mac.split(':').map((h) => Number.parseInt(h, 16))]);
}
