/**
 * The outbound resource model (docs/policy.md, "Outbound"): what a client's proxy is told about
 * a Service or an EgressNetwork it talks to. Plain, validated data; durations are milliseconds.
 */
import type {
  Location,
  NetworkSpec,
  ObjectMeta,
  RouteFilter,
  RouteMatchSpec,
} from '../object-types.js';

/** `timeout.linkerd.io/*` (and a rule's `timeouts.request`), in milliseconds. */
export interface OutboundTimeouts {
  readonly request?: number;
  readonly response?: number;
  readonly idle?: number;
}

/** A status range an HTTP retry fires on (`5xx` is 500-599, `gateway-error` 502-504). */
export interface StatusRange {
  readonly min: number;
  readonly max: number;
}

export const GRPC_RETRY_CONDITIONS = [
  'cancelled',
  'deadline-exceeded',
  'internal',
  'resource-exhausted',
  'unavailable',
] as const;
export type GrpcRetryCondition = (typeof GRPC_RETRY_CONDITIONS)[number];

/** `retry.linkerd.io/*`: conditions absent means the proxy's own default conditions. */
export interface RetryPolicy<C> {
  /** `retry.linkerd.io/limit`; 1 when retries are configured without it. */
  readonly limit: number;
  /** Whether `retry.linkerd.io/limit` was written (the budget is explicit). */
  readonly limitWritten: boolean;
  /** `retry.linkerd.io/timeout`: each attempt's timeout. */
  readonly timeout?: number;
  readonly conditions?: readonly C[];
}

export interface Backoff {
  readonly minPenalty: number;
  readonly maxPenalty: number;
  readonly jitter: number;
}

/** `balancer.linkerd.io/failure-accrual`: Linkerd's circuit breaker per endpoint. */
export type FailureAccrual =
  | { readonly mode: 'consecutive'; readonly maxFailures: number; readonly backoff: Backoff }
  | {
      readonly mode: 'unified';
      readonly maxFailures: number;
      readonly backoff: Backoff;
      readonly successRate: {
        readonly threshold: number;
        readonly window: number;
        readonly minRequests: number;
      };
    };

/** The outbound annotations of a Service, an EgressNetwork or a route, as Linkerd reads them. */
export interface OutboundConfig {
  readonly timeouts: OutboundTimeouts;
  readonly httpRetry?: RetryPolicy<StatusRange>;
  readonly grpcRetry?: RetryPolicy<GrpcRetryCondition>;
  /** Services and EgressNetworks only. */
  readonly accrual?: FailureAccrual;
  /**
   * Annotations Linkerd's index could not parse and replaced by their default (on a Service or
   * EgressNetwork: the object is kept; a route with one is refused at admission instead).
   */
  readonly ignored: readonly { readonly annotation: string; readonly reason: string }[];
}

export interface ServicePort {
  readonly port: number;
  readonly name?: string;
  readonly appProtocol?: string;
}

export interface Service {
  readonly meta: ObjectMeta;
  readonly ports: readonly ServicePort[];
  /** `spec.clusterIP`/`clusterIPs` as written (`None` left out). */
  readonly clusterIPs: readonly string[];
  /** Ports in `config.linkerd.io/opaque-ports` (TCP routes only there). */
  readonly opaquePorts: readonly number[];
  readonly config: OutboundConfig;
}

export interface EgressNetwork {
  readonly meta: ObjectMeta;
  readonly trafficPolicy: 'Allow' | 'Deny';
  /** As written; absent: everything outside the cluster networks. */
  readonly networks?: readonly NetworkSpec[];
  readonly config: OutboundConfig;
}

/** A parentRef to a Service or an EgressNetwork; `port` absent: every port. */
export interface OutboundParent {
  readonly kind: 'Service' | 'EgressNetwork';
  readonly name: string;
  readonly namespace: string;
  readonly port?: number;
  readonly at: Location;
}

export interface OutboundBackend {
  /** `invalid`: a kind Linkerd does not route to, or a Service without a port (500s). */
  readonly kind: 'Service' | 'EgressNetwork' | 'invalid';
  readonly name: string;
  readonly namespace: string;
  readonly port?: number;
  /** Default 1. */
  readonly weight: number;
  readonly filters: readonly RouteFilter[];
  readonly message?: string;
  readonly at: Location;
}

export interface OutboundRule {
  readonly matches: readonly RouteMatchSpec[];
  readonly filters: readonly RouteFilter[];
  readonly backends: readonly OutboundBackend[];
  /** `timeouts.request` and `timeouts.backendRequest` as written. */
  readonly written: { readonly request?: string; readonly backendRequest?: string };
  /** The rule's own timeouts: the route's annotations, then `timeouts.request` (0s: none). */
  readonly timeouts: OutboundTimeouts;
  readonly at: Location;
}

export type OutboundRouteKind = 'HTTPRoute' | 'GRPCRoute' | 'TLSRoute' | 'TCPRoute';

/** One entry of a route's `status.parents`, as Linkerd's outbound index compares it. */
export interface OutboundParentStatus {
  /** As written; absent when the entry names none (it then accepts no parent). */
  readonly kind?: string;
  /** `core` when absent or empty. */
  readonly group: string;
  readonly name: string;
  /** Absent: every port. */
  readonly port?: number;
  /** The `Accepted` condition is `True`. */
  readonly accepted: boolean;
}

export interface OutboundRoute {
  readonly meta: ObjectMeta;
  readonly kind: OutboundRouteKind;
  readonly group: string;
  readonly parents: readonly OutboundParent[];
  /** Lower-cased; HTTPRoute, GRPCRoute and TLSRoute (SNI). */
  readonly hostnames: readonly string[];
  readonly rules: readonly OutboundRule[];
  /** The route's retry and timeout annotations. */
  readonly config: OutboundConfig;
  /** Why Linkerd's outbound index leaves the route out although admission accepts it. */
  readonly ignoredBecause?: string;
  /**
   * `status.parents` as written; absent when the manifest carries none (the cluster's status
   * controller has not written it, so acceptance is simulated: the parent exists).
   */
  readonly statusParents?: readonly OutboundParentStatus[];
}
