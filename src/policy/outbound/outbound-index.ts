/**
 * The outbound routes of every (parent, port, client namespace), indexed once per input: what
 * Linkerd's policy controller sends a client's proxy for one Service or EgressNetwork port.
 *
 * - A route attaches through a parentRef of kind Service (group core) or EgressNetwork
 *   (policy.linkerd.io) in the parent's namespace; a parentRef without `port` attaches to every
 *   port. A route in the parent's namespace (a producer route) applies to every client; a route
 *   in another namespace (a consumer route) only to clients in that namespace.
 * - One route kind serves a port: the Service port's `appProtocol` `http` takes HTTPRoutes only,
 *   `kubernetes.io/h2c` GRPCRoutes (else HTTPRoutes), `linkerd.io/opaque`, `linkerd.io/tcp`,
 *   any other value or an opaque port TCPRoutes only; without one, GRPCRoutes win over
 *   HTTPRoutes over TLSRoutes over TCPRoutes.
 * - Routes are ordered oldest first, then by name; the route table then picks by Linkerd's
 *   precedence, exactly as for inbound routes.
 */
import type { CompiledRoute } from '../routes/route-table.js';
import { RouteTable, compareRoutes } from '../routes/route-table.js';
import type { PolicyResources } from '../types.js';
import type { OutboundDecision } from './decision.js';
import type {
  EgressNetwork,
  OutboundParent,
  OutboundRoute,
  OutboundRouteKind,
  OutboundRule,
  Service,
} from './types.js';

/** A Service or EgressNetwork port a client sends to. */
export interface OutboundParentRef {
  readonly kind: 'Service' | 'EgressNetwork';
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
}

/** What serves one parent port for one client namespace. */
export interface PortRoutes {
  /** The route kind in force, or `default` when no route of the served kinds attaches. */
  readonly kind: OutboundRouteKind | 'default';
  /** Why that kind, in words (for traces). */
  readonly why: string;
  /** `Service ns/name:port` or `EgressNetwork ns/name:port`. */
  readonly parentName: string;
  /** The port carries no HTTP (opaque): only TCPRoutes, else the `opaq` default route. */
  readonly opaque: boolean;
  readonly routes: readonly OutboundRoute[];
  /** HTTP and gRPC routes only. */
  readonly table?: RouteTable;
  readonly byCompiled: ReadonlyMap<CompiledRoute, OutboundRoute>;
  /** Request-independent outcomes by rule (or default route name), filled by `routeOutbound`. */
  readonly outcomes: Map<OutboundRule | string, Outcome>;
  /** `ns/name` of routes that attach here but whose written status does not accept the parent. */
  readonly refused: readonly string[];
}

/** What a decision holds that depends on the parent and the rule only. */
export type Outcome = Pick<
  OutboundDecision,
  'decision' | 'status' | 'backends' | 'timeouts' | 'retry' | 'circuitBreaker'
>;

/**
 * A Service port as one client namespace reaches it by name, resolved once: what
 * `routeOutbound` needs without a trace before it looks up the request's rule.
 */
export interface ServiceTarget {
  readonly service: Service;
  readonly parent: OutboundParentRef;
  readonly served: PortRoutes;
  /** The destination as decisions show it, `svc.ns:port`. */
  readonly to: string;
  /** What each route table match decides, by `RuleRef.id`, filled by `routeOutbound`. */
  readonly byMatch: (MatchOutcome | undefined)[];
}

/** A route table match's rule, named as decisions name it, and its outcome. */
export interface MatchOutcome {
  readonly route: string;
  readonly rule: number;
  readonly outcome: Outcome;
}

const NO_LABELS = Object.freeze(Object.create(null) as Record<string, string>);

/** A producer route as the route table (and the shadowing lint) takes it. */
export function compiled(route: OutboundRoute): CompiledRoute {
  return {
    name: `${route.meta.namespace}/${route.meta.name}`,
    kind: route.kind === 'GRPCRoute' ? 'GRPCRoute' : 'HTTPRoute',
    created: route.meta.created,
    hostnames: route.hostnames,
    rules: route.rules.map((r) => ({ matches: r.matches, filters: r.filters, at: r.at })),
    labels: NO_LABELS,
    authorizations: [],
    timeouts: [],
    rewrites: [],
    at: route.meta.at,
  };
}

type ServedKinds = readonly OutboundRouteKind[];

function servedKinds(
  parent: OutboundParentRef,
  service: Service | undefined,
): { kinds: ServedKinds; why: string } {
  const port = service?.ports.find((p) => p.port === parent.port);
  const app = port?.appProtocol?.toLowerCase();
  if (service?.opaquePorts.includes(parent.port) === true)
    return {
      kinds: ['TCPRoute'],
      why: `port ${parent.port} is opaque (config.linkerd.io/opaque-ports)`,
    };
  if (app === 'http') return { kinds: ['HTTPRoute'], why: 'appProtocol http: HTTP/1 routes only' };
  if (app === 'kubernetes.io/h2c')
    return {
      kinds: ['GRPCRoute', 'HTTPRoute'],
      why: 'appProtocol kubernetes.io/h2c: GRPCRoutes, else HTTPRoutes',
    };
  if (app !== undefined)
    return { kinds: ['TCPRoute'], why: `appProtocol ${app}: opaque, TCPRoutes only` };
  return {
    kinds: ['GRPCRoute', 'HTTPRoute', 'TLSRoute', 'TCPRoute'],
    why: 'no appProtocol: GRPCRoutes win over HTTPRoutes over TLSRoutes over TCPRoutes',
  };
}

/**
 * Whether a route applies to one of its parents as far as its `status.parents` says, as Linkerd's
 * outbound index checks it (`route_accepted_by_resource_port`, `route_accepted_by_service`): a
 * parentRef with a port needs an entry of the parent's kind, group and name, for that port or
 * every port, with `Accepted` `True`; a parentRef without a port needs such an entry of kind
 * Service. A route without `status.parents` is taken as accepted: nothing has written its status
 * yet (a manifest from a repository), and the cluster's status controller accepts a route whose
 * parent exists.
 */
export function acceptedByStatus(route: OutboundRoute, parent: OutboundParent): boolean {
  const statuses = route.statusParents;
  if (statuses === undefined) return true;
  const group = parent.kind === 'Service' ? 'core' : 'policy.linkerd.io';
  return statuses.some((s) =>
    parent.port === undefined
      ? s.name === parent.name && s.kind === 'Service' && s.group === 'core' && s.accepted
      : s.name === parent.name &&
        s.kind === parent.kind &&
        s.group === group &&
        (s.port === undefined || s.port === parent.port) &&
        s.accepted,
  );
}

/** The outbound side of one input, indexed for lookups. Built once; lookups are cached. */
export class OutboundIndex {
  /** By namespace, then name: two lookups with the caller's strings, no key built. */
  private readonly services = new Map<string, Map<string, Service>>();
  private readonly servicesByIp = new Map<string, Service>();
  readonly egressNetworks: readonly EgressNetwork[];
  private readonly attached = new Map<string, { route: OutboundRoute; port?: number }[]>();
  /** Routes whose written `status.parents` does not accept the parent (see `acceptedByStatus`). */
  private readonly refused = new Map<string, { route: OutboundRoute; port?: number }[]>();
  /** By parent object, port and client namespace. */
  private readonly cache = new Map<Service | EgressNetwork, Map<number, Map<string, PortRoutes>>>();
  /** By Service namespace, name, port and client namespace: lookups with the caller's values. */
  private readonly targets = new Map<
    string,
    Map<string, Map<number, Map<string, ServiceTarget>>>
  >();

  constructor(resources: PolicyResources) {
    for (const s of resources.services ?? []) {
      let byName = this.services.get(s.meta.namespace);
      if (byName === undefined) {
        byName = new Map();
        this.services.set(s.meta.namespace, byName);
      }
      byName.set(s.meta.name, s);
      for (const ip of s.clusterIPs) this.servicesByIp.set(ip, s);
    }
    this.egressNetworks = resources.egressNetworks ?? [];
    for (const route of resources.outboundRoutes ?? []) {
      if (route.ignoredBecause !== undefined) continue;
      for (const p of route.parents) {
        const key = `${p.kind}:${p.namespace}/${p.name}`;
        const into = acceptedByStatus(route, p) ? this.attached : this.refused;
        const list = into.get(key) ?? [];
        list.push(p.port === undefined ? { route } : { route, port: p.port });
        into.set(key, list);
      }
    }
  }

  service(namespace: string, name: string): Service | undefined {
    return this.services.get(namespace)?.get(name);
  }

  /** The Service port `name.namespace:port` for a client in `clientNamespace`; undefined: no such Service. */
  serviceTarget(
    namespace: string,
    name: string,
    port: number,
    clientNamespace: string,
  ): ServiceTarget | undefined {
    const found = this.targets.get(namespace)?.get(name)?.get(port)?.get(clientNamespace);
    if (found !== undefined) return found;
    const service = this.service(namespace, name);
    if (service === undefined) return undefined;
    const parent: OutboundParentRef = { kind: 'Service', namespace, name, port };
    const target: ServiceTarget = {
      service,
      parent,
      served: this.routesFor(service, parent, clientNamespace),
      to: `${name}.${namespace}:${port}`,
      byMatch: [],
    };
    let byName = this.targets.get(namespace);
    if (byName === undefined) this.targets.set(namespace, (byName = new Map()));
    let byPort = byName.get(name);
    if (byPort === undefined) byName.set(name, (byPort = new Map()));
    let byClient = byPort.get(port);
    if (byClient === undefined) byPort.set(port, (byClient = new Map()));
    byClient.set(clientNamespace, target);
    return target;
  }

  /** The routes attached to a parent, each with the port its parentRef names (none: every port). */
  attachments(
    kind: OutboundParentRef['kind'],
    namespace: string,
    name: string,
  ): readonly { readonly route: OutboundRoute; readonly port?: number }[] {
    return this.attached.get(`${kind}:${namespace}/${name}`) ?? [];
  }

  serviceByIp(ip: string): Service | undefined {
    return this.servicesByIp.get(ip);
  }

  egressNetwork(namespace: string, name: string): EgressNetwork | undefined {
    return this.egressNetworks.find((n) => n.meta.namespace === namespace && n.meta.name === name);
  }

  /** The routes serving `parent` (the port of `owner`) for a client in `clientNamespace`. */
  routesFor(
    owner: Service | EgressNetwork,
    parent: OutboundParentRef,
    clientNamespace: string,
  ): PortRoutes {
    let byPort = this.cache.get(owner);
    if (byPort === undefined) {
      byPort = new Map();
      this.cache.set(owner, byPort);
    }
    let byClient = byPort.get(parent.port);
    if (byClient === undefined) {
      byClient = new Map();
      byPort.set(parent.port, byClient);
    }
    let found = byClient.get(clientNamespace);
    if (found === undefined) {
      found = this.build(parent, clientNamespace);
      byClient.set(clientNamespace, found);
    }
    return found;
  }

  private build(parent: OutboundParentRef, clientNamespace: string): PortRoutes {
    const key = `${parent.kind}:${parent.namespace}/${parent.name}`;
    const here = (list: readonly { route: OutboundRoute; port?: number }[]): OutboundRoute[] =>
      list
        .filter((a) => a.port === undefined || a.port === parent.port)
        .map((a) => a.route)
        .filter(
          (r) => r.meta.namespace === parent.namespace || r.meta.namespace === clientNamespace,
        );
    const candidates = here(this.attached.get(key) ?? []);
    const refused = [
      ...new Set(
        here(this.refused.get(key) ?? []).map((r) => `${r.meta.namespace}/${r.meta.name}`),
      ),
    ];
    const unique = [...new Set(candidates)].sort((a, b) =>
      compareRoutes(
        { created: a.meta.created, name: `${a.meta.namespace}/${a.meta.name}` },
        { created: b.meta.created, name: `${b.meta.namespace}/${b.meta.name}` },
      ),
    );
    const service =
      parent.kind === 'Service' ? this.service(parent.namespace, parent.name) : undefined;
    const { kinds, why } = servedKinds(parent, service);
    const kind = kinds.find((k) => unique.some((r) => r.kind === k));
    const routes = kind === undefined ? [] : unique.filter((r) => r.kind === kind);
    const byCompiled = new Map<CompiledRoute, OutboundRoute>();
    const parentName = `${parent.kind} ${parent.namespace}/${parent.name}:${parent.port}`;
    const opaque = kinds.length === 1 && kinds[0] === 'TCPRoute';
    if (kind === 'HTTPRoute' || kind === 'GRPCRoute') {
      for (const r of routes) byCompiled.set(compiled(r), r);
      const table = new RouteTable([...byCompiled.keys()]);
      return {
        kind,
        why,
        parentName,
        opaque,
        routes,
        table,
        byCompiled,
        outcomes: new Map(),
        refused,
      };
    }
    return {
      kind: kind ?? 'default',
      why,
      parentName,
      opaque,
      routes,
      byCompiled,
      outcomes: new Map(),
      refused,
    };
  }
}
