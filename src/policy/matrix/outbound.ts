/**
 * The outbound side of the matrix (docs/policy.md, "Outbound flows"): for the clients of each
 * namespace, where their traffic to each Service or EgressNetwork port with outbound policy goes
 * — route and rule, backends with their shares, the timeouts, retries and circuit breaker in
 * force, and for an EgressNetwork whether it is allowed.
 *
 * Outbound policy depends on the client's namespace only (consumer routes, the EgressNetworks a
 * namespace sees), so the clients of a flow are namespaces. Each parent port is computed once
 * for the namespaces that see the same routes, and once for each namespace whose own (consumer)
 * routes or EgressNetworks differ: the work grows with parents and consumer routes, not with
 * parents times namespaces. The outcomes come from the outbound core (`parentFlows`).
 */
import { compareText } from '../../base/index.js';
import type { PolicyModel } from '../compile/model.js';
import type {
  CircuitBreakerJson,
  OutboundBackendChoice,
  OutboundDecision,
  OutboundRetryJson,
  OutboundTimeoutsJson,
} from '../outbound/decision.js';
import { egressCandidates } from '../outbound/egress.js';
import { parentFlows } from '../outbound/flows.js';
import type { ParentFlow } from '../outbound/flows.js';
import { OutboundIndex } from '../outbound/outbound-index.js';
import type { EgressNetwork, OutboundConfig, Service } from '../outbound/types.js';
import { flowMatches, flowWitness } from './outbound-witness.js';
import type { OutboundWitness } from './outbound-witness.js';

/** Where the requests of one rule go, for the clients of some namespaces. */
export interface OutboundFlow {
  /**
   * `<parent> → <route> rule <n>`, or `<parent> → default` for what no rule takes. Unique per
   * client namespace (the default of namespaces with consumer routes may differ from the others').
   */
  readonly id: string;
  /**
   * The client namespaces whose pods send this way, sorted; or `["*"]`: every client namespace
   * (`clientNamespaces` of the matrix) but those in `except`, when that is the shorter list.
   */
  readonly namespaces: readonly string[];
  /** With `namespaces` `["*"]`: the client namespaces the flow is not for. */
  readonly except?: readonly string[];
  /** `Service ns/name:port`, `EgressNetwork ns/name:port`, or `…:*` for its other ports. */
  readonly parent: string;
  readonly routeKind: OutboundDecision['routeKind'];
  readonly route: string | null;
  readonly rule: number | null;
  /** What the rule matches, in short (`GET /books/*`, `every request no rule takes`). */
  readonly matches: string;
  readonly decision: OutboundDecision['decision'];
  readonly status: OutboundDecision['status'];
  readonly backends: readonly OutboundBackendChoice[];
  readonly timeouts: OutboundTimeoutsJson;
  readonly retry: OutboundRetryJson | null;
  readonly circuitBreaker: CircuitBreakerJson | null;
  readonly egress: OutboundDecision['egress'];
  /** A request for `policy route` that takes this flow; absent when none could be made. */
  readonly witness?: OutboundWitness;
}

export interface OutboundOptions {
  /** Only clients of this namespace. */
  readonly namespace?: string;
  /** The namespace of cluster-wide EgressNetworks. Default: `linkerd-egress`. */
  readonly egressNamespace?: string;
}

/** A port of a parent, and the port it is computed with (`*`: an EgressNetwork's other ports). */
interface ParentPort {
  readonly owner: Service | EgressNetwork;
  readonly port: number | '*';
  readonly at: number;
}

function hasAnnotations(config: OutboundConfig): boolean {
  const t = config.timeouts;
  return (
    t.request !== undefined ||
    t.response !== undefined ||
    t.idle !== undefined ||
    config.httpRetry !== undefined ||
    config.grpcRetry !== undefined ||
    config.accrual !== undefined
  );
}

/** Service ports with outbound policy: a route attaches, or the Service has outbound annotations. */
function servicePorts(index: OutboundIndex, services: readonly Service[]): ParentPort[] {
  const out: ParentPort[] = [];
  for (const s of services) {
    const attached = index.attachments('Service', s.meta.namespace, s.meta.name);
    if (attached.length === 0 && !hasAnnotations(s.config)) continue;
    const ports = new Set(s.ports.map((p) => p.port));
    for (const a of attached) if (a.port !== undefined) ports.add(a.port);
    for (const port of [...ports].sort((a, b) => a - b)) out.push({ owner: s, port, at: port });
  }
  return out;
}

/** Each port a route of the EgressNetwork names, then its other ports (`*`). */
function egressPorts(index: OutboundIndex, net: EgressNetwork): ParentPort[] {
  const named = new Set<number>();
  for (const a of index.attachments('EgressNetwork', net.meta.namespace, net.meta.name))
    if (a.port !== undefined) named.add(a.port);
  const out: ParentPort[] = [...named]
    .sort((a, b) => a - b)
    .map((port) => ({ owner: net, port, at: port }));
  // The other ports are computed on one no route names: they all see the same routes.
  let other = 443;
  if (named.has(other)) for (other = 1; named.has(other); other++);
  out.push({ owner: net, port: '*', at: other });
  return out;
}

/**
 * The client namespaces that see a parent port, split into the groups that see the same routes:
 * each namespace with consumer routes of its own alone, the others together.
 */
function views(
  index: OutboundIndex,
  target: ParentPort,
  clients: readonly string[],
  globalNamespace: string,
): string[][] {
  const o = target.owner;
  const kind = 'ports' in o ? 'Service' : 'EgressNetwork';
  const seeing =
    kind === 'Service'
      ? clients
      : clients.filter((ns) =>
          egressCandidates(index.egressNetworks, ns, globalNamespace).includes(o as EgressNetwork),
        );
  const own = new Set<string>();
  for (const a of index.attachments(kind, o.meta.namespace, o.meta.name))
    if (a.route.meta.namespace !== o.meta.namespace) own.add(a.route.meta.namespace);
  const alone = seeing.filter((ns) => own.has(ns)).map((ns) => [ns]);
  const rest = seeing.filter((ns) => !own.has(ns));
  return rest.length === 0 ? alone : [rest, ...alone];
}

/**
 * A flow's identity across revisions. What takes the requests no rule takes (a default route, or
 * 404) is one flow per parent port, whichever it is: a Deny turned Allow changes that flow.
 */
function flowId(parent: string, f: ParentFlow): string {
  if (f.rest) return `${parent} → default`;
  return `${parent} → ${f.route}${f.rule === null ? '' : ` rule ${f.rule}`}`;
}

interface Built {
  flow: Omit<OutboundFlow, 'namespaces'>;
  readonly namespaces: Set<string>;
  readonly order: number;
}

/** The flows of one parent port for one group of namespaces, merged into `into` by id. */
function addFlows(
  into: Map<string, Built>,
  context: { model: PolicyModel; index: OutboundIndex; podsOf: Map<string, string[]> },
  target: ParentPort,
  group: readonly string[],
  options: OutboundOptions,
): void {
  const first = group[0] as string;
  const o = target.owner;
  const kind = 'ports' in o ? 'Service' : 'EgressNetwork';
  const parent = `${kind} ${o.meta.namespace}/${o.meta.name}:${target.port}`;
  for (const f of parentFlows(context.index, o, target.at, first)) {
    const id = flowId(parent, f);
    // Namespaces share a flow when it goes the same way for them: the default of a namespace
    // with consumer routes (404) is not the default of the others (Linkerd's default route).
    const matches = flowMatches(f);
    const key = `${id}\u0000${f.route ?? ''}\u0000${matches}\u0000${JSON.stringify(f.outcome)}`;
    const known = into.get(key);
    if (known !== undefined) {
      for (const ns of group) known.namespaces.add(ns);
      continue;
    }
    const witness = flowWitness(context, { target, flow: f, namespace: first }, options);
    into.set(key, {
      order: into.size,
      namespaces: new Set(group),
      flow: {
        id,
        parent,
        routeKind: f.routeKind,
        route: f.route,
        rule: f.rule,
        matches,
        ...f.outcome,
        egress: f.egress,
        ...(witness === undefined ? {} : { witness }),
      },
    });
  }
}

/**
 * A flow's namespaces, or `*` but the others when that is shorter: a flow most namespaces share
 * is written once, not once per namespace (200 namespaces × 6,000 flows would be megabytes).
 */
function namespacesOf(
  set: ReadonlySet<string>,
  clients: readonly string[],
): Pick<OutboundFlow, 'namespaces' | 'except'> {
  const others = clients.length - set.size;
  if (set.size < 2 || others >= set.size) return { namespaces: [...set].sort(compareText) };
  return { namespaces: ['*'], except: clients.filter((ns) => !set.has(ns)) };
}

/** The client namespaces of a flow, `*` expanded over the matrix's `clientNamespaces`. */
export function flowNamespaces(flow: OutboundFlow, clientNamespaces: readonly string[]): string[] {
  if (flow.namespaces.length !== 1 || flow.namespaces[0] !== '*') return [...flow.namespaces];
  const except = new Set(flow.except ?? []);
  return clientNamespaces.filter((ns) => !except.has(ns));
}

/** The namespaces of the model's pods (under `namespace`, that one): the outbound clients. */
export function clientNamespaces(model: PolicyModel, options: OutboundOptions = {}): string[] {
  const out = new Set<string>();
  for (const pod of model.podList)
    if (options.namespace === undefined || pod.meta.namespace === options.namespace)
      out.add(pod.meta.namespace);
  return [...out].sort(compareText);
}

/**
 * Every outbound flow of the model's client namespaces (the namespaces of its pods). Sorted by
 * parent (Services, then EgressNetworks; namespace, name, port), then in route order. Pure.
 */
export function outboundFlows(model: PolicyModel, options: OutboundOptions = {}): OutboundFlow[] {
  const podsOf = new Map<string, string[]>();
  for (const pod of model.podList) {
    if (options.namespace !== undefined && pod.meta.namespace !== options.namespace) continue;
    const list = podsOf.get(pod.meta.namespace) ?? [];
    list.push(pod.meta.name);
    podsOf.set(pod.meta.namespace, list);
  }
  for (const list of podsOf.values()) list.sort(compareText);
  const clients = [...podsOf.keys()].sort(compareText);
  if (clients.length === 0) return [];
  const index = new OutboundIndex(model.resources);
  const byName = <T extends Service | EgressNetwork>(list: readonly T[]): T[] =>
    [...list].sort(
      (a, b) =>
        compareText(a.meta.namespace, b.meta.namespace) || compareText(a.meta.name, b.meta.name),
    );
  const targets = [
    ...servicePorts(index, byName(model.resources.services ?? [])),
    ...byName(index.egressNetworks).flatMap((n) => egressPorts(index, n)),
  ];
  const global = options.egressNamespace ?? 'linkerd-egress';
  const context = { model, index, podsOf };
  const out: OutboundFlow[] = [];
  for (const target of targets) {
    const built = new Map<string, Built>();
    for (const group of views(index, target, clients, global))
      addFlows(built, context, target, group, options);
    for (const b of [...built.values()].sort((x, y) => x.order - y.order)) {
      const { id, ...rest } = b.flow;
      out.push({ id, ...namespacesOf(b.namespaces, clients), ...rest });
    }
  }
  return out;
}
