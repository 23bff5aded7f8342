/**
 * Client networks: CIDR parsing (ipaddr.js, strict forms only) and a compiled matcher. A network
 * authorization holds for an address inside `cidr` and outside every `except` (Linkerd's
 * NetworkAuthentication and ServerAuthorization semantics).
 */
import ipaddr from 'ipaddr.js';
import type { NetworkSpec } from './types.js';

/** A parsed CIDR: IPv4 as a 32-bit base and mask, IPv6 as 16 bytes and a prefix length. */
export type Cidr =
  | { readonly v4: true; readonly base: number; readonly mask: number; readonly text: string }
  | {
      readonly v4: false;
      readonly bytes: readonly number[];
      readonly prefix: number;
      readonly text: string;
    };

/** A parsed client address. IPv4-mapped IPv6 addresses are unwrapped to IPv4. */
export type Address =
  | { readonly v4: true; readonly value: number }
  | { readonly v4: false; readonly bytes: readonly number[] };

function v4Number(bytes: readonly number[]): number {
  return (
    (((bytes[0] ?? 0) << 24) |
      ((bytes[1] ?? 0) << 16) |
      ((bytes[2] ?? 0) << 8) |
      (bytes[3] ?? 0)) >>>
    0
  );
}

/**
 * Parses an address in its standard form (dotted quad or RFC 4291 text); undefined otherwise.
 * ipaddr.js also accepts legacy forms such as `0x7f.1`; those are refused, since a policy file
 * that says `010.0.0.1` almost certainly does not mean 8.0.0.1.
 */
export function parseAddress(text: string): Address | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text))
    return { v4: true, value: v4Number(ipaddr.IPv4.parse(text).toByteArray()) };
  if (!text.includes(':') || !ipaddr.IPv6.isValid(text)) return undefined;
  const v6 = ipaddr.IPv6.parse(text);
  if (v6.isIPv4MappedAddress())
    return { v4: true, value: v4Number(v6.toIPv4Address().toByteArray()) };
  return { v4: false, bytes: v6.toByteArray() };
}

/** Parses `a.b.c.d/n`, `x::/n`, or a bare address (a host network). Undefined when malformed. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  const addressText = slash < 0 ? text : text.slice(0, slash);
  const prefixText = slash < 0 ? undefined : text.slice(slash + 1);
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  if (ipaddr.IPv4.isValidFourPartDecimal(addressText)) {
    const prefix = prefixText === undefined ? 32 : Number(prefixText);
    if (prefix > 32) return undefined;
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    return {
      v4: true,
      base: (v4Number(ipaddr.IPv4.parse(addressText).toByteArray()) & mask) >>> 0,
      mask,
      text,
    };
  }
  if (addressText.includes(':') && ipaddr.IPv6.isValid(addressText)) {
    const prefix = prefixText === undefined ? 128 : Number(prefixText);
    if (prefix > 128) return undefined;
    const bytes = ipaddr.IPv6.parse(addressText)
      .toByteArray()
      .map((byte, i) => {
        const bits = Math.max(0, Math.min(8, prefix - i * 8));
        return byte & ((0xff << (8 - bits)) & 0xff);
      });
    return { v4: false, bytes, prefix, text };
  }
  return undefined;
}

/** Is `address` inside `cidr`? Families never mix. */
export function cidrContains(cidr: Cidr, address: Address): boolean {
  if (cidr.v4) return address.v4 && (address.value & cidr.mask) >>> 0 === cidr.base;
  if (address.v4) return false;
  const full = cidr.prefix >> 3;
  for (let i = 0; i < full; i++) if (address.bytes[i] !== cidr.bytes[i]) return false;
  const rest = cidr.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((address.bytes[full] ?? 0) & mask) === cidr.bytes[full];
}

/** Is every address of `inner` inside `outer`? */
export function cidrCovers(outer: Cidr, inner: Cidr): boolean {
  if (outer.v4 !== inner.v4) return false;
  if (outer.v4 && inner.v4)
    return inner.mask >>> 0 >= outer.mask >>> 0 && (inner.base & outer.mask) >>> 0 === outer.base;
  if (!outer.v4 && !inner.v4)
    return inner.prefix >= outer.prefix && cidrContains(outer, { v4: false, bytes: inner.bytes });
  return false;
}

/** Do two CIDRs share any address? */
export function cidrsIntersect(a: Cidr, b: Cidr): boolean {
  return cidrCovers(a, b) || cidrCovers(b, a);
}

/** One compiled network term: inside `cidr`, outside every `except`. */
export interface NetworkTerm {
  readonly cidr: Cidr;
  readonly except: readonly Cidr[];
}

/** Compiles validated network specs; throws a plain Error on malformed input (a loader bug). */
export function compileNetworks(specs: readonly NetworkSpec[]): NetworkTerm[] {
  return specs.map((spec) => {
    const cidr = parseCidr(spec.cidr);
    if (cidr === undefined) throw new Error(`compileNetworks: unvalidated CIDR ${spec.cidr}`);
    return {
      cidr,
      except: spec.except.map((text) => {
        const parsed = parseCidr(text);
        if (parsed === undefined) throw new Error(`compileNetworks: unvalidated CIDR ${text}`);
        return parsed;
      }),
    };
  });
}

/** Does any term admit `address`? HOT PATH of every decision: no allocation. */
export function networksAdmit(terms: readonly NetworkTerm[], address: Address): boolean {
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i] as NetworkTerm;
    if (!cidrContains(term.cidr, address)) continue;
    let excluded = false;
    for (let j = 0; j < term.except.length; j++) {
      if (cidrContains(term.except[j] as Cidr, address)) {
        excluded = true;
        break;
      }
    }
    if (!excluded) return true;
  }
  return false;
}

/** Validates a list of network specs, returning a message per bad entry keyed by its field. */
export function networkProblems(spec: NetworkSpec): { field: 'cidr' | number; message: string }[] {
  const problems: { field: 'cidr' | number; message: string }[] = [];
  const cidr = parseCidr(spec.cidr);
  if (cidr === undefined) {
    problems.push({
      field: 'cidr',
      message: `${JSON.stringify(spec.cidr)} is not a CIDR such as 10.0.0.0/8 or fd00::/8`,
    });
    return problems;
  }
  spec.except.forEach((text, i) => {
    const except = parseCidr(text);
    if (except === undefined)
      problems.push({
        field: i,
        message: `${JSON.stringify(text)} is not a CIDR such as 10.1.0.0/16`,
      });
    else if (cidrCovers(except, cidr))
      // Linkerd's admission: an exception that covers the whole cidr negates it completely.
      problems.push({
        field: i,
        message: `cidr ${spec.cidr} is completely negated by except ${text}`,
      });
    else if (!cidrCovers(cidr, except))
      problems.push({ field: i, message: `except ${text} is not inside cidr ${spec.cidr}` });
  });
  return problems;
}
