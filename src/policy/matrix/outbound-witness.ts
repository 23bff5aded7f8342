/**
 * What an outbound flow matches, in words, and a witness: a request `policy route` takes the
 * same way. A witness is kept only when the outbound core routes it to the flow's route and rule
 * (a rule other rules shadow, or a regular expression, may have none).
 */
import type { PolicyModel } from '../compile/model.js';
import { parseCidr } from '../networks.js';
import type { ParentFlow } from '../outbound/flows.js';
import type { OutboundIndex } from '../outbound/outbound-index.js';
import { compiled } from '../outbound/outbound-index.js';
import { routeOutbound } from '../outbound/route.js';
import type { OutboundDestination } from '../outbound/route.js';
import type { EgressNetwork, Service } from '../outbound/types.js';
import { makeRequest } from '../routes/request.js';
import { describeMatches } from './describe.js';
import { EXTERNAL_CANDIDATES, witnessRequest } from './witness.js';

/** The flags of `labelwise policy route` that send a request this flow's way. */
export interface OutboundWitness {
  /** `ns/pod`: `--from`. */
  readonly from: string;
  /** `svc.ns:port` or `ip:port`: `--to`. */
  readonly to: string;
  readonly method: string;
  readonly path: string;
  readonly host?: string;
  readonly headers?: readonly (readonly [string, string])[];
}

const connection = (f: ParentFlow): boolean =>
  f.routeKind === 'TLSRoute' ||
  f.routeKind === 'TCPRoute' ||
  f.route === 'opaq' ||
  (f.route?.startsWith('tcp-') ?? false);

/** `GET /books/*`, `SNI api.example.com`, `every request`, `every request no rule takes`. */
export function flowMatches(f: ParentFlow): string {
  const unit = connection(f) ? 'connection' : 'request';
  if (f.via === undefined) {
    if (f.route === null) return `every ${unit} no rule takes`;
    return f.egress === null ? `every ${unit}` : `every ${unit} no route takes`;
  }
  const route = f.via.route;
  if (f.routeKind === 'TCPRoute' || (f.routeKind === 'TLSRoute' && route.hostnames.length === 0))
    return 'every connection';
  if (f.routeKind === 'TLSRoute') return `SNI ${route.hostnames.join(', ')}`;
  const c = compiled(route);
  const matches = describeMatches({ ...c, rules: c.rules.slice(f.rule ?? 0, (f.rule ?? 0) + 1) });
  return route.hostnames.length === 0 ? matches : `host ${route.hostnames.join('|')}: ${matches}`;
}

type Request = Omit<OutboundWitness, 'from' | 'to'>;

/** Requests that may take the flow: its rule's first match, else a plain one. */
function requests(f: ParentFlow, serviceHost: string | undefined): Request[] {
  const plain = (host: string | undefined): Request[] => [
    { method: 'GET', path: '/', ...(host === undefined ? {} : { host }) },
    { method: 'GET', path: '/.unrouted', ...(host === undefined ? {} : { host }) },
  ];
  if (f.via === undefined) return plain(serviceHost);
  const route = f.via.route;
  const sni = route.hostnames[0]?.replace(/^\*\./, 'x.');
  if (f.routeKind === 'TCPRoute' || f.routeKind === 'TLSRoute') return plain(sni);
  const c = compiled(route);
  const one = witnessRequest({ ...c, rules: c.rules.slice(f.rule ?? 0, (f.rule ?? 0) + 1) });
  return [
    one.host === undefined && serviceHost !== undefined ? { ...one, host: serviceHost } : one,
  ];
}

/** Addresses an EgressNetwork may hold: the first host of each of its IPv4 networks, then others. */
function addresses(net: EgressNetwork): string[] {
  const out: string[] = [];
  for (const spec of net.networks ?? []) {
    const c = parseCidr(spec.cidr);
    if (c === undefined || !c.v4) continue;
    const base = c.mask === 0xffffffff ? c.base : (c.base + 1) >>> 0;
    out.push([(base >>> 24) & 255, (base >>> 16) & 255, (base >>> 8) & 255, base & 255].join('.'));
  }
  return [...out, ...EXTERNAL_CANDIDATES];
}

function toText(to: OutboundDestination): string {
  if ('service' in to) return `${to.service}.${to.namespace}:${to.port}`;
  return to.ip.includes(':') ? `[${to.ip}]:${to.port}` : `${to.ip}:${to.port}`;
}

/** A witness for one flow, seen from a pod of `namespace`; undefined when none takes it. */
export function flowWitness(
  context: {
    readonly model: PolicyModel;
    readonly index: OutboundIndex;
    readonly podsOf: ReadonlyMap<string, readonly string[]>;
  },
  at: {
    readonly target: { readonly owner: Service | EgressNetwork; readonly at: number };
    readonly flow: ParentFlow;
    readonly namespace: string;
  },
  options: { readonly egressNamespace?: string },
): OutboundWitness | undefined {
  const pod = context.podsOf.get(at.namespace)?.[0];
  if (pod === undefined) return undefined;
  const o = at.target.owner;
  const port = at.target.at;
  const service = 'ports' in o;
  const destinations: OutboundDestination[] = service
    ? [{ service: o.meta.name, namespace: o.meta.namespace, port }]
    : addresses(o).map((ip) => ({ ip, port }));
  const host = service
    ? `${o.meta.name}.${o.meta.namespace}.svc.${context.model.settings.identityDomain}`
    : undefined;
  const settings = {
    clusterNetworks: context.model.settings.clusterNetworks,
    ...(options.egressNamespace === undefined ? {} : { egressNamespace: options.egressNamespace }),
  };
  for (const to of destinations)
    for (const request of requests(at.flow, host)) {
      const d = routeOutbound(context.index, {
        from: { namespace: at.namespace, name: pod },
        to,
        request: makeRequest(request),
        settings,
        trace: false,
      });
      if (d.parent === at.flow.parent && d.route === at.flow.route && d.rule === at.flow.rule)
        return { from: `${at.namespace}/${pod}`, to: toText(to), ...request };
    }
  return undefined;
}
