/**
 * The compiled model: for each (pod, port), the governing Server (or default server), its
 * protocol, its authorizations and its route table — what Linkerd's policy controller would
 * send the pod's proxy (docs/policy.md, "How a request is decided"). Server-level work is shared by every pod a Server
 * selects; per-pod work is only the probe route.
 */
import { compareText, pushAll } from '../../base/index.js';
import { LabelwiseError } from '../../base/errors.js';
import { SelectorIndex } from '../../selector/index.js';
import { isDefaultPolicy } from '../settings.js';
import { RouteTable, compareRoutes } from '../routes/route-table.js';
import type { CompiledRoute, IgnoredPolicy } from '../routes/route-table.js';
import type {
  ClusterSettings,
  DefaultPolicy,
  Namespace,
  Pod,
  PolicyProblem,
  PolicyResources,
  ProxyProtocol,
  Server,
} from '../types.js';
import {
  DEFAULT_POLICY_ANNOTATION,
  OPAQUE_PORTS_ANNOTATION,
  REQUIRE_IDENTITY_ANNOTATION,
  annotationProblems,
  inherited,
  parsePortList,
} from './annotations.js';
import { defaultRoutes } from './default-routes.js';
import type { CompiledRateLimit } from './rate-limits.js';
import { describeRejected } from './rejections.js';
import { Attachments } from './attachments.js';
import { ServerModels } from './server-models.js';
import type { ServerModel } from './server-models.js';
import type { HttpVersion } from './route-labels.js';
export { servedRouteKind } from './server-models.js';
import { key } from './object-key.js';
import { PolicyIndex } from './policy-index.js';
import {
  defaultPolicyAuthorization,
  localhostAuthorization,
  probeAuthorization,
} from './authorizations.js';
import type { Authorization, DroppedPolicy } from './authorizations.js';

/** Everything the proxy of one pod knows about one inbound port. */
export interface PortPolicy {
  readonly pod: string;
  readonly port: number;
  /** `ns/name` of the governing Server, or `default:<policy>`. */
  readonly server: string;
  readonly serverObject?: Server;
  /** Why this server governs, in words (for traces). */
  readonly serverReason: string;
  readonly protocol: ProxyProtocol;
  /** Server-level authorizations, `localhost` included; they reach every route. */
  readonly authorizations: readonly Authorization[];
  /** Server- and Namespace-level AuthorizationPolicies dropped (fail closed). Default: none. */
  readonly ignored?: readonly IgnoredPolicy[];
  readonly table: RouteTable;
  /** The HTTPLocalRateLimitPolicy in force (HTTP Servers only). Default: none. */
  readonly rateLimit?: CompiledRateLimit;
  /**
   * The HTTP version given for the connection; only an `unknown` Server's routes take it (as
   * `http.linkerd.io/version`), other Servers fix their own. Default: none given.
   */
  readonly detectedVersion?: HttpVersion;
}

export class PolicyModel {
  readonly problems: PolicyProblem[] = [];
  readonly attachments: Attachments;
  private readonly namespaces = new Map<string, Namespace>();
  private readonly pods = new Map<string, Pod>();
  private readonly serverIndexes = new Map<string, SelectorIndex<Server>>();
  private readonly policies: PolicyIndex;
  private readonly servers: ServerModels;
  private readonly portCache = new Map<string, PortPolicy>();
  private readonly localhost = localhostAuthorization();
  private readonly probe: Authorization;

  constructor(
    readonly resources: PolicyResources,
    readonly settings: ClusterSettings,
  ) {
    this.probe = probeAuthorization(settings);
    for (const ns of resources.namespaces) this.namespaces.set(ns.meta.name, ns);
    for (const pod of resources.pods) this.pods.set(key(pod.meta.namespace, pod.meta.name), pod);
    for (const server of resources.servers) {
      let index = this.serverIndexes.get(server.meta.namespace);
      if (index === undefined)
        this.serverIndexes.set(server.meta.namespace, (index = new SelectorIndex<Server>()));
      index.add(server, server.podSelector);
    }
    this.attachments = new Attachments(resources);
    pushAll(this.problems, this.attachments.problems);
    this.policies = new PolicyIndex(resources, settings, this.attachments.rejections);
    this.servers = new ServerModels(
      resources,
      settings,
      this.attachments,
      this.policies,
      this.localhost,
    );
    for (const pod of resources.pods) {
      pushAll(this.problems, annotationProblems(pod, this.namespaces.get(pod.meta.namespace)));
    }
  }

  /** AuthorizationPolicies dropped for a missing or rejected authentication (fail closed). */
  get dropped(): readonly DroppedPolicy[] {
    return this.policies.dropped;
  }

  /** Every pod, sorted by namespace then name. */
  get podList(): readonly Pod[] {
    return this.resources.pods;
  }

  pod(namespace: string, name: string): Pod | undefined {
    return this.pods.get(key(namespace, name));
  }

  /**
   * The pod named `ns/name` (a bare name means namespace `default`). Throws a LabelwiseError
   * `POLICY_UNKNOWN_POD` when there is none: the message says where its error is when the pod
   * is in the input but was rejected, and the hint lists known pods otherwise.
   */
  podByRef(ref: string): Pod {
    const slash = ref.indexOf('/');
    const namespace = slash < 0 ? 'default' : ref.slice(0, slash);
    const name = slash < 0 ? ref : ref.slice(slash + 1);
    const pod = this.pod(namespace, name);
    if (pod !== undefined) return pod;
    const rejected = this.attachments.rejections.find('Pod', namespace, name);
    if (rejected !== undefined) {
      throw new LabelwiseError(
        'POLICY_UNKNOWN_POD',
        `${describeRejected(rejected)} and was left out, so there is no pod ${namespace}/${name} to use`,
        { source: { path: 'pod' }, hint: 'fix the pod; labelwise policy lint lists its errors' },
      );
    }
    const known = this.podList.map((p) => `${p.meta.namespace}/${p.meta.name}`);
    throw new LabelwiseError('POLICY_UNKNOWN_POD', `no pod ${namespace}/${name} in the input`, {
      source: { path: 'pod' },
      hint:
        known.length > 0
          ? `known pods: ${known.slice(0, 10).join(', ')}${known.length > 10 ? ', …' : ''}`
          : 'the directory holds no Pod objects',
    });
  }

  /** Servers of the pod's namespace that select the pod, in Linkerd's order (oldest, then name). */
  serversSelecting(pod: Pod): Server[] {
    const index = this.serverIndexes.get(pod.meta.namespace);
    if (index === undefined) return [];
    // A Server selects pods or, with externalWorkloadSelector, ExternalWorkloads: never both.
    const wanted = pod.external === true ? 'externalWorkloads' : 'pods';
    return index
      .match(pod.meta.labels)
      .filter((s) => (s.selects ?? 'pods') === wanted)
      .sort(serverOrder);
  }

  /**
   * Does `server` apply to `port` of `pod`? Only ports the pod declares count (Linkerd's
   * reference: "only ports in a pod spec's ports are considered"); a name may resolve to several.
   */
  serverCoversPort(server: Server, pod: Pod, port: number): boolean {
    // A numeric port governs that port whether or not a container declares it (Linkerd's
    // `links_unnamed_server_port`); a name resolves through the pod's named TCP ports.
    if (typeof server.port === 'number') return server.port === port;
    return pod.ports.some((p) => p.name === server.port && p.port === port);
  }

  /** The ports worth listing for a pod: declared or probed. */
  portsOf(pod: Pod): number[] {
    const ports = new Set<number>(pod.ports.map((p) => p.port));
    for (const server of this.serversSelecting(pod))
      if (typeof server.port === 'number') ports.add(server.port);
    for (const probe of pod.probes) {
      const port = this.resolvePort(pod, probe.port);
      if (port !== undefined) ports.add(port);
    }
    return [...ports].sort((a, b) => a - b);
  }

  resolvePort(pod: Pod, port: number | string): number | undefined {
    return typeof port === 'number' ? port : pod.ports.find((p) => p.name === port)?.port;
  }

  /** The pod's default policy for a port: annotation (pod, then namespace) or cluster default, upgraded on require-identity ports. */
  defaultPolicyFor(pod: Pod, port: number): { policy: DefaultPolicy; reason: string } {
    const ns = this.namespaces.get(pod.meta.namespace);
    const annotated = inherited(pod, ns, DEFAULT_POLICY_ANNOTATION);
    let policy: DefaultPolicy = this.settings.defaultPolicy;
    let reason = `the cluster default ${policy}`;
    if (annotated !== undefined && isDefaultPolicy(annotated.value)) {
      policy = annotated.value;
      reason = `${DEFAULT_POLICY_ANNOTATION}=${policy} on the ${annotated.from}`;
    }
    const required = inherited(pod, ns, REQUIRE_IDENTITY_ANNOTATION);
    const inList = required === undefined ? undefined : parsePortList(required.value);
    if (inList !== undefined && inList(port)) {
      const upgraded =
        policy === 'all-unauthenticated'
          ? 'all-authenticated'
          : policy === 'cluster-unauthenticated'
            ? 'cluster-authenticated'
            : policy;
      if (upgraded !== policy) {
        reason += `, upgraded to ${upgraded} because port ${port} is listed in ${REQUIRE_IDENTITY_ANNOTATION}`;
        policy = upgraded;
      }
    }
    return { policy, reason };
  }

  /** Probe paths of the pod's HTTP probes on `port`, sorted and unique. */
  probePaths(pod: Pod, port: number): string[] {
    const paths = pod.probes
      .filter((p) => this.resolvePort(pod, p.port) === port)
      .map((p) => p.path);
    return [...new Set(paths)].sort(compareText);
  }

  /**
   * The policy of one (pod, port). Cached: repeated calls return the same object. Never throws
   * for a known pod; ports need not be declared (the proxy serves any inbound port). `detected`
   * is the connection's HTTP version, which an `unknown` Server's routes take (`serverModel`).
   */
  portPolicy(pod: Pod, port: number, detected?: HttpVersion): PortPolicy {
    const cacheKey = `${pod.meta.namespace}/${pod.meta.name}:${port}${detected === undefined ? '' : `@${detected}`}`;
    const cached = this.portCache.get(cacheKey);
    if (cached !== undefined) return cached;
    const podKey = key(pod.meta.namespace, pod.meta.name);
    const selecting = this.serversSelecting(pod).filter((s) => this.serverCoversPort(s, pod, port));
    let result: PortPolicy;
    const governing = selecting[0];
    if (governing !== undefined) {
      const model = this.serverModel(governing, detected);
      const others = selecting.slice(1).map((s) => s.meta.name);
      const reason =
        others.length === 0
          ? `Server ${governing.meta.name} selects the pod and port ${port}`
          : `Servers ${[governing.meta.name, ...others].join(', ')} all select the pod and port ${port}; ${governing.meta.name} wins as the oldest (then by name)`;
      const table = model.table ?? new RouteTable(this.syntheticRoutes(pod, port, governing));
      result = {
        pod: podKey,
        port,
        server: key(governing.meta.namespace, governing.meta.name),
        serverObject: governing,
        serverReason: reason,
        protocol: governing.proxyProtocol,
        authorizations: model.authorizations,
        ...(model.ignored.length === 0 ? {} : { ignored: model.ignored }),
        table,
        ...(model.rateLimit === undefined ? {} : { rateLimit: model.rateLimit }),
        ...(detected === undefined ? {} : { detectedVersion: detected }),
      };
    } else {
      const { policy, reason } = this.defaultPolicyFor(pod, port);
      const ns = this.namespaces.get(pod.meta.namespace);
      const opaque = inherited(pod, ns, OPAQUE_PORTS_ANNOTATION);
      const isOpaque = opaque !== undefined && (parsePortList(opaque.value)?.(port) ?? false);
      const authz = defaultPolicyAuthorization(policy, this.settings);
      // A Server the loader rejected might have been meant for this port: say so, or the
      // trace reads as if the user had written no Server at all.
      const rejected = this.attachments.rejections.inNamespace('Server', pod.meta.namespace);
      const note =
        rejected.length === 0
          ? ''
          : `; not considered: ${rejected
              .slice(0, 3)
              .map(describeRejected)
              .join(', ')}${rejected.length > 3 ? ` and ${rejected.length - 3} more` : ''}`;
      result = {
        pod: podKey,
        port,
        server: `default:${policy}`,
        serverReason: `no Server selects the pod and port ${port}; the default policy is ${reason}${note}`,
        protocol: isOpaque ? 'opaque' : 'unknown',
        authorizations: authz === undefined ? [this.localhost] : [authz, this.localhost],
        table: new RouteTable(this.syntheticRoutes(pod, port, undefined)),
        ...(detected === undefined ? {} : { detectedVersion: detected }),
      };
    }
    this.portCache.set(cacheKey, result);
    return result;
  }

  /**
   * Server-level authorizations and attached routes, computed once per Server (and, on an
   * `unknown` Server, per `detected` HTTP version).
   */
  serverModel(server: Server, detected?: HttpVersion): ServerModel {
    return this.servers.serverModel(server, detected);
  }

  /** The `default` route and, with probe networks and HTTP probes on the port, the `probe` route. */
  private syntheticRoutes(pod: Pod, port: number, server: Server | undefined): CompiledRoute[] {
    const timeouts = server === undefined ? [] : this.servers.timeoutsFor(server, []);
    const rewrites = server === undefined ? [] : this.servers.rewritesFor(server, []);
    const probes = this.settings.probeNetworks.length > 0 ? this.probePaths(pod, port) : [];
    const routes = defaultRoutes(probes, this.probe, timeouts, rewrites);
    return server === undefined
      ? routes
      : routes.map((r) => this.servers.withTelemetry(server, [], r));
  }
}

/** Linkerd's Server order for one pod and port: oldest creationTimestamp, then lower name. */
export function serverOrder(a: Server, b: Server): number {
  return compareRoutes(
    { created: a.meta.created, name: a.meta.name },
    { created: b.meta.created, name: b.meta.name },
  );
}
