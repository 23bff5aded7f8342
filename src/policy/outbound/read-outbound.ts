/**
 * Readers for the outbound side: `Service` (ports, cluster IPs and its outbound annotations),
 * `EgressNetwork` (policy.linkerd.io/v1alpha1), the outbound part of an HTTPRoute or GRPCRoute
 * (its Service and EgressNetwork parents, backendRefs and retry/timeout annotations), and
 * TLSRoute/TCPRoute, which only attach to outbound parents.
 */
import { networkProblems } from '../networks.js';
import type { Path, ReadContext } from '../resources/read-context.js';
import { parseGatewayDuration } from '../resources/read-routes.js';
import { readOutboundParentStatuses, sameName } from '../resources/read-status.js';
import type { HttpRoute, ObjectMeta, RouteFilter } from '../types.js';
import { parentConfig, routeConfig } from './annotations.js';
import type {
  EgressNetwork,
  OutboundBackend,
  OutboundConfig,
  OutboundParent,
  OutboundRoute,
  OutboundRule,
  OutboundTimeouts,
  Service,
  ServicePort,
} from './types.js';

const POLICY_GROUP = 'policy.linkerd.io';
const HOSTNAME = /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Linkerd's `is_service`: group absent, empty or `core`; kind `Service` (any case). */
function isService(group: string | undefined, kind: string): boolean {
  return (
    (group === undefined || group === '' || sameName(group, 'core')) && sameName(kind, 'Service')
  );
}

/** Linkerd's `is_egress_network`: group `policy.linkerd.io` (written), kind `EgressNetwork`. */
function isEgressNetwork(group: string | undefined, kind: string): boolean {
  return group !== undefined && sameName(group, POLICY_GROUP) && sameName(kind, 'EgressNetwork');
}

function portAt(ctx: ReadContext, path: Path): number | undefined {
  const port = ctx.get(path);
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535
    ? port
    : undefined;
}

export function readService(ctx: ReadContext, meta: ObjectMeta): Service {
  const ports: ServicePort[] = [];
  (ctx.list(['spec', 'ports']) ?? []).forEach((_, i) => {
    const port = portAt(ctx, ['spec', 'ports', i, 'port']);
    if (port === undefined) return;
    const name = ctx.string(['spec', 'ports', i, 'name']);
    const appProtocol = ctx.string(['spec', 'ports', i, 'appProtocol']);
    ports.push({
      port,
      ...(name === undefined ? {} : { name }),
      ...(appProtocol === undefined ? {} : { appProtocol }),
    });
  });
  const ips = [
    ...(ctx.strings(['spec', 'clusterIPs']) ?? []),
    ...[ctx.string(['spec', 'clusterIP'])].filter((ip): ip is string => ip !== undefined),
  ];
  const clusterIPs = [...new Set(ips)].filter((ip) => ip !== 'None' && ip !== '');
  return {
    meta,
    ports,
    clusterIPs,
    opaquePorts: opaquePorts(meta.annotations['config.linkerd.io/opaque-ports']),
    config: parentConfig(meta.annotations),
  };
}

/** `config.linkerd.io/opaque-ports`: numbers and ranges; unreadable parts are skipped. */
function opaquePorts(text: string | undefined): number[] {
  if (text === undefined) return [];
  const out: number[] = [];
  for (const part of text.split(',')) {
    const range = /^\s*(\d{1,5})(?:-(\d{1,5}))?\s*$/.exec(part);
    if (range === null) continue;
    const start = Number(range[1]);
    const end = Number(range[2] ?? range[1]);
    for (let p = start; p <= end && p <= 65535; p++) out.push(p);
  }
  return out;
}

export function readEgressNetwork(ctx: ReadContext, meta: ObjectMeta): EgressNetwork | undefined {
  const policy = ctx.string(['spec', 'trafficPolicy'], { required: true });
  if (policy !== undefined && policy !== 'Allow' && policy !== 'Deny')
    ctx.fail(
      'POLICY_INVALID_FIELD',
      ['spec', 'trafficPolicy'],
      `trafficPolicy ${JSON.stringify(policy)} must be Allow or Deny`,
    );
  const written = ctx.list(['spec', 'networks']);
  const networks = (written ?? []).flatMap((_, i) => {
    const cidr = ctx.string(['spec', 'networks', i, 'cidr'], { required: true });
    const except = ctx.strings(['spec', 'networks', i, 'except']) ?? [];
    if (cidr === undefined) return [];
    const spec = { cidr, except };
    for (const problem of networkProblems(spec))
      ctx.fail(
        'POLICY_INVALID_NETWORK',
        problem.field === 'cidr'
          ? ['spec', 'networks', i, 'cidr']
          : ['spec', 'networks', i, 'except', problem.field],
        problem.message,
      );
    return [spec];
  });
  if (ctx.problems.length > 0 || (policy !== 'Allow' && policy !== 'Deny')) return undefined;
  return {
    meta,
    trafficPolicy: policy,
    ...(written === undefined ? {} : { networks }),
    config: parentConfig(meta.annotations),
  };
}

function readParents(ctx: ReadContext, meta: ObjectMeta): OutboundParent[] {
  const parents: OutboundParent[] = [];
  (ctx.list(['spec', 'parentRefs']) ?? []).forEach((_, i) => {
    const base = ['spec', 'parentRefs', i];
    const kind = ctx.string([...base, 'kind']);
    const group = ctx.string([...base, 'group']);
    const name = ctx.string([...base, 'name']);
    // Parent refs require a kind: an absent one names a Gateway.
    if (kind === undefined || name === undefined) return;
    const parentKind = isService(group, kind)
      ? 'Service'
      : isEgressNetwork(group, kind)
        ? 'EgressNetwork'
        : undefined;
    if (parentKind === undefined) return;
    const port = portAt(ctx, [...base, 'port']);
    parents.push({
      kind: parentKind,
      name,
      namespace: ctx.string([...base, 'namespace']) ?? meta.namespace,
      ...(port === undefined ? {} : { port }),
      at: ctx.at(base),
    });
  });
  return parents;
}

function backendFilters(ctx: ReadContext, path: Path): RouteFilter[] | string {
  const filters: RouteFilter[] = [];
  for (const [i] of (ctx.list(path) ?? []).entries()) {
    const type = ctx.string([...path, i, 'type']);
    if (type === 'RequestHeaderModifier' || type === 'ResponseHeaderModifier') {
      const field =
        type === 'RequestHeaderModifier' ? 'requestHeaderModifier' : 'responseHeaderModifier';
      filters.push({
        type,
        set: ctx.namedValues([...path, i, field, 'set']),
        add: ctx.namedValues([...path, i, field, 'add']),
        remove: (ctx.strings([...path, i, field, 'remove']) ?? []).map((h) => h.toLowerCase()),
      });
    } else return `unsupported backend filter: ${type ?? 'unknown filter'} is not supported`;
  }
  return filters;
}

function readBackend(ctx: ReadContext, meta: ObjectMeta, base: Path): OutboundBackend {
  const group = ctx.string([...base, 'group']);
  const kind = ctx.string([...base, 'kind']) ?? 'Service';
  const name = ctx.string([...base, 'name']) ?? '';
  const namespace = ctx.string([...base, 'namespace']) ?? meta.namespace;
  const weightValue = ctx.get([...base, 'weight']);
  const weight = typeof weightValue === 'number' && weightValue >= 0 ? weightValue : 1;
  const port = portAt(ctx, [...base, 'port']);
  const at = ctx.at(base);
  const common = { name, namespace, weight, at, ...(port === undefined ? {} : { port }) };
  const backendKind = isService(group, kind)
    ? 'Service'
    : isEgressNetwork(group, kind)
      ? 'EgressNetwork'
      : undefined;
  if (backendKind === undefined)
    return {
      ...common,
      kind: 'invalid',
      filters: [],
      message: `unsupported backend type ${group ?? 'core'} ${kind}`,
    };
  const filters = backendFilters(ctx, [...base, 'filters']);
  if (typeof filters === 'string')
    return { ...common, kind: 'invalid', filters: [], message: filters };
  if (backendKind === 'Service' && port === undefined)
    return {
      ...common,
      kind: 'invalid',
      filters: [],
      message: `missing port for backend Service ${name}`,
    };
  return { ...common, kind: backendKind, filters };
}

/** A rule's own timeouts: the route's annotations win over `timeouts.request` (0s: none). */
function ruleTimeouts(route: OutboundConfig, request: string | undefined): OutboundTimeouts {
  if (route.timeouts.request !== undefined || request === undefined) return route.timeouts;
  const ms = parseGatewayDuration(request);
  return ms === undefined || ms === 0 ? route.timeouts : { ...route.timeouts, request: ms };
}

/**
 * The outbound view of an HTTPRoute or GRPCRoute the inbound reader accepted: undefined when
 * it has no Service or EgressNetwork parent. Such a route's retry and timeout annotations are
 * checked at admission (`POLICY_INVALID_OUTBOUND_ANNOTATION`).
 */
export function readOutboundHttpRoute(
  ctx: ReadContext,
  route: HttpRoute,
): OutboundRoute | undefined {
  const parents = readParents(ctx, route.meta);
  if (parents.length === 0) return undefined;
  const config = routeConfig(route.meta.annotations, route.kind);
  if ('error' in config) {
    ctx.fail(
      'POLICY_INVALID_OUTBOUND_ANNOTATION',
      ['metadata', 'annotations'],
      config.error,
      'retry.linkerd.io/* and timeout.linkerd.io/* take durations like 10s or 500ms and conditions like 5xx,429',
    );
    return undefined;
  }
  const written = ctx.get(['spec', 'rules']) !== undefined;
  const rules: OutboundRule[] = route.rules.map((rule, r) => {
    const base: Path = written ? ['spec', 'rules', r] : ['spec'];
    const backends = written
      ? (ctx.list([...base, 'backendRefs']) ?? []).map((_, b) =>
          readBackend(ctx, route.meta, [...base, 'backendRefs', b]),
        )
      : [];
    const request = written ? ctx.string([...base, 'timeouts', 'request']) : undefined;
    const backendRequest = written
      ? ctx.string([...base, 'timeouts', 'backendRequest'])
      : undefined;
    return {
      matches: rule.matches,
      filters: rule.filters,
      backends,
      written: {
        ...(request === undefined ? {} : { request }),
        ...(backendRequest === undefined ? {} : { backendRequest }),
      },
      timeouts: ruleTimeouts(config.value, request),
      at: rule.at ?? ctx.at(base),
    };
  });
  return {
    meta: route.meta,
    kind: route.kind,
    group: route.group ?? 'gateway.networking.k8s.io',
    parents,
    hostnames: route.hostnames,
    rules,
    config: config.value,
    ...statusOf(ctx),
    ...(route.ignoredBecause === undefined || !route.ignoredBecause.includes('filter')
      ? {}
      : { ignoredBecause: route.ignoredBecause.replace('inbound routes', 'routes') }),
  };
}

/** A TLSRoute (hostnames: SNI) or TCPRoute: backends only, no matches. */
export function readStreamRoute(
  ctx: ReadContext,
  meta: ObjectMeta,
  kind: 'TLSRoute' | 'TCPRoute',
): OutboundRoute | undefined {
  const hostnames: string[] = [];
  if (kind === 'TLSRoute')
    (ctx.strings(['spec', 'hostnames']) ?? []).forEach((host, i) => {
      const lower = host.toLowerCase();
      if (HOSTNAME.test(lower)) hostnames.push(lower);
      else
        ctx.fail(
          'POLICY_INVALID_HOSTNAME',
          ['spec', 'hostnames', i],
          `hostname ${JSON.stringify(host)} must be a DNS name, optionally with one leading "*."`,
        );
    });
  const rules: OutboundRule[] = (ctx.list(['spec', 'rules'], { required: true }) ?? []).map(
    (_, r) => ({
      matches: [],
      filters: [],
      backends: (ctx.list(['spec', 'rules', r, 'backendRefs']) ?? []).map((__, b) =>
        readBackend(ctx, meta, ['spec', 'rules', r, 'backendRefs', b]),
      ),
      written: {},
      timeouts: {},
      at: ctx.at(['spec', 'rules', r]),
    }),
  );
  if (ctx.problems.length > 0) return undefined;
  return {
    meta,
    kind,
    group: meta.apiVersion.split('/')[0] ?? 'gateway.networking.k8s.io',
    parents: readParents(ctx, meta),
    hostnames,
    rules,
    config: { timeouts: {}, ignored: [] },
    ...statusOf(ctx),
  };
}

/** The route's `status.parents`, when it carries one. */
function statusOf(ctx: ReadContext): Pick<OutboundRoute, 'statusParents'> {
  const statusParents = readOutboundParentStatuses(ctx);
  return statusParents === undefined ? {} : { statusParents };
}
