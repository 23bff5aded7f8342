/**
 * Who the anchor says it is to a DHCP server: the hostname (option 12) and the client identifier
 * (option 61), as anchord derives them. Pure.
 */
import type { Selector } from '../../selector/index.js';

/**
 * The client identifier from the hostname: type 0 ("not a hardware address", RFC 2132 §9.14)
 * followed by the hostname's bytes. A server keys its reservation on it, so the anchor keeps its
 * lease across container recreates even when Docker hands it a new MAC.
 */
export function clientIdentifier(hostname: string): Uint8Array {
  const name = new TextEncoder().encode(hostname);
  const out = new Uint8Array(name.length + 1);
  out.set(name, 1);
  return out;
}

/**
 * `ANCHORD_DHCP_HOSTNAME`, else the project, else the value of the selector's first key in code
 * point order — anchord's order, so the name stays the same across restarts of one
 * configuration. Empty when none of them gives one.
 */
export function dhcpHostname(
  explicit: string,
  project: string,
  scope: Selector | undefined,
): string {
  if (explicit !== '') return explicit;
  if (project !== '') return project;
  const pairs = (scope?.requirements ?? [])
    .filter((r) => r.operator === 'In' && r.values.length === 1)
    .map((r) => [r.key, r.values[0] as string] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return pairs[0]?.[1] ?? '';
}
