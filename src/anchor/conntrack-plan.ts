/**
 * Which conntrack entries to delete after the maps change. Pure.
 *
 * NAT bindings live in conntrack, so a connection DNATed to a backend keeps going there after
 * the map moves on. When a key's target changes or disappears we delete the old target's flows
 * by reply source — the backend's address and port, as `conntrack -D -r ADDR -p PROTO
 * --reply-port-src PORT` — which cuts exactly the connections to that backend port. A target
 * that is still used by another key is kept: cutting it would break live, valid connections.
 */
import type { DnatEntry, Family, Proto } from './model.js';

/** One `conntrack -D` call. */
export interface ConntrackFlush {
  readonly family: Family;
  readonly proto: Proto;
  /** The old backend address (canonical). */
  readonly address: string;
  readonly backendPort: number;
}

const target = (e: {
  family: Family;
  proto: Proto;
  address: string;
  backendPort: number;
}): string => `${e.family}|${e.proto}|${e.address}|${e.backendPort}`;

/**
 * The flushes needed to go from `previous` to `next`, deduplicated and sorted. Empty when
 * nothing was applied before (a fresh start has no stale bindings of ours to cut).
 */
export function conntrackFlushes(
  previous: readonly DnatEntry[],
  next: readonly DnatEntry[],
): ConntrackFlush[] {
  const nextByKey = new Map(next.map((e) => [`${e.family}|${e.proto}|${e.port}`, e]));
  const stillTargeted = new Set(next.map(target));
  const out = new Map<string, ConntrackFlush>();
  for (const old of previous) {
    const now = nextByKey.get(`${old.family}|${old.proto}|${old.port}`);
    if (now !== undefined && now.address === old.address && now.backendPort === old.backendPort)
      continue;
    const key = target(old);
    if (stillTargeted.has(key)) continue;
    out.set(key, {
      family: old.family,
      proto: old.proto,
      address: old.address,
      backendPort: old.backendPort,
    });
  }
  return [...out.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, flush]) => flush);
}
