/**
 * The answer `policy route` gives for one outbound request, and its JSON shape (docs/policy.md,
 * "Output shapes"). The CLI prints what {@link outboundDecisionJson} returns.
 */
import type { FailureAccrual, OutboundRouteKind } from './types.js';

export interface OutboundBackendChoice {
  /** `address`: no outbound policy, the request goes to the address it was sent to. */
  readonly kind: 'Service' | 'EgressNetwork' | 'invalid' | 'address';
  /** `ns/name:port`, `ns/name` for an EgressNetwork, the original destination when forwarding. */
  readonly name: string;
  readonly weight: number;
  /** Share of requests: weight over the rule's total (0 when the total is 0). */
  readonly share: number;
  /** `ok`: requests go there; `fail`: the proxy answers 500 instead (the reason says why). */
  readonly outcome: 'ok' | 'fail';
  readonly reason?: string;
}

export interface OutboundTimeoutsJson {
  readonly request: string | null;
  readonly response: string | null;
  readonly idle: string | null;
  /** `timeouts.backendRequest` as written: Linkerd validates it but does not enforce it. */
  readonly backendRequest: string | null;
  /** Where they come from: `rule`, `route` (annotations), `service`/`egress-network`, or `none`. */
  readonly source: 'rule' | 'route' | 'service' | 'egress-network' | 'none';
}

export interface OutboundRetryJson {
  /** `5xx` style ranges (`500-599`) for HTTP, gRPC status names for gRPC. */
  readonly conditions: readonly string[];
  readonly limit: number;
  /** `explicit`: retry.linkerd.io/limit is written; `default`: Linkerd's 1. */
  readonly budget: 'explicit' | 'default';
  readonly timeout: string | null;
  readonly source: 'route' | 'service' | 'egress-network';
}

export type CircuitBreakerJson =
  | {
      readonly mode: 'consecutive';
      readonly maxFailures: number;
      readonly minPenalty: string;
      readonly maxPenalty: string;
      readonly jitterRatio: number;
    }
  | {
      readonly mode: 'unified';
      readonly maxFailures: number;
      readonly minPenalty: string;
      readonly maxPenalty: string;
      readonly jitterRatio: number;
      readonly successRateThreshold: number;
      readonly successRateWindow: string;
      readonly successRateMinRequests: number;
    };

export interface OutboundDecision {
  /**
   * `route`: sent to the backends; `forward`: no outbound policy, sent to the address as is;
   * `redirect`: a RequestRedirect filter answers; `deny`: an EgressNetwork's Deny policy answers
   * 403; `not-found`: routes exist but none matches (404); `fail`: every backend fails (500).
   */
  readonly decision: 'route' | 'forward' | 'redirect' | 'deny' | 'not-found' | 'fail';
  readonly status: 301 | 302 | 403 | 404 | 500 | null;
  readonly from: string;
  readonly to: string;
  /** `Service ns/name:port`, `EgressNetwork ns/name`, or null when forwarding without policy. */
  readonly parent: string | null;
  /** The route kind that serves the port (GRPCRoute over HTTPRoute over TLSRoute over TCPRoute). */
  readonly routeKind: OutboundRouteKind | 'default';
  /** `ns/name` of the route, or Linkerd's default route name (`default`, `http-egress-allow`, …). */
  readonly route: string | null;
  readonly rule: number | null;
  readonly backends: readonly OutboundBackendChoice[];
  readonly timeouts: OutboundTimeoutsJson;
  readonly retry: OutboundRetryJson | null;
  readonly circuitBreaker: CircuitBreakerJson | null;
  /** For an EgressNetwork parent: which one, its traffic policy, and whether this is allowed. */
  readonly egress: {
    readonly network: string;
    readonly trafficPolicy: 'Allow' | 'Deny';
    readonly allowed: boolean;
  } | null;
  readonly trace: readonly string[];
}

export type OutboundDecisionJson = OutboundDecision;

/** The decision as `route --json` prints it (key order fixed). */
export function outboundDecisionJson(d: OutboundDecision): OutboundDecisionJson {
  return {
    decision: d.decision,
    status: d.status,
    from: d.from,
    to: d.to,
    parent: d.parent,
    routeKind: d.routeKind,
    route: d.route,
    rule: d.rule,
    backends: d.backends,
    timeouts: d.timeouts,
    retry: d.retry,
    circuitBreaker: d.circuitBreaker,
    egress: d.egress,
    trace: d.trace,
  };
}

/** Milliseconds in the largest whole unit: `10s`, `1500ms`, `2m`. */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const)
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

export function circuitBreakerJson(a: FailureAccrual): CircuitBreakerJson {
  const common = {
    maxFailures: a.maxFailures,
    minPenalty: formatDuration(a.backoff.minPenalty),
    maxPenalty: formatDuration(a.backoff.maxPenalty),
    jitterRatio: a.backoff.jitter,
  };
  if (a.mode === 'consecutive') return { mode: 'consecutive', ...common };
  return {
    mode: 'unified',
    ...common,
    successRateThreshold: a.successRate.threshold,
    successRateWindow: formatDuration(a.successRate.window),
    successRateMinRequests: a.successRate.minRequests,
  };
}
