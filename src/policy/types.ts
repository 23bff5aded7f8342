/**
 * The resource model of `src/policy`: what the loader produces from Kubernetes YAML, already
 * validated and normalised. Everything here is plain, immutable data; the compiler and the
 * authorizer read it and never the YAML.
 */
import type { Code } from '../base/codes.js';
import type { Diagnostic } from '../base/index.js';
import type { Labels, Selector } from '../selector/index.js';
import type {
  Location,
  NetworkSpec,
  ObjectMeta,
  RouteFilter,
  RouteMatchSpec,
  ValueMatch,
} from './object-types.js';
import type { EgressNetwork, OutboundRoute, Service } from './outbound/types.js';

export type {
  Location,
  NetworkSpec,
  ObjectMeta,
  PathMatch,
  RouteFilter,
  RouteMatchSpec,
  ValueMatch,
} from './object-types.js';

/**
 * One problem found while loading, validating, compiling or linting: the shared
 * {@link Diagnostic} (one type, one layout, one order for every module). The name stays so
 * that code written against it keeps compiling.
 */
export type PolicyProblem = Diagnostic;

export interface Namespace {
  readonly meta: ObjectMeta;
}

export interface ContainerPort {
  readonly name?: string;
  readonly port: number;
}

/** An HTTP probe of a container: `GET path` on a port given by number or name. */
export interface Probe {
  readonly kind: 'liveness' | 'readiness' | 'startup';
  readonly container: string;
  readonly port: number | string;
  readonly path: string;
}

export interface Pod {
  readonly meta: ObjectMeta;
  /** Container and init-container ports; a non-TCP port keeps its number but not its name. */
  readonly ports: readonly ContainerPort[];
  /** HTTP probes whose port resolved (a named port within its own container). */
  readonly probes: readonly Probe[];
  /**
   * Set for an ExternalWorkload (a VM or host outside the cluster): only Servers with an
   * `externalWorkloadSelector` select it, and it has no probes. Default: a Pod.
   */
  readonly external?: boolean;
}

/** The default policy names Linkerd knows (`audit` allows everything and is flagged). */
export const DEFAULT_POLICIES = [
  'all-unauthenticated',
  'all-authenticated',
  'cluster-unauthenticated',
  'cluster-authenticated',
  'deny',
  'audit',
] as const;
export type DefaultPolicy = (typeof DEFAULT_POLICIES)[number];

export const PROXY_PROTOCOLS = ['unknown', 'HTTP/1', 'HTTP/2', 'gRPC', 'opaque', 'TLS'] as const;
export type ProxyProtocol = (typeof PROXY_PROTOCOLS)[number];

export interface Server {
  readonly meta: ObjectMeta;
  /** `podSelector`, or `externalWorkloadSelector` when {@link Server.selects} says so. */
  readonly podSelector: Selector;
  /** What the selector selects. Default: `pods`. */
  readonly selects?: 'pods' | 'externalWorkloads';
  readonly port: number | string;
  readonly proxyProtocol: ProxyProtocol;
  readonly accessPolicy: DefaultPolicy;
}

export interface RouteRule {
  readonly matches: readonly RouteMatchSpec[];
  readonly filters: readonly RouteFilter[];
  /** `timeouts.request` as written, e.g. `10s`. */
  readonly timeout?: string;
  /** Where the rule is written; absent for synthesised rules. */
  readonly at?: Location;
}

/** A parentRef after reading: usable for inbound policy or ignored, with the reason. */
export interface ParentRef {
  readonly name: string;
  readonly inbound: boolean;
  readonly ignoredBecause?: string;
  /**
   * The ref gives neither group nor kind, so by the Gateway API defaults it names a Gateway.
   * Reported only when a Server of that name exists (the user most likely meant it).
   */
  readonly defaultKind?: boolean;
  readonly at: Location;
}

/** One `status.parents[]` entry written by Linkerd's status controller for a Server parent. */
export interface RouteParentStatus {
  readonly name: string;
  /** The `Accepted` condition is `True`. */
  readonly accepted: boolean;
  readonly reason?: string;
}

export interface HttpRoute {
  readonly meta: ObjectMeta;
  /** `HTTPRoute` (either API group) or `GRPCRoute`. */
  readonly kind: 'HTTPRoute' | 'GRPCRoute';
  /** The API group (`policy.linkerd.io` or `gateway.networking.k8s.io`): part of its identity. */
  readonly group?: string;
  /**
   * Why Linkerd's index ignores the whole route although admission accepts it (a Server
   * parentRef with port, sectionName or another namespace; an unsupported gateway filter).
   */
  readonly ignoredBecause?: string;
  /** `status.parents` entries for Servers; absent when the object carries no status. */
  readonly statusParents?: readonly RouteParentStatus[];
  readonly parents: readonly ParentRef[];
  /** Lower-cased; exact names or one leading `*.`. */
  readonly hostnames: readonly string[];
  readonly rules: readonly RouteRule[];
}

export interface ObjectRef {
  readonly group: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly at: Location;
}

export interface AuthorizationPolicy {
  readonly meta: ObjectMeta;
  readonly targetRef: ObjectRef;
  readonly requiredAuthenticationRefs: readonly ObjectRef[];
}

export interface ServiceAccountRef {
  readonly name: string;
  readonly namespace: string;
}

export interface MeshTLSAuthentication {
  readonly meta: ObjectMeta;
  readonly identities: readonly string[];
  /** `identityRefs` to ServiceAccounts (`name` may be `*`) and Namespaces. */
  readonly identityRefs: readonly {
    readonly kind: 'ServiceAccount' | 'Namespace';
    readonly name: string;
    readonly namespace: string;
  }[];
}

export interface NetworkAuthentication {
  readonly meta: ObjectMeta;
  readonly networks: readonly NetworkSpec[];
}

export interface ServerAuthorization {
  readonly meta: ObjectMeta;
  readonly server: { readonly name: string } | { readonly selector: Selector };
  readonly client: {
    /** Absent: the cluster networks. */
    readonly networks?: readonly NetworkSpec[];
    readonly unauthenticated: boolean;
    readonly meshTLS?: {
      readonly unauthenticatedTLS: boolean;
      readonly identities: readonly string[];
      readonly serviceAccounts: readonly ServiceAccountRef[];
    };
  };
  /** Why Linkerd's index drops it although admission accepts it (it authorizes no client). */
  readonly droppedBecause?: string;
}

/** One route of an HttpRouteGroup: methods and a path template, or a nested group. */
export interface GroupRoute {
  readonly methods: readonly string[];
  readonly path?: string;
  /** Header matches (names lower-cased), all of which must hold, as on an HTTPRoute match. */
  readonly headers: readonly ValueMatch[];
  /** Query parameter matches, all of which must hold. */
  readonly queryParams: readonly ValueMatch[];
  readonly routeGroupRef?: string;
  readonly labels: Labels;
  readonly at: Location;
}

export interface HttpRouteGroup {
  readonly meta: ObjectMeta;
  readonly routes: readonly GroupRoute[];
}

export interface HttpRouteBinding {
  readonly meta: ObjectMeta;
  readonly server: string;
  readonly groups: readonly string[];
}

export interface HttpRouteClass {
  readonly meta: ObjectMeta;
  readonly server: string;
  readonly routeSelector: Selector;
}

/** One method of a GrpcService, with the labels declared on it. */
export interface GrpcMethod {
  readonly name: string;
  readonly labels: Labels;
  readonly at: Location;
}

/** The roadmap's GrpcService: the methods of one gRPC service, labelled like group routes. */
export interface GrpcService {
  readonly meta: ObjectMeta;
  /** The fully qualified service name, e.g. `helloworld.Greeter`. */
  readonly service: string;
  /** Declared methods; none: one route for every method of the service. */
  readonly methods: readonly GrpcMethod[];
  /** Labels every method of the service carries (a method's own labels win). */
  readonly labels: Labels;
}

/** Binds GrpcServices to a Server, as an HttpRouteBinding binds route groups. */
export interface GrpcServiceBinding {
  readonly meta: ObjectMeta;
  readonly server: string;
  /** `serviceRefs` by name, in the binding's namespace. */
  readonly services: readonly string[];
}

/** A label selector over the method labels of one GrpcService (its `targetRef`). */
export interface GrpcServiceClass {
  readonly meta: ObjectMeta;
  readonly service: string;
  readonly methodSelector: Selector;
}

/** A target of the extension's composable policies. */
export interface PolicyTarget {
  readonly kind:
    | 'Server'
    | 'HttpRouteBinding'
    | 'HttpRouteClass'
    | 'HTTPRoute'
    | 'GRPCRoute'
    | 'GrpcServiceBinding'
    | 'GrpcServiceClass';
  readonly name: string;
  readonly at: Location;
}

export interface TimeoutPolicy {
  readonly meta: ObjectMeta;
  readonly target: PolicyTarget;
  readonly timeout: string;
  readonly ms: number;
}

export interface RewriteRule {
  readonly set: Readonly<Record<string, string>>;
  readonly clear: readonly string[];
  /** Over request labels (route labels plus `header.http.labelwise.dev/<name>`). */
  readonly match: Selector;
}

export interface HeaderRewritePolicy {
  readonly meta: ObjectMeta;
  readonly target: PolicyTarget;
  readonly rules: readonly RewriteRule[];
}

/** What a TelemetryPolicy can ask the proxy to record per route. */
export const TELEMETRY_METRICS = ['requests', 'responses', 'latency'] as const;
export type TelemetryMetric = (typeof TELEMETRY_METRICS)[number];

/** Per-route metrics (the roadmap's inbound "Telemetry"): additive, like authorizations. */
export interface TelemetryPolicy {
  readonly meta: ObjectMeta;
  readonly target: PolicyTarget;
  readonly metrics: readonly TelemetryMetric[];
  /** Route label keys copied onto every series of the route, as metric labels. */
  readonly routeLabels: readonly string[];
}

/** HTTPLocalRateLimitPolicy (policy.linkerd.io/v1alpha1): request rates a Server admits. */
export interface RateLimitPolicy {
  readonly meta: ObjectMeta;
  /** The Server it targets (the only target kind Linkerd accepts). */
  readonly server: string;
  /** Requests per second over all clients. */
  readonly total?: number;
  /** Requests per second per client identity (unauthenticated clients share one budget). */
  readonly identity?: number;
  /** Per-identity budgets for the listed ServiceAccounts, replacing `identity` for them. */
  readonly overrides: readonly {
    readonly requestsPerSecond: number;
    readonly clients: readonly ServiceAccountRef[];
  }[];
  /** `status.conditions` Accepted, when the object carries status. */
  readonly accepted?: boolean;
}

/**
 * An object the loader refused (an admission error, or an apiVersion this module does not read).
 * Kept so that whatever names it can say "X is invalid (see its error at file:line)" instead of
 * the misleading "X does not exist".
 */
export interface RejectedObject {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The code and place of its first problem. */
  readonly code: Code;
  readonly at: Location;
}

/** Everything read from a policy directory. Lists are sorted by namespace, then name. */
export interface PolicyResources {
  readonly namespaces: readonly Namespace[];
  readonly pods: readonly Pod[];
  readonly servers: readonly Server[];
  readonly routes: readonly HttpRoute[];
  readonly authorizationPolicies: readonly AuthorizationPolicy[];
  readonly meshTLSAuthentications: readonly MeshTLSAuthentication[];
  readonly networkAuthentications: readonly NetworkAuthentication[];
  readonly serverAuthorizations: readonly ServerAuthorization[];
  readonly routeGroups: readonly HttpRouteGroup[];
  readonly routeBindings: readonly HttpRouteBinding[];
  readonly routeClasses: readonly HttpRouteClass[];
  readonly timeoutPolicies: readonly TimeoutPolicy[];
  readonly headerRewritePolicies: readonly HeaderRewritePolicy[];
  /** GrpcServices, their bindings and classes. Optional like `rateLimitPolicies`. */
  readonly grpcServices?: readonly GrpcService[];
  readonly grpcServiceBindings?: readonly GrpcServiceBinding[];
  readonly grpcServiceClasses?: readonly GrpcServiceClass[];
  /** TelemetryPolicies. Default: none. */
  readonly telemetryPolicies?: readonly TelemetryPolicy[];
  /** HTTPLocalRateLimitPolicies. Optional so that hand-built resources need not list any. */
  readonly rateLimitPolicies?: readonly RateLimitPolicy[];
  /**
   * Objects left out because of their errors, sorted by kind, namespace, name. Optional so that
   * hand-built resources need not list any. Default: none.
   */
  readonly rejected?: readonly RejectedObject[];
  /** Services, as outbound parents and backends. Optional like `rejected`. Default: none. */
  readonly services?: readonly Service[];
  /** EgressNetworks. Default: none. */
  readonly egressNetworks?: readonly EgressNetwork[];
  /**
   * HTTPRoutes and GRPCRoutes with a Service or EgressNetwork parent (the same objects as in
   * `routes`, read for outbound), and TLSRoutes and TCPRoutes. Default: none.
   */
  readonly outboundRoutes?: readonly OutboundRoute[];
}

/** Cluster settings (the policy controller's flags). */
export interface ClusterSettings {
  /** Default: `all-unauthenticated`. */
  readonly defaultPolicy: DefaultPolicy;
  /** Default: `10.0.0.0/8,100.64.0.0/10,172.16.0.0/12,192.168.0.0/16,fd00::/8`. */
  readonly clusterNetworks: readonly string[];
  /** Default: `0.0.0.0/0,::/0`. Empty: no probe routes. */
  readonly probeNetworks: readonly string[];
  /** Default: `cluster.local`. */
  readonly identityDomain: string;
  /** Default: `linkerd`. */
  readonly controlPlaneNamespace: string;
}

/** Route precedence: Linkerd's proxy (default) or the Gateway API specification. */
export type Precedence = 'linkerd' | 'gateway-api';
