/**
 * Readers for the roadmap extension (`policy.labelwise.dev/v1alpha1`): HttpRouteGroup,
 * HttpRouteBinding, HttpRouteClass, TimeoutPolicy and HeaderRewritePolicy (the gRPC kinds and
 * TelemetryPolicy are in read-grpc.ts and read-telemetry.ts).
 */
import { LabelwiseError } from '../../base/errors.js';
import { compareText } from '../../base/text.js';
import {
  fromLabelSelector,
  requirement,
  selectorOf,
  validateLabels,
} from '../../selector/index.js';
import type { Labels, Operator, Requirement } from '../../selector/index.js';
import { parseTemplate } from '../path-template.js';
import type {
  GroupRoute,
  HeaderRewritePolicy,
  HttpRouteBinding,
  HttpRouteClass,
  HttpRouteGroup,
  ObjectMeta,
  PolicyTarget,
  RewriteRule,
  TimeoutPolicy,
  ValueMatch,
} from '../types.js';
import type { Path, ReadContext } from './read-context.js';
import { parseGatewayDuration, readValueMatches } from './read-routes.js';

/** Route labels derived by the model; users may not set them. */
export const METHOD_LABEL = 'http.linkerd.io/method';
export const PATH_LABEL = 'http.linkerd.io/path';
/** `HTTP/1.1` or `HTTP/2`, from the Server's proxyProtocol (absent for `unknown`). */
export const VERSION_LABEL = 'http.linkerd.io/version';
export const PARAM_PREFIX = 'path.http.linkerd.io/';
/** Request header `x` appears to rewrite-rule selectors as the label `header.http.labelwise.dev/x`. */
export const HEADER_PREFIX = 'header.http.labelwise.dev/';
/** Labels naming the binding and group a route came from (for classes and the linter). */
export const BINDING_LABEL = 'policy.labelwise.dev/binding';
export const GROUP_LABEL = 'policy.labelwise.dev/group';
/** Labels of a GrpcService method: the service and method names, and the GrpcService object. */
export const GRPC_SERVICE_LABEL = 'grpc.linkerd.io/service';
export const GRPC_METHOD_LABEL = 'grpc.linkerd.io/method';
export const GRPC_OBJECT_LABEL = 'policy.labelwise.dev/grpc-service';
const DERIVED = new Set([
  METHOD_LABEL,
  PATH_LABEL,
  VERSION_LABEL,
  BINDING_LABEL,
  GROUP_LABEL,
  GRPC_SERVICE_LABEL,
  GRPC_METHOD_LABEL,
  GRPC_OBJECT_LABEL,
]);

export const METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
];
export const TARGET_KINDS: readonly PolicyTarget['kind'][] = [
  'Server',
  'HttpRouteBinding',
  'HttpRouteClass',
  'HTTPRoute',
  'GRPCRoute',
  'GrpcServiceBinding',
  'GrpcServiceClass',
];

const GROUP_ROUTE_FIELDS = ['methods', 'path', 'routeGroupRef', 'labels', 'headers', 'queryParams'];
const TARGET_FIELDS = ['group', 'kind', 'name'];

/** A stable text of a route's header and query matches, for the conflict check. */
function matchesKey(headers: readonly ValueMatch[], query: readonly ValueMatch[]): string {
  if (headers.length === 0 && query.length === 0) return '';
  const text = (m: ValueMatch): string => `${m.name}${m.type === 'Exact' ? '=' : '~'}${m.value}`;
  return ` headers[${headers.map(text).sort(compareText).join(',')}] query[${query.map(text).sort(compareText).join(',')}]`;
}

export function readRouteGroup(ctx: ReadContext, meta: ObjectMeta): HttpRouteGroup | undefined {
  const routes: GroupRoute[] = [];
  const shapes = new Map<string, string>();
  ctx.onlyFields(['spec'], ['routes'], 'an HttpRouteGroup spec');
  (ctx.list(['spec', 'routes'], { required: true }) ?? []).forEach((_, i) => {
    const route = readGroupRoute(ctx, ['spec', 'routes', i], shapes);
    if (route !== undefined) routes.push(route);
  });
  if (ctx.problems.length > 0) return undefined;
  return { meta, routes };
}

/** One route of a group; `shapes` (method and shape → where) finds conflicts in the group. */
function readGroupRoute(
  ctx: ReadContext,
  base: Path,
  shapes: Map<string, string>,
): GroupRoute | undefined {
  ctx.onlyFields(base, GROUP_ROUTE_FIELDS, 'a route of an HttpRouteGroup');
  ctx.onlyFields([...base, 'routeGroupRef'], ['name'], 'a routeGroupRef');
  const path = ctx.string([...base, 'path']);
  const headers = readValueMatches(ctx, [...base, 'headers'], true);
  const queryParams = readValueMatches(ctx, [...base, 'queryParams'], false);
  const ref = ctx.string([...base, 'routeGroupRef', 'name'], { nonEmpty: true });
  const methods = ctx.strings([...base, 'methods']) ?? [];
  methods.forEach((method, m) => {
    if (!METHODS.includes(method))
      ctx.fail(
        'POLICY_INVALID_MATCH',
        [...base, 'methods', m],
        `unknown method ${JSON.stringify(method)}`,
      );
  });
  const labels = readGroupLabels(ctx, base);
  if ((path === undefined) === (ref === undefined)) {
    ctx.fail('POLICY_INVALID_ROUTE', base, 'a route needs exactly one of path or routeGroupRef');
    return undefined;
  }
  if (path !== undefined) {
    const template = parseTemplate(path);
    if ('error' in template) {
      ctx.fail('POLICY_INVALID_TEMPLATE', [...base, 'path'], template.error);
      return undefined;
    }
    // Routes of one shape that need different headers or parameters do not conflict.
    const shape = `${template.shape}${matchesKey(headers, queryParams)}`;
    checkConflicts(ctx, base, path, methods, shape, shapes);
  }
  return {
    methods,
    ...(path === undefined ? {} : { path }),
    ...(ref === undefined ? {} : { routeGroupRef: ref }),
    headers,
    queryParams,
    labels,
    at: ctx.at(base),
  };
}

/** A route's (or gRPC method's) declared labels: valid Kubernetes labels, none derived. */
export function readGroupLabels(ctx: ReadContext, base: Path): Labels {
  const labels = ctx.stringMap([...base, 'labels']);
  for (const error of validateLabels(labels, 'kubernetes'))
    ctx.fail('POLICY_INVALID_LABEL', [...base, 'labels', error.source.label ?? ''], error.message);
  for (const key of Object.keys(labels)) {
    if (DERIVED.has(key) || key.startsWith(PARAM_PREFIX))
      ctx.fail(
        'POLICY_RESERVED_LABEL',
        [...base, 'labels', key],
        `label ${JSON.stringify(key)} is derived from the route and cannot be set`,
      );
  }
  return labels;
}

function checkConflicts(
  ctx: ReadContext,
  base: Path,
  path: string,
  methods: readonly string[],
  shape: string,
  shapes: Map<string, string>,
): void {
  for (const method of methods.length === 0 ? ['*'] : methods) {
    // Any-method routes conflict with every method of the same shape.
    const keys = method === '*' ? [...METHODS, '*'] : [method, '*'];
    const clash = keys.map((k) => shapes.get(`${k} ${shape}`)).find((v) => v !== undefined);
    if (clash !== undefined)
      ctx.fail(
        'POLICY_TEMPLATE_CONFLICT',
        [...base, 'path'],
        `${method === '*' ? 'any method' : method} ${path} conflicts with ${clash} in the same group`,
        'two routes of one group may not share a method and a path shape',
      );
    shapes.set(
      `${method} ${shape}`,
      `${method === '*' ? 'any method' : method} ${path} (routes[${String(base[base.length - 1])}])`,
    );
  }
}

export function readServerTarget(ctx: ReadContext): string | undefined {
  ctx.onlyFields(['spec', 'targetRef'], TARGET_FIELDS, 'a targetRef');
  const kind = ctx.string(['spec', 'targetRef', 'kind'], { required: true });
  const name = ctx.string(['spec', 'targetRef', 'name'], { required: true, nonEmpty: true });
  if (kind !== undefined && kind !== 'Server') {
    return ctx.fail(
      'POLICY_UNSUPPORTED_REF',
      ['spec', 'targetRef', 'kind'],
      `targetRef must be a Server, found ${JSON.stringify(kind)}`,
    );
  }
  return name;
}

export function readRouteBinding(ctx: ReadContext, meta: ObjectMeta): HttpRouteBinding | undefined {
  ctx.onlyFields(['spec'], ['targetRef', 'routeRefs'], 'an HttpRouteBinding spec');
  const server = readServerTarget(ctx);
  const groups: string[] = [];
  (ctx.list(['spec', 'routeRefs'], { required: true }) ?? []).forEach((_, i) => {
    ctx.onlyFields(['spec', 'routeRefs', i], ['group', 'kind', 'name'], 'a routeRef');
    const name = ctx.string(['spec', 'routeRefs', i, 'name'], { required: true, nonEmpty: true });
    if (name !== undefined) groups.push(name);
  });
  if (server === undefined || ctx.problems.length > 0) return undefined;
  return { meta, server, groups };
}

export function readRouteClass(ctx: ReadContext, meta: ObjectMeta): HttpRouteClass | undefined {
  ctx.onlyFields(['spec'], ['targetRef', 'routeSelector'], 'an HttpRouteClass spec');
  const server = readServerTarget(ctx);
  if (!ctx.has(['spec', 'routeSelector']))
    ctx.fail('POLICY_MISSING_FIELD', ['spec'], 'spec.routeSelector is required');
  // Route labels hold paths and templates, which are not Kubernetes label values: no profile.
  const { selector, errors } = fromLabelSelector(ctx.get(['spec', 'routeSelector']), {
    path: 'spec.routeSelector',
    profile: 'none',
  });
  for (const error of errors)
    ctx.fail('POLICY_INVALID_SELECTOR', ['spec', 'routeSelector'], error.message);
  if (server === undefined || selector === undefined || ctx.problems.length > 0) return undefined;
  return { meta, server, routeSelector: selector };
}

export function readTarget(ctx: ReadContext): PolicyTarget | undefined {
  ctx.onlyFields(['spec', 'targetRef'], TARGET_FIELDS, 'a targetRef');
  const kind = ctx.string(['spec', 'targetRef', 'kind'], { required: true });
  const name = ctx.string(['spec', 'targetRef', 'name'], { required: true, nonEmpty: true });
  if (kind === undefined || name === undefined) return undefined;
  if (!(TARGET_KINDS as readonly string[]).includes(kind)) {
    return ctx.fail(
      'POLICY_UNSUPPORTED_REF',
      ['spec', 'targetRef', 'kind'],
      `targetRef kind must be one of ${TARGET_KINDS.join(', ')}, found ${JSON.stringify(kind)}`,
    );
  }
  return { kind: kind as PolicyTarget['kind'], name, at: ctx.at(['spec', 'targetRef']) };
}

export function readTimeoutPolicy(ctx: ReadContext, meta: ObjectMeta): TimeoutPolicy | undefined {
  ctx.onlyFields(['spec'], ['targetRef', 'timeout'], 'a TimeoutPolicy spec');
  const target = readTarget(ctx);
  const timeout = ctx.string(['spec', 'timeout'], { required: true });
  const ms = timeout === undefined ? undefined : parseGatewayDuration(timeout);
  if (timeout !== undefined && ms === undefined) {
    ctx.fail(
      'POLICY_INVALID_DURATION',
      ['spec', 'timeout'],
      `timeout ${JSON.stringify(timeout)} is not a duration like 10s or 500ms`,
    );
  }
  if (target === undefined || timeout === undefined || ms === undefined || ctx.problems.length > 0)
    return undefined;
  return { meta, target, timeout, ms };
}

function readRewriteMatch(ctx: ReadContext, path: Path): Requirement[] {
  const out: Requirement[] = [];
  (ctx.list(path) ?? []).forEach((_, i) => {
    const isHeader = ctx.get([...path, i, 'header']) !== undefined;
    ctx.onlyFields(
      [...path, i],
      [isHeader ? 'header' : 'label'],
      'a rewrite match (header or label)',
    );
    const base = [...path, i, isHeader ? 'header' : 'label'];
    ctx.onlyFields(base, ['key', 'op', 'values'], 'a rewrite match term');
    const key = ctx.string([...base, 'key'], { required: true, nonEmpty: true });
    const op = ctx.string([...base, 'op'], { required: true });
    const values = ctx.strings([...base, 'values']) ?? [];
    if (key === undefined || op === undefined) return;
    try {
      out.push(
        requirement(
          isHeader ? `${HEADER_PREFIX}${key.toLowerCase()}` : key,
          op as Operator,
          values,
          { path: `${base.join('.')}` },
        ),
      );
    } catch (error) {
      if (!(error instanceof LabelwiseError)) throw error;
      ctx.fail('POLICY_INVALID_SELECTOR', [...base, 'op'], error.message);
    }
  });
  return out;
}

export function readHeaderRewritePolicy(
  ctx: ReadContext,
  meta: ObjectMeta,
): HeaderRewritePolicy | undefined {
  ctx.onlyFields(['spec'], ['targetRef', 'rules'], 'a HeaderRewritePolicy spec');
  const target = readTarget(ctx);
  const rules: RewriteRule[] = [];
  (ctx.list(['spec', 'rules'], { required: true }) ?? []).forEach((_, i) => {
    const base = ['spec', 'rules', i];
    ctx.onlyFields(base, ['set', 'clear', 'match'], 'a rewrite rule');
    const set = ctx.stringMap([...base, 'set']);
    const clear = (ctx.strings([...base, 'clear']) ?? []).map((h) => h.toLowerCase());
    const lowered: Record<string, string> = Object.create(null);
    for (const [k, v] of Object.entries(set)) lowered[k.toLowerCase()] = v;
    if (Object.keys(lowered).length === 0 && clear.length === 0) {
      ctx.fail('POLICY_INVALID_REWRITE', base, 'a rewrite rule needs set or clear');
    }
    rules.push({
      set: lowered,
      clear,
      match: selectorOf(readRewriteMatch(ctx, [...base, 'match'])),
    });
  });
  if (target === undefined || ctx.problems.length > 0) return undefined;
  return { meta, target, rules };
}
