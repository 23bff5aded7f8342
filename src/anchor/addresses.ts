/**
 * Address validation for everything that may reach nftables or conntrack. Docker reports
 * addresses as strings; we parse them with ipaddr.js and write back only its canonical form, so a
 * hostile or garbled value can never smuggle text into a script.
 */
import ipaddr from 'ipaddr.js';

/**
 * The first part of a canonical dotted quad (four decimal parts 0-255 without leading zeros),
 * or -1. A character loop: this runs for every entry of every render, where a full parse or a
 * capturing pattern costs more than the rest of the render together.
 */
function canonicalQuadFirst(text: string): number {
  let parts = 0;
  let value = 0;
  let digits = 0;
  let first = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i === text.length ? 46 : text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || value > 255) return -1;
      if (parts === 0) first = value;
      parts++;
      value = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits === 1 && value === 0) return -1; // a leading zero
      value = value * 10 + (c - 48);
      if (++digits > 3) return -1;
    } else return -1;
  }
  return parts === 4 ? first : -1;
}

/** A canonical IPv4 address (`a.b.c.d`) or undefined for anything else (including CIDRs). */
export function validIpv4(text: string | undefined): string | undefined {
  if (text === undefined || text === '' || text.length > 15) return undefined;
  // Canonical only: the text is then its own canonical form.
  const first = canonicalQuadFirst(text);
  if (first < 0) return undefined;
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
