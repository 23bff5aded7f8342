/**
 * The steps of `routeOutbound` after the route is picked: the rule's backends and their shares,
 * the timeouts and retries in force, and the outcome. Each step writes its line of the trace.
 */
import type { PolicyRequest } from '../routes/request.js';
import type { Considered, RouteHit } from '../routes/route-table.js';
import { whyNoMatch } from '../routes/route-table.js';
import type {
  OutboundBackendChoice,
  OutboundDecision,
  OutboundRetryJson,
  OutboundTimeoutsJson,
} from './decision.js';
import { formatDuration } from './decision.js';
import type { OutboundIndex, OutboundParentRef, PortRoutes } from './outbound-index.js';
import type {
  OutboundBackend,
  OutboundConfig,
  OutboundRoute,
  OutboundRule,
  OutboundTimeouts,
  RetryPolicy,
} from './types.js';

export type Note = ((line: string) => void) | undefined;

/** The parent a request is sent to, with its annotations. */
export type Target =
  | {
      readonly kind: 'Service';
      readonly parent: OutboundParentRef;
      readonly config: OutboundConfig;
    }
  | {
      readonly kind: 'EgressNetwork';
      readonly parent: OutboundParentRef;
      readonly config: OutboundConfig;
      /** The original destination, where the EgressNetwork forwards. */
      readonly address: string;
    };

function scoreWords(score: readonly number[]): string {
  if (score.length === 5) {
    const [, , service, method, headers] = score;
    return `service=${service} method=${method} headers=${headers}`;
  }
  const [hk, hl, path, headers, query, method] = score;
  const host = hk === 2 ? 'exact' : hk === 1 ? `wildcard(${hl ?? 0})` : 'any';
  return `host=${host} path=${path} headers=${headers} query=${query} method=${method === 1 ? 'yes' : 'no'}`;
}

/** The matched rule of a route table hit, with the candidates in the trace. */
export function hitRule(
  served: PortRoutes,
  hit: RouteHit | null,
  considered: readonly Considered[] | undefined,
  request: PolicyRequest,
  note: Note,
):
  | {
      route: OutboundRoute;
      routeName: string;
      rule: OutboundRule;
      ruleIndex: number;
      denied: false;
      notFound: false;
    }
  | undefined {
  if (note !== undefined) {
    for (const c of considered ?? [])
      note(
        `candidate ${c.route} rule ${c.rule}: ${c.score === null ? 'no match' : scoreWords(c.score)}`,
      );
    if (hit === null)
      for (const compiled of served.byCompiled.keys()) {
        const why = whyNoMatch(compiled, request);
        if (why !== undefined) note(`${compiled.name}: ${why}`);
      }
  }
  if (hit === null) return undefined;
  const route = served.byCompiled.get(hit.route);
  const rule = route?.rules[hit.rule];
  if (route === undefined || rule === undefined)
    throw new Error('hitRule: a hit outside the table');
  note?.(
    `route ${hit.route.name} rule ${hit.rule} wins (Linkerd precedence: host, path length, header count, query count, method; ties: oldest, then name)`,
  );
  // Built whole rather than spread by the caller: a spread here cost more than the lookup.
  return {
    route,
    routeName: hit.route.name,
    rule,
    ruleIndex: hit.rule,
    denied: false,
    notFound: false,
  };
}

function backendChoice(
  index: OutboundIndex,
  target: Target,
  b: OutboundBackend,
  total: number,
): OutboundBackendChoice {
  const share = total === 0 ? 0 : b.weight / total;
  const base = { weight: b.weight, share };
  if (b.kind === 'invalid')
    return {
      kind: 'invalid',
      name: `${b.namespace}/${b.name}`,
      ...base,
      outcome: 'fail',
      reason: b.message ?? 'invalid backend',
    };
  if (b.kind === 'EgressNetwork') {
    const same =
      target.kind === 'EgressNetwork' &&
      target.parent.name === b.name &&
      target.parent.namespace === b.namespace;
    const exists = index.egressNetwork(b.namespace, b.name) !== undefined;
    const reason = !exists
      ? `EgressNetwork not found ${b.name}`
      : target.kind === 'Service'
        ? 'EgressNetwork backends attach to EgressNetwork parents only'
        : same
          ? undefined
          : 'Route with EgressNetwork backend needs to have the same EgressNetwork as a parent';
    const name =
      same && target.kind === 'EgressNetwork' ? target.address : `${b.namespace}/${b.name}`;
    return reason === undefined
      ? { kind: 'EgressNetwork', name, ...base, outcome: 'ok' }
      : { kind: 'EgressNetwork', name, ...base, outcome: 'fail', reason };
  }
  const name = `${b.namespace}/${b.name}:${b.port ?? 0}`;
  const service = index.service(b.namespace, b.name);
  if (service === undefined)
    return {
      kind: 'Service',
      name,
      ...base,
      outcome: 'fail',
      reason: `Service not found ${b.name}`,
    };
  return { kind: 'Service', name, ...base, outcome: 'ok' };
}

/** The backends a rule sends to, with shares; a rule without backendRefs sends to the parent. */
export function backendChoices(
  index: OutboundIndex,
  target: Target,
  rule: OutboundRule | undefined,
  note: Note,
): OutboundBackendChoice[] {
  if (rule === undefined || rule.backends.length === 0) {
    const name =
      target.kind === 'EgressNetwork'
        ? target.address
        : `${target.parent.namespace}/${target.parent.name}:${target.parent.port}`;
    note?.(
      `backend: ${name} (${rule === undefined ? 'the default route' : 'the rule has no backendRefs'}: the parent itself${target.kind === 'EgressNetwork' ? ', the original destination' : ''})`,
    );
    return [{ kind: target.kind, name, weight: 1, share: 1, outcome: 'ok' }];
  }
  const total = rule.backends.reduce((sum, b) => sum + b.weight, 0);
  const choices = rule.backends.map((b) => backendChoice(index, target, b, total));
  if (note !== undefined) {
    if (total === 0) note('backend weights sum to zero: no backend can be picked');
    for (const c of choices)
      note(
        `backend ${c.name}: weight ${c.weight} (${Math.round(c.share * 1000) / 10}%)${c.outcome === 'fail' ? ` fails with 500: ${c.reason ?? ''}` : ''}`,
      );
  }
  return choices;
}

function timeoutsJson(
  t: OutboundTimeouts,
  backendRequest: string | undefined,
  source: OutboundTimeoutsJson['source'],
): OutboundTimeoutsJson {
  const f = (ms: number | undefined): string | null =>
    ms === undefined ? null : formatDuration(ms);
  return {
    request: f(t.request),
    response: f(t.response),
    idle: f(t.idle),
    backendRequest: backendRequest ?? null,
    source,
  };
}

function empty(t: OutboundTimeouts): boolean {
  return t.request === undefined && t.response === undefined && t.idle === undefined;
}

/** A rule's own timeouts, else the parent's (Linkerd takes them whole, not field by field). */
export function timeoutsOf(
  target: Target,
  picked: { readonly route: OutboundRoute | undefined; readonly rule: OutboundRule | undefined },
  stream: boolean,
  note: Note,
): OutboundTimeoutsJson {
  if (stream) return timeoutsJson({}, undefined, 'none');
  const rule = picked.rule;
  const backendRequest = rule?.written.backendRequest;
  if (backendRequest !== undefined)
    note?.(`timeouts.backendRequest ${backendRequest} is admitted but not enforced by Linkerd`);
  if (rule !== undefined && !empty(rule.timeouts)) {
    // The route's timeout.linkerd.io/request wins over the rule's timeouts.request.
    const fromRule =
      rule.written.request !== undefined && picked.route?.config.timeouts.request === undefined;
    const json = timeoutsJson(rule.timeouts, backendRequest, fromRule ? 'rule' : 'route');
    note?.(
      `timeouts from the ${fromRule ? "rule's timeouts and the route's annotations" : "route's timeout.linkerd.io annotations"}: request ${json.request ?? 'none'}, response ${json.response ?? 'none'}, idle ${json.idle ?? 'none'}`,
    );
    return json;
  }
  if (!empty(target.config.timeouts)) {
    const source = target.kind === 'Service' ? 'service' : 'egress-network';
    const json = timeoutsJson(target.config.timeouts, backendRequest, source);
    note?.(
      `timeouts from the ${target.kind}'s timeout.linkerd.io annotations: request ${json.request ?? 'none'}, response ${json.response ?? 'none'}, idle ${json.idle ?? 'none'}`,
    );
    return json;
  }
  note?.('no timeout applies (none on the rule, the route or the parent)');
  return timeoutsJson({}, backendRequest, 'none');
}

function conditionWords(retry: RetryPolicy<unknown>): string[] {
  return (retry.conditions ?? []).map((c) =>
    typeof c === 'string'
      ? c
      : (c as { min: number; max: number }).min === (c as { min: number; max: number }).max
        ? String((c as { min: number }).min)
        : `${(c as { min: number }).min}-${(c as { max: number }).max}`,
  );
}

/** The route's retry annotations, else the parent's. */
export function retryOf(
  target: Target,
  route: OutboundRoute | undefined,
  grpc: boolean,
  note: Note,
): OutboundRetryJson | null {
  const own: RetryPolicy<unknown> | undefined = grpc
    ? route?.config.grpcRetry
    : route?.config.httpRetry;
  const parent: RetryPolicy<unknown> | undefined = grpc
    ? target.config.grpcRetry
    : target.config.httpRetry;
  const retry = own ?? parent;
  if (retry === undefined) {
    note?.('no retries (no retry.linkerd.io annotations on the route or the parent)');
    return null;
  }
  const source =
    own !== undefined ? 'route' : target.kind === 'Service' ? 'service' : 'egress-network';
  const json: OutboundRetryJson = {
    conditions: conditionWords(retry),
    limit: retry.limit,
    budget: retry.limitWritten ? 'explicit' : 'default',
    timeout: retry.timeout === undefined ? null : formatDuration(retry.timeout),
    source,
  };
  note?.(
    `retries from the ${source}: on ${json.conditions.length === 0 ? "the proxy's default conditions" : json.conditions.join(', ')}, at most ${json.limit}${json.budget === 'default' ? ' (Linkerd default limit)' : ''}${json.timeout === null ? '' : `, each attempt ${json.timeout}`}`,
  );
  return json;
}

/** The outcome: redirect, deny, 404, all backends failing (500), or routed. */
export function decisionOf(
  picked: {
    readonly rule: OutboundRule | undefined;
    readonly denied: boolean;
    readonly notFound: boolean;
  },
  backends: readonly OutboundBackendChoice[],
  note: Note,
): Pick<OutboundDecision, 'decision' | 'status'> {
  if (picked.notFound) return { decision: 'not-found', status: 404 };
  if (picked.denied) return { decision: 'deny', status: 403 };
  const redirect = picked.rule?.filters.find((f) => f.type === 'RequestRedirect');
  if (redirect !== undefined && redirect.type === 'RequestRedirect') {
    note?.(`the rule's RequestRedirect filter answers ${redirect.statusCode}`);
    return { decision: 'redirect', status: redirect.statusCode === 301 ? 301 : 302 };
  }
  if (backends.every((b) => b.outcome === 'fail' || b.share === 0)) {
    note?.('no working backend takes a share of the requests: the proxy answers 500');
    return { decision: 'fail', status: 500 };
  }
  return { decision: 'route', status: null };
}
