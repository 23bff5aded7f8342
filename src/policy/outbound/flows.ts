/**
 * Every way a client's traffic to one parent port can go, without a request (the outbound side
 * of `policy matrix`, docs/policy.md "Outbound flows"): one flow per rule of the routes that
 * serve the port for the client's namespace, then where the rest goes — Linkerd's default route,
 * the EgressNetwork's traffic policy, or 404 when routes exist and none takes every request.
 *
 * Each flow's outcome is what `routeOutbound` gives a request that takes that rule: the same
 * index, the same rule pick and the same `outcomeOf`, so the matrix and `policy route` cannot
 * disagree (the matrix tests route every flow's witness and compare).
 */
import type { OutboundDecision } from './decision.js';
import type { Outcome, OutboundIndex, PortRoutes } from './outbound-index.js';
import { NO_ROUTE, defaultRoute, outcomeOf, targetOf } from './route.js';
import type { Picked, Resolved } from './route.js';
import type { EgressNetwork, OutboundRoute, OutboundRule, Service } from './types.js';

/** How an EgressNetwork's backend (the address the request was sent to) is named in flows. */
export const ORIGINAL_DESTINATION = '(original destination)';

export interface ParentFlow {
  /** `Service ns/name:port` or `EgressNetwork ns/name:port`. */
  readonly parent: string;
  readonly routeKind: PortRoutes['kind'];
  /** `ns/name` of the route, Linkerd's default route name, or null (404: no rule matches). */
  readonly route: string | null;
  readonly rule: number | null;
  /** The route and rule a request of this flow takes; absent for the default route and the rest. */
  readonly via?: { readonly route: OutboundRoute; readonly rule: OutboundRule };
  /** The flow takes what no rule before it does (a default route, or 404). */
  readonly rest: boolean;
  readonly outcome: Outcome;
  readonly egress: OutboundDecision['egress'];
}

/** Does one rule take every request its route's parent gets (no host, path, header or method)? */
function takesEverything(route: OutboundRoute, rule: OutboundRule): boolean {
  if (route.hostnames.length > 0) return false;
  return rule.matches.some(
    (m) =>
      m.headers.length === 0 &&
      m.queryParams.length === 0 &&
      (m.grpc !== undefined
        ? m.grpc.service === undefined && m.grpc.method === undefined
        : m.method === undefined && m.path.type === 'PathPrefix' && m.path.value === '/'),
  );
}

function rulePick(route: OutboundRoute, index: number): Picked {
  return {
    route,
    routeName: `${route.meta.namespace}/${route.meta.name}`,
    rule: route.rules[index],
    ruleIndex: route.rules.length === 0 ? null : index,
    denied: false,
    notFound: false,
  };
}

/** The rules a port's routes hold, in order, then where the rest goes. */
function picks(resolved: Exclude<Resolved, { kind: 'forward' }>, served: PortRoutes): Picked[] {
  if (served.kind === 'default') return [defaultRoute(resolved, served, undefined)];
  const out: Picked[] = [];
  let everything = false;
  if (served.kind === 'TCPRoute') {
    // The oldest TCPRoute takes every connection (`streamRoute`).
    const first = served.routes[0];
    if (first !== undefined) out.push(rulePick(first, 0));
    everything = first !== undefined;
  } else if (served.kind === 'TLSRoute') {
    for (const route of served.routes) {
      out.push(rulePick(route, 0));
      if (route.hostnames.length === 0) everything = true;
    }
  } else {
    for (const route of served.routes)
      route.rules.forEach((rule, i) => {
        out.push(rulePick(route, i));
        if (takesEverything(route, rule)) everything = true;
      });
  }
  if (resolved.kind === 'EgressNetwork') {
    // An EgressNetwork always ends with its default route; a TLS or TCP port's is a connection one.
    const stream = served.kind === 'TLSRoute' || served.kind === 'TCPRoute';
    if (!everything)
      out.push(defaultRoute(resolved, stream ? { ...served, opaque: true } : served, undefined));
  } else if (!everything) out.push(NO_ROUTE);
  return out;
}

/**
 * The flows of one parent port for clients in `clientNamespace`: what `routeOutbound` decides
 * for a request taking each rule, in the routes' order, the rest last.
 */
export function parentFlows(
  index: OutboundIndex,
  owner: Service | EgressNetwork,
  port: number,
  clientNamespace: string,
): ParentFlow[] {
  const parent = {
    kind: 'ports' in owner ? ('Service' as const) : ('EgressNetwork' as const),
    namespace: owner.meta.namespace,
    name: owner.meta.name,
    port,
  };
  const resolved: Exclude<Resolved, { kind: 'forward' }> =
    'ports' in owner
      ? { kind: 'Service', service: owner, parent }
      : { kind: 'EgressNetwork', net: owner, parent, address: ORIGINAL_DESTINATION };
  const served = index.routesFor(owner, parent, clientNamespace);
  const target = targetOf(resolved);
  return picks(resolved, served).map((picked) => {
    const outcome = outcomeOf(index, target, served, picked, undefined);
    const rest = picked.route === undefined;
    return {
      parent: served.parentName,
      routeKind: served.kind,
      route: picked.routeName,
      rule: picked.ruleIndex,
      ...(picked.route !== undefined && picked.rule !== undefined
        ? { via: { route: picked.route, rule: picked.rule } }
        : {}),
      rest,
      outcome,
      egress:
        resolved.kind === 'EgressNetwork'
          ? {
              network: `${resolved.net.meta.namespace}/${resolved.net.meta.name}`,
              trafficPolicy: resolved.net.trafficPolicy,
              allowed: outcome.decision !== 'deny',
            }
          : null,
    };
  });
}
