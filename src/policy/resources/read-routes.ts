/**
 * Readers for HTTPRoute (gateway.networking.k8s.io and policy.linkerd.io) and GRPCRoute, with
 * Linkerd's admission checks on matches (absolute paths, valid regular expressions).
 */
import type {
  HttpRoute,
  ParentRef,
  PathMatch,
  RouteFilter,
  RouteMatchSpec,
  RouteRule,
  ValueMatch,
} from '../types.js';
import type { ObjectMeta } from '../types.js';
import type { Path, ReadContext } from './read-context.js';
import { compilePattern } from '../pattern.js';
import type { Pattern } from '../pattern.js';
import { readParentStatuses, sameName } from './read-status.js';

const HOSTNAME = /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'];
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]+$/;

/** Compiles a route regular expression (RE2 syntax, as Linkerd's proxy reads it). */
export function compileRegex(ctx: ReadContext, path: Path, source: string): Pattern | undefined {
  const pattern = compilePattern(source);
  if ('error' in pattern) {
    return ctx.fail(
      'POLICY_INVALID_REGEX',
      path,
      `invalid regular expression ${JSON.stringify(source)}: ${pattern.error}`,
    );
  }
  return pattern;
}

const POLICY_GROUP = 'policy.linkerd.io';
const GATEWAY_GROUP = 'gateway.networking.k8s.io';

/**
 * Reads parentRefs. Kind and group compare case-insensitively (as Linkerd's `targets_kind`);
 * an absent group takes the CRD default of the route's own API group (`policy.linkerd.io` for a
 * policy.linkerd.io HTTPRoute, the Gateway API group otherwise), an absent kind is `Gateway`.
 * A Server parentRef with `port`, `sectionName` or another namespace makes Linkerd's index
 * ignore the whole route: returned as `ignoredBecause`.
 */
function readParents(
  ctx: ReadContext,
  meta: ObjectMeta,
  routeGroup: string,
): { parents: ParentRef[]; ignoredBecause?: string } {
  const parents: ParentRef[] = [];
  let ignoredBecause: string | undefined;
  (ctx.list(['spec', 'parentRefs']) ?? []).forEach((_, i) => {
    const base = ['spec', 'parentRefs', i];
    const name = ctx.string([...base, 'name'], { required: true, nonEmpty: true });
    const writtenGroup = ctx.string([...base, 'group']);
    const writtenKind = ctx.string([...base, 'kind']);
    if (name === undefined) return;
    const at = ctx.at(base);
    if (writtenGroup === undefined && writtenKind === undefined) {
      // `parentRefs: [{ name: web }]` means a Gateway; kept so the linter can ask whether the
      // Server of that name was meant (it never is attached this way).
      parents.push({
        name,
        inbound: false,
        defaultKind: true,
        ignoredBecause:
          'it gives no group or kind, so it names a Gateway (the CRD default), not a Server',
        at,
      });
      return;
    }
    const kind = writtenKind ?? 'Gateway';
    // The API server fills an absent group with the CRD default; an empty group is the core group.
    const group = writtenGroup ?? routeGroup;
    if (!sameName(kind, 'Server')) return; // Gateways and Services belong to other controllers.
    if (!sameName(group, POLICY_GROUP)) {
      parents.push({
        name,
        inbound: false,
        ignoredBecause:
          writtenGroup === undefined
            ? `it names kind Server without a group, and in a ${routeGroup} route the group defaults to ${routeGroup}, so it is not a Linkerd Server`
            : `group ${JSON.stringify(writtenGroup)} is not policy.linkerd.io, so it is not a Linkerd Server`,
        at,
      });
      return;
    }
    const namespace = ctx.string([...base, 'namespace']);
    let invalid: string | undefined;
    if (namespace !== undefined && namespace !== meta.namespace)
      invalid = `parentRef ${name} names a Server in another namespace (${namespace})`;
    else if (ctx.get([...base, 'port']) !== undefined)
      invalid = `parentRef ${name} sets port, which a Server parent may not`;
    else if (ctx.get([...base, 'sectionName']) !== undefined)
      invalid = `parentRef ${name} sets sectionName, which a Server parent may not`;
    if (invalid !== undefined) {
      ignoredBecause ??= invalid;
      parents.push({ name, inbound: false, ignoredBecause: invalid, at });
    } else parents.push({ name, inbound: true, at });
  });
  return ignoredBecause === undefined ? { parents } : { parents, ignoredBecause };
}

/** `headers` (names lower-cased) or `queryParams` matches: Exact or RegularExpression. */
export function readValueMatches(ctx: ReadContext, path: Path, lower: boolean): ValueMatch[] {
  const out: ValueMatch[] = [];
  (ctx.list(path) ?? []).forEach((_, i) => {
    const base = [...path, i];
    const type = ctx.string([...base, 'type']) ?? 'Exact';
    const rawName = ctx.string([...base, 'name'], { required: true, nonEmpty: true });
    const value = ctx.string([...base, 'value'], { required: true });
    if (rawName !== undefined && lower && !HEADER_NAME.test(rawName)) {
      ctx.fail(
        'POLICY_INVALID_MATCH',
        [...base, 'name'],
        `${JSON.stringify(rawName)} is not a valid header name`,
      );
      return;
    }
    if (rawName === undefined || value === undefined) return;
    const name = lower ? rawName.toLowerCase() : rawName;
    if (type === 'Exact') out.push({ name, type, value });
    else if (type === 'RegularExpression') {
      const regex = compileRegex(ctx, [...base, 'value'], value);
      if (regex !== undefined) out.push({ name, type, value, regex });
    } else
      ctx.fail(
        'POLICY_INVALID_MATCH',
        [...base, 'type'],
        `unknown match type ${JSON.stringify(type)}, expected Exact or RegularExpression`,
      );
  });
  return out;
}

function readPathMatch(ctx: ReadContext, path: Path): PathMatch | undefined {
  if (ctx.record(path) === undefined) return { type: 'PathPrefix', value: '/' };
  const type = ctx.string([...path, 'type']) ?? 'PathPrefix';
  const value = ctx.string([...path, 'value']) ?? '/';
  if (type === 'Exact' || type === 'PathPrefix') {
    if (!value.startsWith('/')) {
      return ctx.fail(
        'POLICY_RELATIVE_PATH',
        [...path, 'value'],
        `path ${JSON.stringify(value)} must be absolute (start with /)`,
      );
    }
    return { type, value };
  }
  if (type === 'RegularExpression') {
    const regex = compileRegex(ctx, [...path, 'value'], value);
    return regex === undefined ? undefined : { type, value, regex };
  }
  return ctx.fail(
    'POLICY_INVALID_MATCH',
    [...path, 'type'],
    `unknown path match type ${JSON.stringify(type)}, expected Exact, PathPrefix or RegularExpression`,
  );
}

function readHttpMatch(ctx: ReadContext, base: Path): RouteMatchSpec | undefined {
  const path = readPathMatch(ctx, [...base, 'path']);
  const headers = readValueMatches(ctx, [...base, 'headers'], true);
  const queryParams = readValueMatches(ctx, [...base, 'queryParams'], false);
  const method = ctx.string([...base, 'method']);
  if (method !== undefined && !METHODS.includes(method)) {
    ctx.fail(
      'POLICY_INVALID_MATCH',
      [...base, 'method'],
      `unknown method ${JSON.stringify(method)}, expected one of ${METHODS.join(', ')}`,
    );
    return undefined;
  }
  if (path === undefined) return undefined;
  return method === undefined
    ? { path, headers, queryParams }
    : { path, headers, queryParams, method };
}

/**
 * A GRPCRoute method match. The proxy matches `POST /<service>/<method>` segment by segment;
 * `path` only describes it. RegularExpression method matches are refused by Linkerd's admission.
 */
function readGrpcMatch(ctx: ReadContext, base: Path): RouteMatchSpec | undefined {
  const headers = readValueMatches(ctx, [...base, 'headers'], true);
  const hasMethod = ctx.record([...base, 'method']) !== undefined;
  const service = ctx.string([...base, 'method', 'service'], { nonEmpty: true });
  const method = ctx.string([...base, 'method', 'method'], { nonEmpty: true });
  const type = ctx.string([...base, 'method', 'type']) ?? 'Exact';
  if (type !== 'Exact') {
    ctx.fail(
      'POLICY_INVALID_MATCH',
      [...base, 'method', 'type'],
      `unsupported GRPCRoute method match type ${JSON.stringify(type)}; Linkerd supports Exact only`,
    );
    return undefined;
  }
  if (hasMethod && service === undefined && method === undefined) {
    ctx.fail(
      'POLICY_INVALID_MATCH',
      [...base, 'method'],
      'a gRPC method match needs service, method or both',
    );
    return undefined;
  }
  const path: PathMatch = {
    type: 'Exact',
    value: `/${service ?? '*'}/${method ?? '*'}`,
  };
  const grpc = {
    ...(service === undefined ? {} : { service }),
    ...(method === undefined ? {} : { method }),
  };
  return { path, headers, queryParams: [], method: 'POST', grpc };
}

/** Filters Linkerd's index does not implement on inbound gateway routes: admitted, route ignored. */
const IGNORED_GATEWAY_FILTERS = ['RequestMirror', 'URLRewrite', 'ExtensionRef'];

interface ReadFilters {
  readonly filters: RouteFilter[];
  readonly ignoredBecause?: string;
}

function readRedirect(ctx: ReadContext, r: Path): RouteFilter | undefined {
  const status = ctx.get([...r, 'statusCode']) ?? 302; // the CRDs' default
  if (status !== 301 && status !== 302) {
    ctx.fail('POLICY_INVALID_FILTER', [...r, 'statusCode'], 'statusCode must be 301 or 302');
    return undefined;
  }
  const scheme = ctx.string([...r, 'scheme']);
  const hostname = ctx.string([...r, 'hostname']);
  const port = ctx.get([...r, 'port']);
  let path: string | undefined;
  if (ctx.record([...r, 'path']) !== undefined) {
    const full = ctx.string([...r, 'path', 'replaceFullPath']);
    const prefix = ctx.string([...r, 'path', 'replacePrefixMatch']);
    const written = full ?? prefix;
    const field = full !== undefined ? 'replaceFullPath' : 'replacePrefixMatch';
    if (written === undefined) {
      ctx.fail(
        'POLICY_INVALID_FILTER',
        [...r, 'path'],
        'RequestRedirect path must contain either replaceFullPath or replacePrefixMatch',
      );
      return undefined;
    }
    if (!written.startsWith('/')) {
      ctx.fail(
        'POLICY_RELATIVE_PATH',
        [...r, 'path', field],
        `RequestRedirect filters may only contain absolute paths; ${JSON.stringify(written)} does not start with /`,
      );
      return undefined;
    }
    path = written;
  }
  return {
    type: 'RequestRedirect',
    statusCode: status,
    ...(scheme === undefined ? {} : { scheme }),
    ...(hostname === undefined ? {} : { hostname }),
    ...(path === undefined ? {} : { path }),
    ...(typeof port === 'number' ? { port } : {}),
  };
}

function readFilters(
  ctx: ReadContext,
  path: Path,
  kind: RouteKindName,
  group: string,
): ReadFilters {
  const filters: RouteFilter[] = [];
  let ignoredBecause: string | undefined;
  (ctx.list(path) ?? []).forEach((_, i) => {
    const base = [...path, i];
    const type = ctx.string([...base, 'type'], { required: true });
    if (type === 'RequestHeaderModifier' || type === 'ResponseHeaderModifier') {
      const field =
        type === 'RequestHeaderModifier' ? 'requestHeaderModifier' : 'responseHeaderModifier';
      filters.push({
        type,
        set: ctx.namedValues([...base, field, 'set']),
        add: ctx.namedValues([...base, field, 'add']),
        remove: (ctx.strings([...base, field, 'remove']) ?? []).map((h) => h.toLowerCase()),
      });
    } else if (type === 'RequestRedirect' && kind === 'HTTPRoute') {
      const filter = readRedirect(ctx, [...base, 'requestRedirect']);
      if (filter !== undefined) filters.push(filter);
    } else if (
      type !== undefined &&
      group === GATEWAY_GROUP &&
      IGNORED_GATEWAY_FILTERS.includes(type)
    ) {
      // Admission lets these through (other controllers implement them); Linkerd's inbound
      // index cannot, and ignores the whole route.
      ignoredBecause ??= `its ${type} filter is not supported on inbound routes, so Linkerd's index ignores the route`;
    } else if (type !== undefined) {
      ctx.fail(
        'POLICY_UNSUPPORTED_FILTER',
        [...base, 'type'],
        `filter ${JSON.stringify(type)} is not supported on inbound ${kind}s`,
        kind === 'HTTPRoute'
          ? 'inbound routes support RequestHeaderModifier, ResponseHeaderModifier and RequestRedirect'
          : 'inbound GRPCRoutes support RequestHeaderModifier and ResponseHeaderModifier',
      );
    }
  });
  return ignoredBecause === undefined ? { filters } : { filters, ignoredBecause };
}

type RouteKindName = 'HTTPRoute' | 'GRPCRoute';

/** Gateway backendRefs: a Service (the default kind) must give a port (Linkerd's admission). */
function checkBackendRefs(ctx: ReadContext, base: Path): void {
  (ctx.list([...base, 'backendRefs']) ?? []).forEach((_, i) => {
    const ref = [...base, 'backendRefs', i];
    const group = ctx.string([...ref, 'group']) ?? '';
    const kind = ctx.string([...ref, 'kind']) ?? 'Service';
    const port = ctx.get([...ref, 'port']);
    const isService = (group === '' || group === 'core') && kind === 'Service';
    if (isService && (port === undefined || port === null || port === 0))
      ctx.fail(
        'POLICY_INVALID_BACKEND',
        ref,
        'invalid backendRef: cannot reference a Service without a port',
      );
  });
}

function readTimeouts(ctx: ReadContext, base: Path): string | undefined {
  const timeout = ctx.string([...base, 'timeouts', 'request']);
  const backend = ctx.string([...base, 'timeouts', 'backendRequest']);
  const requestMs = timeout === undefined ? undefined : parseGatewayDuration(timeout);
  const backendMs = backend === undefined ? undefined : parseGatewayDuration(backend);
  if (timeout !== undefined && requestMs === undefined)
    ctx.fail(
      'POLICY_INVALID_DURATION',
      [...base, 'timeouts', 'request'],
      `timeout ${JSON.stringify(timeout)} is not a duration like 10s or 500ms`,
    );
  if (backend !== undefined && backendMs === undefined)
    ctx.fail(
      'POLICY_INVALID_DURATION',
      [...base, 'timeouts', 'backendRequest'],
      `timeout ${JSON.stringify(backend)} is not a duration like 10s or 500ms`,
    );
  // A request timeout of 0s means none, so it bounds nothing.
  if (requestMs !== undefined && requestMs > 0 && backendMs !== undefined && backendMs > requestMs)
    ctx.fail(
      'POLICY_INVALID_DURATION',
      [...base, 'timeouts', 'backendRequest'],
      `backendRequest timeout (${backend ?? ''}) must not be greater than request timeout (${timeout ?? ''})`,
    );
  return timeout;
}

export function readRoute(
  ctx: ReadContext,
  meta: ObjectMeta,
  kind: RouteKindName,
): HttpRoute | undefined {
  const group = meta.apiVersion.split('/')[0] ?? GATEWAY_GROUP;
  const parentRead = readParents(ctx, meta, group);
  let ignoredBecause = parentRead.ignoredBecause;
  const hostnames: string[] = [];
  (ctx.strings(['spec', 'hostnames']) ?? []).forEach((host, i) => {
    const lower = host.toLowerCase();
    if (!HOSTNAME.test(lower)) {
      ctx.fail(
        'POLICY_INVALID_HOSTNAME',
        ['spec', 'hostnames', i],
        `hostname ${JSON.stringify(host)} must be a DNS name, optionally with one leading "*."`,
      );
    } else hostnames.push(lower);
  });
  const rules: RouteRule[] = [];
  const ruleList = ctx.list(['spec', 'rules']) ?? [{}];
  ruleList.forEach((_, r) => {
    const base: Path = ctx.get(['spec', 'rules']) === undefined ? [] : ['spec', 'rules', r];
    const matches: RouteMatchSpec[] = [];
    const matchList = base.length === 0 ? undefined : ctx.list([...base, 'matches']);
    if (matchList === undefined || matchList.length === 0) {
      // Gateway API: no matches is one match on PathPrefix "/". For gRPC the proxy's implicit
      // match of a rule without matches takes every request, whatever its method or path.
      matches.push({
        path: { type: 'PathPrefix', value: '/' },
        headers: [],
        queryParams: [],
        ...(kind === 'GRPCRoute' ? { grpc: {} } : {}),
      });
    } else {
      matchList.forEach((__, m) => {
        const spec =
          kind === 'HTTPRoute'
            ? readHttpMatch(ctx, [...base, 'matches', m])
            : readGrpcMatch(ctx, [...base, 'matches', m]);
        if (spec !== undefined) matches.push(spec);
      });
    }
    const read =
      base.length === 0 ? { filters: [] } : readFilters(ctx, [...base, 'filters'], kind, group);
    ignoredBecause ??= read.ignoredBecause;
    if (base.length > 0 && group === GATEWAY_GROUP) checkBackendRefs(ctx, base);
    const timeout = base.length === 0 ? undefined : readTimeouts(ctx, base);
    const at = ctx.at(base.length === 0 ? ['spec'] : base);
    rules.push(
      timeout === undefined
        ? { matches, filters: read.filters, at }
        : { matches, filters: read.filters, timeout, at },
    );
  });
  const statusParents = readParentStatuses(ctx);
  if (ctx.problems.length > 0) return undefined;
  return {
    meta,
    kind,
    group,
    parents: parentRead.parents,
    hostnames,
    rules,
    ...(ignoredBecause === undefined ? {} : { ignoredBecause }),
    ...(statusParents === undefined ? {} : { statusParents }),
  };
}

/** Gateway API durations (`1h`, `10s`, `500ms`, `1m30s`) in milliseconds; undefined when malformed. */
export function parseGatewayDuration(text: string): number | undefined {
  const match = /^(?:(\d{1,5})h)?(?:(\d{1,5})m(?!s))?(?:(\d{1,5})s)?(?:(\d{1,5})ms)?$/.exec(text);
  if (match === null || text === '') return undefined;
  const [, h, m, s, ms] = match;
  return (
    Number(h ?? 0) * 3_600_000 + Number(m ?? 0) * 60_000 + Number(s ?? 0) * 1000 + Number(ms ?? 0)
  );
}
