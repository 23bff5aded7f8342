/**
 * A DHCPv4 lease as the client keeps it, and its timers (RFC 2131 §4.4.5). Pure.
 */
import type { DhcpPacket } from './packet.js';

/** What an ACK granted, with the absolute times (ms since the epoch) it implies. */
export interface Lease {
  readonly address: string;
  /** Prefix length from option 1; 32 when the server sent no mask (anchord's fallback). */
  readonly prefixLength: number;
  readonly serverId: string;
  /** Option 3's first router, when the server sent one. */
  readonly router?: string;
  readonly dnsServers: readonly string[];
  readonly leaseSeconds: number;
  readonly acquiredAt: number;
  readonly renewAt: number;
  readonly rebindAt: number;
  readonly expiresAt: number;
}

/** anchord's lease length when an ACK carries none (`IPAddressLeaseTime(time.Hour)`). */
export const DEFAULT_LEASE_SECONDS = 3600;
/** RFC 2131 §3.3: 0xffffffff means the lease never ends. */
const INFINITE = 0xffffffff;
/** Timers past this are clamped: a Node timer cannot wait longer than 2^31-1 ms. */
const LONGEST_MS = 2 ** 31 - 1;

/** The prefix length of a dotted-quad mask, or undefined when its one-bits are not contiguous. */
export function prefixOf(mask: string): number | undefined {
  const value = mask
    .split('.')
    .map(Number)
    .reduce((acc, byte) => acc * 256 + byte, 0);
  for (let length = 0; length <= 32; length++)
    if (value === 2 ** 32 - 2 ** (32 - length)) return length;
  return undefined;
}

/**
 * When to renew, in seconds after the ACK: T1 when the server sent one (anchord's
 * `renewalInterval`), else half the lease. anchord's test vectors: lease 3600 with T1 900 renews
 * at 900; lease 3600 without T1 renews at 1800.
 */
export function renewalSeconds(options: DhcpPacket['options']): number {
  if (options.renewalTime !== undefined && options.renewalTime > 0) return options.renewalTime;
  const lease = options.leaseTime ?? DEFAULT_LEASE_SECONDS;
  // anchord's guard against a zero lease: renew in 30 minutes.
  return lease > 0 ? Math.floor(lease / 2) : 1800;
}

/** T2: the server's, else 7/8 of the lease (RFC 2131 §4.4.5), never before T1. */
function rebindingSeconds(options: DhcpPacket['options'], renew: number, lease: number): number {
  const t2 =
    options.rebindingTime !== undefined && options.rebindingTime > 0
      ? options.rebindingTime
      : Math.floor((lease * 7) / 8);
  return Math.max(t2, renew);
}

function at(now: number, secondsLater: number): number {
  return now + Math.min(secondsLater * 1000, LONGEST_MS);
}

/** The lease an ACK grants, received at `now`; undefined when the ACK grants no address. */
export function leaseFromAck(
  ack: DhcpPacket,
  now: number,
  fallbackServer: string,
): Lease | undefined {
  if (ack.yiaddr === '0.0.0.0') return undefined;
  const leaseSeconds = ack.options.leaseTime ?? DEFAULT_LEASE_SECONDS;
  const renew = renewalSeconds(ack.options);
  const rebind = rebindingSeconds(ack.options, renew, leaseSeconds);
  const mask = ack.options.subnetMask;
  const prefix = mask === undefined ? undefined : prefixOf(mask);
  const router = ack.options.routers?.[0];
  return {
    address: ack.yiaddr,
    prefixLength: prefix ?? 32,
    serverId: ack.options.serverId ?? fallbackServer,
    ...(router !== undefined ? { router } : {}),
    dnsServers: ack.options.dnsServers ?? [],
    leaseSeconds,
    acquiredAt: now,
    renewAt: at(now, renew),
    rebindAt: at(now, rebind),
    expiresAt:
      leaseSeconds === INFINITE
        ? Number.POSITIVE_INFINITY
        : at(now, Math.max(leaseSeconds, rebind)),
  };
}
