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

const HOSTNAME = /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'];
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]+$/;

/** Compiles a route regular expression (RE2 syntax, as Linkerd's proxy reads it). */
export function compileRegex(ctx: ReadContext, path: Path, source: string): Pattern | undefined {
  const pattern = compilePattern(source);
  if ('error' in pattern) {
    return ctx.fail(
      path,
      'POLICY_INVALID_REGEX',
      `invalid regular expression ${JSON.stringify(source)}: ${pattern.error}`,
    );
  }
  return pattern;
}

function readParents(ctx: ReadContext, meta: ObjectMeta): ParentRef[] {
  const parents: ParentRef[] = [];
  (ctx.list(['spec', 'parentRefs']) ?? []).forEach((_, i) => {
    const base = ['spec', 'parentRefs', i];
    const name = ctx.string([...base, 'name'], { required: true, nonEmpty: true });
    const writtenGroup = ctx.string([...base, 'group']);
    const writtenKind = ctx.string([...base, 'kind']);
    const group = writtenGroup ?? 'gateway.networking.k8s.io';
    const kind = writtenKind ?? 'Gateway';
    if (name === undefined) return;
    if (writtenGroup === undefined && writtenKind === undefined) {
      // `parentRefs: [{ name: web }]` means a Gateway; kept so the linter can ask whether the
      // Server of that name was meant (it never is attached this way).
      parents.push({
        name,
        inbound: false,
        defaultKind: true,
        ignoredBecause:
          'it gives no group or kind, so it names a Gateway (the Gateway API default), not a Server',
        at: ctx.at(base),
      });
      return;
    }
    // Only Servers are inbound parents; Gateways and Services belong to other controllers.
    if (kind !== 'Server') return;
    if (group !== 'policy.linkerd.io') {
      ctx.fail(
        [...base, 'group'],
        'POLICY_INVALID_PARENT',
        `a Server parentRef needs group policy.linkerd.io, found ${writtenGroup === undefined ? 'none (the default is gateway.networking.k8s.io)' : JSON.stringify(group)}`,
        'set group: policy.linkerd.io',
      );
      return;
    }
    const namespace = ctx.string([...base, 'namespace']);
    const at = ctx.at(base);
    let ignoredBecause: string | undefined;
    if (namespace !== undefined && namespace !== meta.namespace)
      ignoredBecause = `it names another namespace (${namespace})`;
    else if (ctx.get([...base, 'port']) !== undefined)
      ignoredBecause = 'it sets port, which inbound parents do not support';
    else if (ctx.get([...base, 'sectionName']) !== undefined)
      ignoredBecause = 'it sets sectionName, which inbound parents do not support';
    parents.push(
      ignoredBecause === undefined
        ? { name, inbound: true, at }
        : { name, inbound: false, ignoredBecause, at },
    );
  });
  return parents;
}

function readValueMatches(ctx: ReadContext, path: Path, lower: boolean): ValueMatch[] {
  const out: ValueMatch[] = [];
  (ctx.list(path) ?? []).forEach((_, i) => {
    const base = [...path, i];
    const type = ctx.string([...base, 'type']) ?? 'Exact';
    const rawName = ctx.string([...base, 'name'], { required: true, nonEmpty: true });
    const value = ctx.string([...base, 'value'], { required: true });
    if (rawName !== undefined && lower && !HEADER_NAME.test(rawName)) {
      ctx.fail(
        [...base, 'name'],
        'POLICY_INVALID_MATCH',
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
        [...base, 'type'],
        'POLICY_INVALID_MATCH',
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
        [...path, 'value'],
        'POLICY_RELATIVE_PATH',
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
    [...path, 'type'],
    'POLICY_INVALID_MATCH',
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
      [...base, 'method'],
      'POLICY_INVALID_MATCH',
      `unknown method ${JSON.stringify(method)}, expected one of ${METHODS.join(', ')}`,
    );
    return undefined;
  }
  if (path === undefined) return undefined;
  return method === undefined
    ? { path, headers, queryParams }
    : { path, headers, queryParams, method };
}

/** A GRPCRoute method match, expressed as the HTTP/2 request it selects (`POST /svc/method`). */
function readGrpcMatch(ctx: ReadContext, base: Path): RouteMatchSpec | undefined {
  const headers = readValueMatches(ctx, [...base, 'headers'], true);
  const service = ctx.string([...base, 'method', 'service']);
  const method = ctx.string([...base, 'method', 'method']);
  const type = ctx.string([...base, 'method', 'type']) ?? 'Exact';
  if (type !== 'Exact') {
    ctx.fail(
      [...base, 'method', 'type'],
      'POLICY_INVALID_MATCH',
      'only Exact gRPC method matches are supported',
    );
    return undefined;
  }
  let path: PathMatch;
  if (service !== undefined && method !== undefined)
    path = { type: 'Exact', value: `/${service}/${method}` };
  else if (service !== undefined) path = { type: 'PathPrefix', value: `/${service}` };
  else if (method !== undefined) {
    const escaped = method.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    path = {
      type: 'RegularExpression',
      value: `/[^/]+/${escaped}`,
      regex: compilePattern(`/[^/]+/${escaped}`) as Pattern,
    };
  } else path = { type: 'PathPrefix', value: '/' };
  return { path, headers, queryParams: [], method: 'POST' };
}

function readFilters(ctx: ReadContext, path: Path): RouteFilter[] {
  const out: RouteFilter[] = [];
  (ctx.list(path) ?? []).forEach((_, i) => {
    const base = [...path, i];
    const type = ctx.string([...base, 'type'], { required: true });
    if (type === 'RequestHeaderModifier' || type === 'ResponseHeaderModifier') {
      const field =
        type === 'RequestHeaderModifier' ? 'requestHeaderModifier' : 'responseHeaderModifier';
      out.push({
        type,
        set: ctx.namedValues([...base, field, 'set']),
        add: ctx.namedValues([...base, field, 'add']),
        remove: (ctx.strings([...base, field, 'remove']) ?? []).map((h) => h.toLowerCase()),
      });
    } else if (type === 'RequestRedirect') {
      const r = [...base, 'requestRedirect'];
      const status = ctx.get([...r, 'statusCode']) ?? 302;
      if (status !== 301 && status !== 302) {
        ctx.fail([...r, 'statusCode'], 'POLICY_INVALID_FILTER', 'statusCode must be 301 or 302');
        return;
      }
      const scheme = ctx.string([...r, 'scheme']);
      const hostname = ctx.string([...r, 'hostname']);
      const full = ctx.string([...r, 'path', 'replaceFullPath']);
      const port = ctx.get([...r, 'port']);
      out.push({
        type,
        statusCode: status,
        ...(scheme === undefined ? {} : { scheme }),
        ...(hostname === undefined ? {} : { hostname }),
        ...(full === undefined ? {} : { path: full }),
        ...(typeof port === 'number' ? { port } : {}),
      });
    } else if (type !== undefined) {
      ctx.fail(
        [...base, 'type'],
        'POLICY_UNSUPPORTED_FILTER',
        `filter ${JSON.stringify(type)} is not supported on inbound routes`,
        'inbound routes support RequestHeaderModifier, ResponseHeaderModifier and RequestRedirect',
      );
    }
  });
  return out;
}

export function readRoute(
  ctx: ReadContext,
  meta: ObjectMeta,
  kind: 'HTTPRoute' | 'GRPCRoute',
): HttpRoute | undefined {
  const parents = readParents(ctx, meta);
  const hostnames: string[] = [];
  (ctx.strings(['spec', 'hostnames']) ?? []).forEach((host, i) => {
    const lower = host.toLowerCase();
    if (!HOSTNAME.test(lower)) {
      ctx.fail(
        ['spec', 'hostnames', i],
        'POLICY_INVALID_HOSTNAME',
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
      // Gateway API: no matches is one match on PathPrefix "/".
      matches.push({
        path: { type: 'PathPrefix', value: '/' },
        headers: [],
        queryParams: [],
        ...(kind === 'GRPCRoute' ? { method: 'POST' } : {}),
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
    const filters = base.length === 0 ? [] : readFilters(ctx, [...base, 'filters']);
    const timeout = base.length === 0 ? undefined : ctx.string([...base, 'timeouts', 'request']);
    if (timeout !== undefined && parseDuration(timeout) === undefined) {
      ctx.fail(
        [...base, 'timeouts', 'request'],
        'POLICY_INVALID_DURATION',
        `timeout ${JSON.stringify(timeout)} is not a duration like 10s or 500ms`,
      );
    }
    const at = ctx.at(base.length === 0 ? ['spec'] : base);
    rules.push(
      timeout === undefined ? { matches, filters, at } : { matches, filters, timeout, at },
    );
  });
  if (ctx.problems.length > 0) return undefined;
  return { meta, kind, parents, hostnames, rules };
}

/** Gateway API durations (`1h`, `10s`, `500ms`, `1m30s`) in milliseconds; undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const match = /^(?:(\d{1,5})h)?(?:(\d{1,5})m(?!s))?(?:(\d{1,5})s)?(?:(\d{1,5})ms)?$/.exec(text);
  if (match === null || text === '') return undefined;
  const [, h, m, s, ms] = match;
  return (
    Number(h ?? 0) * 3_600_000 + Number(m ?? 0) * 60_000 + Number(s ?? 0) * 1000 + Number(ms ?? 0)
  );
}
