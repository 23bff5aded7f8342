/**
 * The one rule for who gets an outside port, shared by the daemon's planner and the static
 * check: a (family, proto, port) key goes to the first backend that asks for it, in the order
 * the caller gives (the planner: container created first, then the lower name; the check:
 * service name, since creation times are unknown statically), and every later one loses.
 * Pure.
 */
import type { Family, Proto } from './model.js';

/** What asks for a port: anything that names its family, protocol and outside port. */
export interface PortRequest {
  readonly family: Family;
  readonly proto: Proto;
  readonly port: number;
}

/** One claimed key: the winner and, in request order, those that asked after it. */
export interface PortClaim<T extends PortRequest> {
  readonly winner: T;
  readonly losers: readonly T[];
}

/** The key one outside port is claimed under. */
export function portKey(request: PortRequest): string {
  return `${request.family}/${request.proto}/${request.port}`;
}

/** Claims in first-request order; deterministic for a given request order. */
export function claimPorts<T extends PortRequest>(requests: Iterable<T>): PortClaim<T>[] {
  const claims = new Map<string, { winner: T; losers: T[] }>();
  for (const request of requests) {
    const key = portKey(request);
    const claim = claims.get(key);
    if (claim === undefined) claims.set(key, { winner: request, losers: [] });
    else claim.losers.push(request);
  }
  return [...claims.values()];
}
