/**
 * A concrete request for a matrix cell: a path the row's route matches and a client of the
 * column, in the form `labelwise policy authorize` takes, so the cell can be explained by the
 * same trace a single decision prints.
 */
import type { HttpVersion } from '../compile/route-labels.js';
import type { CompiledRoute } from '../routes/route-table.js';
import { cidrContains, parseAddress, parseCidr } from '../networks.js';
import type { ClusterSettings } from '../types.js';
import type { ClientClass } from './clients.js';
import { serviceAccountIdentity } from '../identity.js';

export interface Witness {
  /** `ns/name` of a pod of the row. */
  readonly pod: string;
  readonly port: number;
  readonly method: string;
  readonly path: string;
  readonly host?: string;
  /** Headers the route's match requires (exact ones). */
  readonly headers?: readonly (readonly [string, string])[];
  /** Absent for an unauthenticated client. */
  readonly identity?: string;
  readonly clientIp: string;
  /** The connection's HTTP version, on an `unknown` Server when the matrix was given one. */
  readonly httpVersion?: HttpVersion;
}

/** Documentation addresses (RFC 5737, RFC 3849), one of which lies outside the cluster networks. */
export const EXTERNAL_CANDIDATES = ['192.0.2.10', '198.51.100.10', '203.0.113.10', '2001:db8::10'];

function insideCluster(ip: string, settings: ClusterSettings): boolean {
  const address = parseAddress(ip);
  if (address === undefined) return false;
  return settings.clusterNetworks.some((text) => {
    const c = parseCidr(text);
    return c !== undefined && cidrContains(c, address);
  });
}

/** An address of a cluster network: its first host (IPv4 preferred). */
function clusterAddress(settings: ClusterSettings): string {
  for (const text of settings.clusterNetworks) {
    const c = parseCidr(text);
    if (c === undefined || !c.v4) continue;
    const base = c.mask === 0xffffffff ? c.base : c.base + 1;
    return [(base >>> 24) & 255, (base >>> 16) & 255, (base >>> 8) & 255, base & 255].join('.');
  }
  return '10.0.0.1';
}

export function witnessClient(
  client: ClientClass,
  settings: ClusterSettings,
): { identity?: string; clientIp: string } {
  const clientIp =
    client.network === 'cluster'
      ? clusterAddress(settings)
      : (EXTERNAL_CANDIDATES.find((ip) => !insideCluster(ip, settings)) ?? '192.0.2.10');
  if (client.identity === undefined) return { clientIp };
  return {
    identity: serviceAccountIdentity(
      client.identity.serviceAccount,
      client.identity.namespace,
      settings,
    ),
    clientIp,
  };
}

/** A request the route matches (its first match; `/` for a regular expression or no route). */
export function witnessRequest(route: CompiledRoute | undefined): {
  method: string;
  path: string;
  host?: string;
  headers?: [string, string][];
} {
  if (route === undefined) return { method: 'GET', path: '/' };
  const host = route.hostnames[0]?.replace(/^\*\./, 'x.');
  const withHost = <T extends object>(value: T): T & { host?: string } =>
    host === undefined ? value : { ...value, host };
  if (route.template !== undefined) {
    const path = route.template.template.text.replace(/([:*])[A-Za-z][A-Za-z0-9_-]*/g, (_, kind) =>
      kind === '*' ? 'x/y' : 'x',
    );
    return withHost({ method: route.template.methods[0] ?? 'GET', path });
  }
  const m = route.rules[0]?.matches[0];
  if (m === undefined) return withHost({ method: 'GET', path: '/' });
  const base = m.path.type === 'RegularExpression' ? '/' : m.path.value;
  const query = m.queryParams
    .filter((q) => q.type === 'Exact')
    .map((q) => `${encodeURIComponent(q.name)}=${encodeURIComponent(q.value)}`)
    .join('&');
  const headers = m.headers
    .filter((h) => h.type === 'Exact')
    .map((h) => [h.name, h.value] as [string, string]);
  return withHost({
    method: m.method ?? 'GET',
    path: query === '' ? base : `${base}?${query}`,
    ...(headers.length === 0 ? {} : { headers }),
  });
}
