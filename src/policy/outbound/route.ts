/**
 * Where one outbound request goes (docs/policy.md, "How an outbound request is routed"), and
 * why, in words:
 *
 * 1. The destination: a Service by name, or an address — a Service's cluster IP, else (outside
 *    the cluster networks) the EgressNetwork that holds it (`egress.ts`), else no policy at all
 *    (the proxy forwards to the address as is, Linkerd's `egress-fallback`).
 * 2. The routes serving that parent port for the client's namespace (`outbound-index.ts`).
 * 3. HTTP and gRPC routes: the route table picks a rule by Linkerd's precedence, as inbound.
 *    No route attached: Linkerd's default route (`http`, or `opaq` on an opaque port). An
 *    EgressNetwork always ends with its default route, `http-egress-allow` or
 *    `http-egress-deny` (403). Routes attached but none matches a Service request: 404.
 * 4. The rule's backends with their shares of the weight; a rule without backendRefs sends to
 *    the parent itself. A backend Linkerd cannot resolve answers 500 for its share.
 * 5. Timeouts and retries: the rule's own (route annotations, then `timeouts.request`), else
 *    the parent's annotations. Circuit breaking: the parent's failure accrual.
 */
import { LabelwiseError } from '../../base/index.js';
import { parseAddress } from '../networks.js';
import type { PolicyRequest } from '../routes/request.js';
import type { Considered } from '../routes/route-table.js';
import type { OutboundDecision } from './decision.js';
import { circuitBreakerJson, formatDuration } from './decision.js';
import { inClusterNetworks, resolveEgressNetwork } from './egress.js';
import type { Outcome, OutboundIndex, OutboundParentRef, PortRoutes } from './outbound-index.js';
import { backendChoices, decisionOf, hitRule, retryOf, timeoutsOf } from './route-steps.js';
import type { Note, Target } from './route-steps.js';
import type { EgressNetwork, OutboundRoute, OutboundRule, Service } from './types.js';

/** Where the request is sent: a Service port by name, or an address and port. */
export type OutboundDestination =
  | { readonly service: string; readonly namespace: string; readonly port: number }
  | { readonly ip: string; readonly port: number };

/** Cluster settings outbound routing needs. */
export interface OutboundSettings {
  readonly clusterNetworks: readonly string[];
  /** The namespace of cluster-wide EgressNetworks. Default: `linkerd-egress`. */
  readonly egressNamespace?: string;
}

export interface OutboundInput {
  /** The client pod: its namespace decides consumer routes and EgressNetworks. */
  readonly from: { readonly namespace: string; readonly name: string };
  readonly to: OutboundDestination;
  readonly request: PolicyRequest;
  readonly settings: OutboundSettings;
  /** Build the trace. Default: true. The benchmark turns it off. */
  readonly trace?: boolean;
}

/** Parses `svc.ns:port` or `ip:port` (`[v6]:port`); a LabelwiseError when it is neither. */
export function parseDestination(text: string): OutboundDestination {
  const bad = (): LabelwiseError =>
    new LabelwiseError(
      'POLICY_INVALID_DESTINATION',
      `--to ${JSON.stringify(text)} must be svc.ns:port or ip:port`,
      { source: { path: 'to' }, hint: 'for example --to books.booksapp:7002 or --to 8.8.8.8:443' },
    );
  const colon = text.lastIndexOf(':');
  if (colon < 0) throw bad();
  const portText = text.slice(colon + 1);
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : 0;
  if (port < 1 || port > 65535) throw bad();
  let host = text.slice(0, colon);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (parseAddress(host) !== undefined) return { ip: host, port };
  const parts = host.split('.');
  const [service, namespace] = parts;
  const dns = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  const rest = parts.slice(2).join('.');
  if (
    service === undefined ||
    namespace === undefined ||
    !dns.test(service) ||
    !dns.test(namespace) ||
    (rest !== '' && !/^svc(\.|$)/.test(rest))
  )
    throw bad();
  return { service, namespace, port };
}

/** A destination resolved to its parent (or to no policy: forwarded as is). */
export type Resolved =
  | { readonly kind: 'Service'; readonly service: Service; readonly parent: OutboundParentRef }
  | {
      readonly kind: 'EgressNetwork';
      readonly net: EgressNetwork;
      readonly parent: OutboundParentRef;
      readonly address: string;
    }
  | { readonly kind: 'forward'; readonly address: string };

function serviceParent(s: Service, port: number): Resolved {
  return {
    kind: 'Service',
    service: s,
    parent: { kind: 'Service', namespace: s.meta.namespace, name: s.meta.name, port },
  };
}

function resolveByName(
  index: OutboundIndex,
  to: { service: string; namespace: string; port: number },
  note: Note,
): Resolved {
  const s = index.service(to.namespace, to.service);
  if (s === undefined)
    throw new LabelwiseError(
      'POLICY_UNKNOWN_SERVICE',
      `no Service ${to.namespace}/${to.service} in the input`,
      { source: { path: 'to' }, hint: 'name a Service the input defines, or pass its cluster IP' },
    );
  if (note !== undefined) {
    const declared = s.ports.find((p) => p.port === to.port);
    note(
      `destination: Service ${to.namespace}/${to.service} port ${to.port}${
        declared === undefined
          ? ' (not a port the Service declares)'
          : declared.appProtocol === undefined
            ? ''
            : ` (appProtocol ${declared.appProtocol})`
      }`,
    );
  }
  return serviceParent(s, to.port);
}

function resolveByAddress(
  index: OutboundIndex,
  to: { ip: string; port: number },
  input: OutboundInput,
  note: Note,
): Resolved {
  const address = parseAddress(to.ip);
  const shown = to.ip.includes(':') ? `[${to.ip}]:${to.port}` : `${to.ip}:${to.port}`;
  if (address === undefined) throw new Error(`resolveByAddress: unparsed address ${to.ip}`);
  const s = index.serviceByIp(to.ip);
  if (s !== undefined) {
    note?.(`destination: ${shown} is the cluster IP of Service ${s.meta.namespace}/${s.meta.name}`);
    return serviceParent(s, to.port);
  }
  const clusterNetworks = input.settings.clusterNetworks;
  if (inClusterNetworks(address, clusterNetworks)) {
    note?.(
      `destination: ${shown} is inside the cluster networks but no Service has it as cluster IP: forwarded as is, without outbound policy`,
    );
    return { kind: 'forward', address: shown };
  }
  const global = input.settings.egressNamespace ?? 'linkerd-egress';
  const net = resolveEgressNetwork(
    index.egressNetworks,
    address,
    input.from.namespace,
    global,
    clusterNetworks,
  );
  if (net === undefined) {
    note?.(
      `destination: ${shown} is outside the cluster networks and no EgressNetwork in ${input.from.namespace} or ${global} holds it: forwarded as is (egress-fallback)`,
    );
    return { kind: 'forward', address: shown };
  }
  const local = net.meta.namespace === input.from.namespace;
  note?.(
    `destination: ${shown} is held by EgressNetwork ${net.meta.namespace}/${net.meta.name} (${local ? "the client's namespace" : `the global egress namespace ${global}`}; the most specific network, then the oldest, then the name), trafficPolicy ${net.trafficPolicy}`,
  );
  return {
    kind: 'EgressNetwork',
    net,
    address: shown,
    parent: {
      kind: 'EgressNetwork',
      namespace: net.meta.namespace,
      name: net.meta.name,
      port: to.port,
    },
  };
}

/** The rule a request takes: a route's, a default route's, or none (404). */
export interface Picked {
  readonly route: OutboundRoute | undefined;
  readonly routeName: string | null;
  readonly rule: OutboundRule | undefined;
  readonly ruleIndex: number | null;
  /** The default route of an EgressNetwork with a Deny policy answered. */
  readonly denied: boolean;
  readonly notFound: boolean;
}

/** No rule or route matched: the proxy answers 404 (NoRoute). */
export const NO_ROUTE: Picked = Object.freeze({
  route: undefined,
  routeName: null,
  rule: undefined,
  ruleIndex: null,
  denied: false,
  notFound: true,
});

export function defaultRoute(resolved: Resolved, served: PortRoutes, note: Note): Picked {
  const base = { route: undefined, rule: undefined, ruleIndex: null, notFound: false };
  if (resolved.kind === 'EgressNetwork') {
    const proto = served.opaque ? 'tcp' : 'http';
    const allow = resolved.net.trafficPolicy === 'Allow';
    const name = `${proto}-egress-${allow ? 'allow' : 'deny'}`;
    note?.(
      `default route ${name}: EgressNetwork trafficPolicy ${resolved.net.trafficPolicy}${allow ? ' forwards to the original destination' : served.opaque ? ' refuses the connection' : ' answers 403 (traffic not allowed)'}`,
    );
    return { ...base, routeName: name, denied: !allow };
  }
  const name = served.opaque ? 'opaq' : 'http';
  note?.(
    `no route of the served kind attaches: Linkerd's default route ${name}${served.opaque ? ' forwards the connection' : ' (PathPrefix /)'} to the Service`,
  );
  return { ...base, routeName: name, denied: false };
}

function pick(resolved: Resolved, served: PortRoutes, request: PolicyRequest, note: Note): Picked {
  if (served.kind === 'default') return defaultRoute(resolved, served, note);
  if (served.table === undefined) return streamRoute(served, request, resolved, note);
  const considered: Considered[] | undefined = note === undefined ? undefined : [];
  const hit = served.table.find(request, 'linkerd', considered);
  const found = hitRule(served, hit, considered, request, note);
  if (found !== undefined) return found;
  if (resolved.kind === 'EgressNetwork') return defaultRoute(resolved, served, note);
  note?.('no route rule matches: the proxy answers 404 (NoRoute)');
  return NO_ROUTE;
}

/** TLSRoutes match the SNI (the request's host); TCPRoutes take every connection (oldest wins). */
function streamRoute(
  served: PortRoutes,
  request: PolicyRequest,
  resolved: Resolved,
  note: Note,
): Picked {
  const route = served.routes.find(
    (r) =>
      r.kind === 'TCPRoute' ||
      r.hostnames.length === 0 ||
      r.hostnames.some((h) =>
        h.startsWith('*.') ? (request.host ?? '').endsWith(h.slice(1)) : h === request.host,
      ),
  );
  if (route === undefined) {
    note?.(`no ${served.kind} matches SNI ${request.host ?? '(none)'}`);
    return resolved.kind === 'EgressNetwork'
      ? defaultRoute(resolved, { ...served, opaque: true }, note)
      : NO_ROUTE;
  }
  note?.(
    `${route.kind} ${route.meta.namespace}/${route.meta.name} takes the connection (the oldest matching ${served.kind}; no per-request matching)`,
  );
  return {
    route,
    routeName: `${route.meta.namespace}/${route.meta.name}`,
    rule: route.rules[0],
    ruleIndex: route.rules.length === 0 ? null : 0,
    denied: false,
    notFound: false,
  };
}

/** The trace of every decision made without one: shared, so none is allocated. */
const NO_TRACE: string[] = Object.freeze([]) as unknown as string[];

/**
 * Routes one outbound request. Deterministic; throws a LabelwiseError only for a destination
 * Service that is not in the input.
 */
export function routeOutbound(index: OutboundIndex, input: OutboundInput): OutboundDecision {
  if (input.trace === false && 'service' in input.to) {
    const quick = quickRoute(index, input, input.to);
    if (quick !== undefined) return quick;
  }
  const trace: string[] = input.trace === false ? NO_TRACE : [];
  const note: Note = input.trace === false ? undefined : trace.push.bind(trace);
  const from = `${input.from.namespace}/${input.from.name}`;
  const resolved =
    'service' in input.to
      ? resolveByName(index, input.to, note)
      : resolveByAddress(index, input.to, input, note);
  const to =
    'service' in input.to
      ? `${input.to.service}.${input.to.namespace}:${input.to.port}`
      : input.to.ip.includes(':')
        ? `[${input.to.ip}]:${input.to.port}`
        : `${input.to.ip}:${input.to.port}`;
  if (resolved.kind === 'forward') return forwarded(from, to, trace);
  const served = index.routesFor(
    resolved.kind === 'Service' ? resolved.service : resolved.net,
    resolved.parent,
    input.from.namespace,
  );
  note?.(
    `${served.routes.length} ${served.kind === 'default' ? 'route(s)' : `${served.kind}(s)`} serve ${served.parentName} for clients in ${input.from.namespace}${served.routes.length > 0 ? `: ${served.routes.map((r) => `${r.meta.namespace}/${r.meta.name}`).join(', ')}` : ''} (${served.why})`,
  );
  if (note !== undefined && served.refused.length > 0)
    note(
      `not used: ${served.refused.join(', ')} (its status.parents does not say Accepted for ${served.parentName}; Linkerd's index reads the status its controller wrote)`,
    );
  const picked = pick(resolved, served, input.request, note);
  // Without a trace, what follows depends only on the parent and the rule, not the request:
  // it is computed once per rule (an EgressNetwork's backend is the request's own address).
  const cached = note === undefined && resolved.kind === 'Service';
  const key = picked.rule ?? picked.routeName ?? '';
  let outcome = cached ? served.outcomes.get(key) : undefined;
  if (outcome === undefined) {
    outcome = outcomeOf(index, targetOf(resolved), served, picked, note);
    if (cached) served.outcomes.set(key, outcome);
  }
  const egress =
    resolved.kind === 'EgressNetwork'
      ? {
          network: `${resolved.net.meta.namespace}/${resolved.net.meta.name}`,
          trafficPolicy: resolved.net.trafficPolicy,
          allowed: outcome.decision !== 'deny',
        }
      : null;
  return decisionFrom(outcome, from, to, served, picked.routeName, picked.ruleIndex, egress, trace);
}

/**
 * Without a trace, a Service named by the caller: the destination, its routes and each rule's
 * outcome are looked up, not recomputed, and the route table answers without building a score.
 * Undefined when the general path must answer (and fill the caches): an unknown Service, a port
 * without an HTTP or gRPC route table, a table `findRule` cannot serve, a rule seen first.
 */
function quickRoute(
  index: OutboundIndex,
  input: OutboundInput,
  to: { readonly service: string; readonly namespace: string; readonly port: number },
): OutboundDecision | undefined {
  const target = index.serviceTarget(to.namespace, to.service, to.port, input.from.namespace);
  const table = target?.served.table;
  if (target === undefined || table === undefined) return undefined;
  const served = target.served;
  const hit = table.findRule(input.request);
  if (hit === undefined) return undefined;
  const from = `${input.from.namespace}/${input.from.name}`;
  if (hit === null) {
    // No rule: the 404 outcome, kept under '' as the general path keeps it.
    const outcome = served.outcomes.get('');
    return outcome === undefined
      ? undefined
      : decisionFrom(outcome, from, target.to, served, null, null, null, NO_TRACE);
  }
  let known = target.byMatch[hit.id];
  if (known === undefined) {
    const rule = served.byCompiled.get(hit.route)?.rules[hit.rule];
    const outcome = rule === undefined ? undefined : served.outcomes.get(rule);
    if (outcome === undefined) return undefined;
    known = { route: hit.route.name, rule: hit.rule, outcome };
    target.byMatch[hit.id] = known;
  }
  return decisionFrom(
    known.outcome,
    from,
    target.to,
    served,
    known.route,
    known.rule,
    null,
    NO_TRACE,
  );
}

function decisionFrom(
  outcome: Outcome,
  from: string,
  to: string,
  served: PortRoutes,
  route: string | null,
  rule: number | null,
  egress: OutboundDecision['egress'],
  trace: readonly string[],
): OutboundDecision {
  return {
    decision: outcome.decision,
    status: outcome.status,
    from,
    to,
    parent: served.parentName,
    routeKind: served.kind,
    route,
    rule,
    backends: outcome.backends,
    timeouts: outcome.timeouts,
    retry: outcome.retry,
    circuitBreaker: outcome.circuitBreaker,
    egress,
    trace,
  };
}

/** The parent a resolved destination is sent to, with its annotations. */
export function targetOf(resolved: Exclude<Resolved, { kind: 'forward' }>): Target {
  return resolved.kind === 'Service'
    ? { kind: 'Service', parent: resolved.parent, config: resolved.service.config }
    : {
        kind: 'EgressNetwork',
        parent: resolved.parent,
        config: resolved.net.config,
        address: resolved.address,
      };
}

/** The request-independent part of a decision: backends, timeouts, retries, outcome. */
export function outcomeOf(
  index: OutboundIndex,
  target: Target,
  served: PortRoutes,
  picked: Picked,
  note: Note,
): Outcome {
  const backends =
    picked.notFound || picked.denied ? [] : backendChoices(index, target, picked.rule, note);
  const stream = served.kind === 'TLSRoute' || served.kind === 'TCPRoute' || served.opaque;
  // A request no route takes gets nothing of a route: no timeout, no retry.
  const timeouts = timeoutsOf(target, picked, stream || picked.notFound, note);
  const retry =
    stream || picked.notFound
      ? null
      : retryOf(target, picked.route, served.kind === 'GRPCRoute', note);
  const accrual = target.config.accrual;
  if (accrual !== undefined)
    note?.(
      `circuit breaking: ${accrual.mode} failure accrual on ${target.kind} ${target.parent.namespace}/${target.parent.name} (after ${accrual.maxFailures} consecutive failures an endpoint is ejected for ${formatDuration(accrual.backoff.minPenalty)} to ${formatDuration(accrual.backoff.maxPenalty)}, jitter ${accrual.backoff.jitter})`,
    );
  const { decision, status } = decisionOf(picked, backends, note);
  return {
    decision,
    status,
    backends,
    timeouts,
    retry,
    circuitBreaker: accrual === undefined ? null : circuitBreakerJson(accrual),
  };
}

function forwarded(from: string, to: string, trace: string[]): OutboundDecision {
  return {
    decision: 'forward',
    status: null,
    from,
    to,
    parent: null,
    routeKind: 'default',
    route: 'egress-fallback',
    rule: null,
    backends: [{ kind: 'address', name: to, weight: 1, share: 1, outcome: 'ok' }],
    timeouts: { request: null, response: null, idle: null, backendRequest: null, source: 'none' },
    retry: null,
    circuitBreaker: null,
    egress: null,
    trace,
  };
}
