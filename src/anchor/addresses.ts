/**
 * Address validation for everything that may reach nftables or conntrack. Docker reports
 * addresses as strings; we parse them with ipaddr.js and write back only its canonical form, so a
 * hostile or garbled value can never smuggle text into a script.
 */
import ipaddr from 'ipaddr.js';

const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const CANONICAL_QUAD = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);

/** A canonical IPv4 address (`a.b.c.d`) or undefined for anything else (including CIDRs). */
export function validIpv4(text: string | undefined): string | undefined {
  if (text === undefined || text === '' || text.length > 15) return undefined;
  // Canonical dotted quads only (no leading zeros, each part 0-255): the text is then its own
  // canonical form. This runs for every entry of every render, so it avoids a full parse.
  const quad = CANONICAL_QUAD.exec(text);
  if (quad === null) return undefined;
  const first = Number(quad[1]);
  // 0.0.0.0/8 unspecified, 224.0.0.0/4 multicast, 255.255.255.255 broadcast.
  if (first === 0 || (first >= 224 && first <= 239) || text === '255.255.255.255') return undefined;
  return text;
}

const REFUSED_V6 = new Set([
  'unspecified',
  'linkLocal',
  'multicast',
  'loopback',
  'ipv4Mapped',
  'rfc6145',
]);

/**
 * A canonical IPv6 address usable as a backend (what Docker reports as `GlobalIPv6Address`:
 * global unicast, unique-local, or documentation space such as 2001:db8::/32 that test setups
 * use), or undefined. Link-local, loopback, multicast, unspecified and IPv4-mapped addresses are
 * refused.
 */
export function validGlobalIpv6(text: string | undefined): string | undefined {
  if (text === undefined || text === '' || text.length > 45 || !/^[0-9A-Fa-f:.]+$/.test(text))
    return undefined;
  if (!ipaddr.IPv6.isValid(text)) return undefined;
  const address = ipaddr.IPv6.parse(text);
  const range = address.range();
  if (REFUSED_V6.has(range)) return undefined;
  return address.toString();
}

/** A MAC address in lower case `aa:bb:cc:dd:ee:ff`, or undefined. */
export function normalMac(text: string | undefined): string | undefined {
  if (text === undefined || !/^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$/.test(text)) return undefined;
  return text.toLowerCase();
}
