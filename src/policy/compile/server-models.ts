/**
 * What a Server compiles to, once per Server: its own authorizations (accessPolicy,
 * ServerAuthorizations, AuthorizationPolicies on it or its Namespace, `localhost`), its attached
 * and extension routes with their policies, timeouts and rewrites, and its rate limit. The
 * per-pod, per-port view is `model.ts`.
 */
import { compareText, pushAll } from '../../base/index.js';
import { matches } from '../../selector/index.js';
import { RouteTable, compareRoutes } from '../routes/route-table.js';
import type { AppliedTimeout, CompiledRoute, IgnoredPolicy } from '../routes/route-table.js';
import type {
  ClusterSettings,
  HeaderRewritePolicy,
  HttpRoute,
  PolicyResources,
  PolicyTarget,
  ProxyProtocol,
  Server,
  ServerAuthorization,
  TimeoutPolicy,
} from '../types.js';
import type { Attachments, ExtensionRoute } from './attachments.js';
import type { GrpcMethodRoute } from './grpc-services.js';
import { compileServerAuthorization, defaultPolicyAuthorization } from './authorizations.js';
import type { Authorization } from './authorizations.js';
import { defaultGrpcRoute } from './default-routes.js';
import { key } from './object-key.js';
import type { PolicyIndex } from './policy-index.js';
import { rateLimitFor } from './rate-limits.js';
import { withDerivedLabels } from './route-labels.js';
import type { HttpVersion } from './route-labels.js';
import { TelemetryIndex } from './telemetry.js';
import type { CompiledRateLimit } from './rate-limits.js';

export interface ServerModel {
  readonly authorizations: readonly Authorization[];
  readonly ignored: readonly IgnoredPolicy[];
  /**
   * Attached routes of every kind. The table holds the kind the protocol serves; without any,
   * default/probe are synthesised (a gRPC Server gets the default gRPC route).
   */
  readonly routes: readonly CompiledRoute[];
  readonly table?: RouteTable;
  readonly rateLimit?: CompiledRateLimit;
}

/** The compiled Servers of one model, each built on first use. */
export class ServerModels {
  private readonly serverModels = new Map<string, ServerModel>();
  private readonly telemetry: TelemetryIndex;

  constructor(
    private readonly resources: PolicyResources,
    private readonly settings: ClusterSettings,
    private readonly attachments: Attachments,
    private readonly policies: PolicyIndex,
    private readonly localhost: Authorization,
  ) {
    this.telemetry = new TelemetryIndex(resources.telemetryPolicies ?? []);
  }

  /** `route` with what the TelemetryPolicies on its Server and `targets` record for it. */
  withTelemetry(
    server: Server,
    targets: readonly (readonly [PolicyTarget['kind'], string])[],
    route: CompiledRoute,
  ): CompiledRoute {
    const telemetry = this.telemetry.forRoute(server, targets, route);
    return telemetry === undefined ? route : { ...route, telemetry };
  }

  /**
   * ServerAuthorizations that may select a Server: those naming it, and the namespace's
   * selector-based ones. Indexed on first use: a scan of every ServerAuthorization per Server is
   * quadratic (6,000 Servers with one ServerAuthorization each in one namespace).
   */
  private serverAuthorizationIndex?: {
    byName: Map<string, ServerAuthorization[]>;
    bySelector: Map<string, ServerAuthorization[]>;
  };

  private serverAuthorizationsFor(server: Server): ServerAuthorization[] {
    let index = this.serverAuthorizationIndex;
    if (index === undefined) {
      index = { byName: new Map(), bySelector: new Map() };
      for (const sa of this.resources.serverAuthorizations) {
        const [map, k] =
          'name' in sa.server
            ? [index.byName, key(sa.meta.namespace, sa.server.name)]
            : [index.bySelector, sa.meta.namespace];
        const list = map.get(k);
        if (list === undefined) map.set(k, [sa]);
        else list.push(sa);
      }
      this.serverAuthorizationIndex = index;
    }
    return [
      ...(index.byName.get(key(server.meta.namespace, server.meta.name)) ?? []),
      ...(index.bySelector.get(server.meta.namespace) ?? []),
    ];
  }

  /**
   * Server-level authorizations and attached routes, computed once per Server. On an `unknown`
   * Server, `detected` is the HTTP version the proxy detected on the connection: its extension
   * routes carry it as `http.linkerd.io/version`, so classes selecting a version cover them
   * (one model per version); without it they carry no version. Other Servers fix the version.
   */
  serverModel(server: Server, detected?: HttpVersion): ServerModel {
    const version = server.proxyProtocol === 'unknown' ? detected : undefined;
    const serverKey = `${key(server.meta.namespace, server.meta.name)}${version === undefined ? '' : `@${version}`}`;
    const cached = this.serverModels.get(serverKey);
    if (cached !== undefined) return cached;
    const { authorizations, ignored } = this.serverAuthorizationList(server);
    const served = servedRouteKind(server.proxyProtocol);
    const routes: CompiledRoute[] = this.attachments
      .routesOf(server)
      .map((route) => this.attachedRoute(server, route));
    for (const ext of this.attachments.extensionRoutesOf(server))
      routes.push(this.extensionRoute(server, ext, version));
    for (const rpc of this.attachments.grpc.routesOf(server))
      routes.push(this.grpcServiceRoute(server, rpc, version));
    // The proxy serves GRPCRoutes (and GrpcServices) on a gRPC Server and HTTPRoutes (and
    // route groups) on the others; routes of the other kind stay attached, never consulted.
    const servedRoutes = routes.filter((r) => servedKindOf(r.kind) === served);
    const rateLimit =
      served === 'HTTPRoute'
        ? rateLimitFor(this.resources.rateLimitPolicies ?? [], server, this.settings)
        : undefined;
    const limit = rateLimit === undefined ? {} : { rateLimit };
    let model: ServerModel =
      servedRoutes.length === 0
        ? { authorizations, ignored, routes, ...limit }
        : { authorizations, ignored, routes, table: new RouteTable(servedRoutes), ...limit };
    if (servedRoutes.length === 0 && served === 'GRPCRoute') {
      const grpc = this.withTelemetry(
        server,
        [],
        defaultGrpcRoute(this.timeoutsFor(server, []), this.rewritesFor(server, [])),
      );
      model = { ...model, table: new RouteTable([grpc]) };
    }
    this.serverModels.set(serverKey, model);
    return model;
  }

  /**
   * A Server's own authorizations: its accessPolicy, the ServerAuthorizations selecting it,
   * AuthorizationPolicies on it or its Namespace — by name, `localhost` last — and the dropped
   * policies that target it.
   */
  private serverAuthorizationList(server: Server): {
    authorizations: Authorization[];
    ignored: IgnoredPolicy[];
  } {
    const ns = server.meta.namespace;
    const authorizations: Authorization[] = [];
    const access = defaultPolicyAuthorization(server.accessPolicy, this.settings);
    if (access !== undefined) authorizations.push(access);
    for (const sa of this.serverAuthorizationsFor(server)) {
      if (sa.droppedBecause !== undefined) continue; // Linkerd's index drops it
      const selects =
        'name' in sa.server
          ? sa.server.name === server.meta.name
          : matches(sa.server.selector, server.meta.labels);
      if (selects) authorizations.push(compileServerAuthorization(sa, this.settings));
    }
    pushAll(authorizations, this.policies.authorizations(ns, 'Server', server.meta.name));
    pushAll(authorizations, this.policies.authorizations(ns, 'Namespace', ns));
    authorizations.sort((a, b) => compareText(a.name, b.name));
    authorizations.push(this.localhost);
    const ignored = [
      ...this.policies.ignored(ns, 'Server', server.meta.name),
      ...this.policies.ignored(ns, 'Namespace', ns),
    ];
    return { authorizations, ignored };
  }

  /** An accepted HTTPRoute or GRPCRoute with its own and its classes' policies. */
  private attachedRoute(server: Server, route: HttpRoute): CompiledRoute {
    const labels = route.meta.labels;
    const classes = this.attachments.classesMatching(server, labels);
    const targets = [
      ...classes.map((c) => ['HttpRouteClass', c.meta.name] as const),
      [route.kind, route.meta.name] as const,
    ];
    return this.withTelemetry(server, targets, {
      name: route.meta.name,
      kind: route.kind,
      created: route.meta.created,
      hostnames: route.hostnames,
      rules: route.rules,
      labels,
      authorizations: dedupe([
        ...this.policies.authorizations(
          route.meta.namespace,
          route.kind,
          route.meta.name,
          route.group,
        ),
        ...classes.flatMap((c) =>
          this.policies.authorizations(c.meta.namespace, 'HttpRouteClass', c.meta.name),
        ),
      ]),
      ...nonEmpty([
        ...this.policies.ignored(route.meta.namespace, route.kind, route.meta.name, route.group),
        ...classes.flatMap((c) =>
          this.policies.ignored(c.meta.namespace, 'HttpRouteClass', c.meta.name),
        ),
      ]),
      timeouts: this.timeoutsFor(server, targets),
      rewrites: this.rewritesFor(server, targets),
      at: route.meta.at,
    });
  }

  private extensionRoute(
    server: Server,
    ext: ExtensionRoute,
    detected: HttpVersion | undefined,
  ): CompiledRoute {
    const labels = withDerivedLabels(ext.labels, server.proxyProtocol, ext.template, detected);
    const classes = this.attachments.classesMatching(server, labels);
    const ns = server.meta.namespace;
    const targets = [
      ['HttpRouteBinding', ext.binding.meta.name] as const,
      ...classes.map((c) => ['HttpRouteClass', c.meta.name] as const),
    ];
    return this.withTelemetry(server, targets, {
      name: `${ext.group}:${ext.methods[0] ?? '*'} ${ext.template.text}`,
      kind: 'HttpRouteGroup',
      created: ext.binding.meta.created,
      hostnames: [],
      rules: [{ matches: [], filters: [] }],
      labels,
      authorizations: dedupe(
        targets.flatMap(([kind, name]) => this.policies.authorizations(ns, kind, name)),
      ),
      ...nonEmpty(targets.flatMap(([kind, name]) => this.policies.ignored(ns, kind, name))),
      timeouts: this.timeoutsFor(server, targets),
      rewrites: this.rewritesFor(server, targets),
      template: {
        template: ext.template,
        methods: ext.methods,
        headers: ext.headers,
        queryParams: ext.queryParams,
        binding: ext.binding.meta.name,
        group: ext.group,
        index: ext.index,
      },
      at: ext.at,
    });
  }

  /** A bound gRPC method: an exact `/<service>/<method>` match, as a GRPCRoute method match. */
  private grpcServiceRoute(
    server: Server,
    rpc: GrpcMethodRoute,
    detected: HttpVersion | undefined,
  ): CompiledRoute {
    const labels = withDerivedLabels(rpc.labels, server.proxyProtocol, undefined, detected);
    const classes = this.attachments.grpc.classesMatching(rpc, labels);
    const ns = server.meta.namespace;
    const targets = [
      ['GrpcServiceBinding', rpc.binding.meta.name] as const,
      ...classes.map((c) => ['GrpcServiceClass', c.meta.name] as const),
    ];
    const service = rpc.service.service;
    const grpc = rpc.method === undefined ? { service } : { service, method: rpc.method };
    return this.withTelemetry(server, targets, {
      name: `${rpc.service.meta.name}:${service}/${rpc.method ?? '*'}`,
      kind: 'GrpcService',
      created: rpc.binding.meta.created,
      hostnames: [],
      rules: [
        {
          matches: [
            {
              path: { type: 'Exact', value: `/${service}/${rpc.method ?? '*'}` },
              headers: [],
              queryParams: [],
              method: 'POST',
              grpc,
            },
          ],
          filters: [],
        },
      ],
      labels,
      authorizations: dedupe(
        targets.flatMap(([kind, name]) => this.policies.authorizations(ns, kind, name)),
      ),
      ...nonEmpty(targets.flatMap(([kind, name]) => this.policies.ignored(ns, kind, name))),
      timeouts: this.timeoutsFor(server, targets),
      rewrites: this.rewritesFor(server, targets),
      at: rpc.at,
    });
  }

  timeoutsFor(
    server: Server,
    targets: readonly (readonly [TimeoutPolicy['target']['kind'], string])[],
  ): AppliedTimeout[] {
    const policies = this.attachedTo(server, targets, (ns, kind, name) =>
      this.attachments.timeouts(ns, kind, name),
    );
    return policies.map((p) => ({
      source: `timeoutpolicy/${p.meta.name}`,
      timeout: p.timeout,
      ms: p.ms,
    }));
  }

  rewritesFor(
    server: Server,
    targets: readonly (readonly [HeaderRewritePolicy['target']['kind'], string])[],
  ): HeaderRewritePolicy[] {
    const policies = this.attachedTo(server, targets, (ns, kind, name) =>
      this.attachments.rewrites(ns, kind, name),
    );
    return policies.sort((a, b) =>
      compareRoutes(
        { created: a.meta.created, name: a.meta.name },
        { created: b.meta.created, name: b.meta.name },
      ),
    );
  }

  /** What `lookup` attaches to the Server itself or to any of its targets, each policy once. */
  private attachedTo<P>(
    server: Server,
    targets: readonly (readonly [PolicyTarget['kind'], string])[],
    lookup: (namespace: string, kind: PolicyTarget['kind'], name: string) => readonly P[],
  ): P[] {
    const ns = server.meta.namespace;
    const policies = [
      ...lookup(ns, 'Server', server.meta.name),
      ...targets.flatMap(([kind, name]) => lookup(ns, kind, name)),
    ];
    return [...new Set(policies)];
  }
}

/** The route kind the proxy serves for a protocol; undefined when routes do not apply. */
export function servedRouteKind(protocol: ProxyProtocol): 'HTTPRoute' | 'GRPCRoute' | undefined {
  if (protocol === 'gRPC') return 'GRPCRoute';
  if (protocol === 'opaque' || protocol === 'TLS') return undefined;
  return 'HTTPRoute';
}

/** The protocol's route kind that serves a compiled route of kind `kind`. */
function servedKindOf(kind: CompiledRoute['kind']): 'HTTPRoute' | 'GRPCRoute' | undefined {
  if (kind === 'HttpRouteGroup' || kind === 'HTTPRoute') return 'HTTPRoute';
  if (kind === 'GrpcService' || kind === 'GRPCRoute') return 'GRPCRoute';
  return undefined;
}

/** `{ ignored }` when there are any, so routes without dropped policies stay as they were. */
function nonEmpty(list: IgnoredPolicy[]): { ignored?: IgnoredPolicy[] } {
  const unique = [...new Map(list.map((i) => [i.name, i])).values()].sort((a, b) =>
    compareText(a.name, b.name),
  );
  return unique.length === 0 ? {} : { ignored: unique };
}

function dedupe(list: Authorization[]): Authorization[] {
  return [...new Set(list)].sort((a, b) => compareText(a.name, b.name));
}
