/**
 * Lints about routes: parents missing, conflicted or ignored; route-level policies that cannot
 * restrict anything; exclusive rewrite policies that collide. (Shadowed rules: shadowed-rules.ts.)
 */
import { compareText } from '../../base/index.js';
import { formatSelector, matches, overlap, requirement, selectorOf } from '../../selector/index.js';
import type { Requirement, Selector } from '../../selector/index.js';
import type { Authorization } from '../compile/authorizations.js';
import type { PolicyModel } from '../compile/model.js';
import { REF_INVALID } from '../compile/rejections.js';
import { HTTP_VERSIONS } from '../compile/route-labels.js';
import type { IdentityMatcher } from '../identity.js';
import { identityMatches } from '../identity.js';
import { cidrCovers, cidrsIntersect } from '../networks.js';
import { objectName } from '../resources/read-context.js';
import { HEADER_PREFIX, PARAM_PREFIX } from '../resources/read-extension.js';
import type { CompiledRoute } from '../routes/route-table.js';
import type { HeaderRewritePolicy, PolicyProblem, Server } from '../types.js';

/** Routes that are not used for a parent they name. */
export function lintRouteStatus(model: PolicyModel): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  for (const s of model.attachments.statuses) {
    if (s.status === 'accepted') continue;
    if (s.status === 'invalid-parent') {
      out.push({
        severity: 'warning',
        code: REF_INVALID,
        object: objectName(s.route.meta),
        file: s.at.file,
        line: s.at.line,
        message: `${s.reason}, so the route does not apply there`,
      });
      continue;
    }
    const code =
      s.status === 'no-parent'
        ? 'POLICY_ROUTE_PARENT_MISSING'
        : s.status === 'conflicted'
          ? 'POLICY_ROUTE_CONFLICTED'
          : 'POLICY_ROUTE_PARENT_IGNORED';
    out.push({
      severity: s.status === 'no-parent' ? 'error' : 'warning',
      code,
      object: objectName(s.route.meta),
      file: s.at.file,
      line: s.at.line,
      message: `${s.reason}; the route does not apply there`,
    });
  }
  return out;
}

/** Routes on opaque or TLS Servers (never consulted) and route classes that select no route. */
export function lintIdleRoutes(model: PolicyModel): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  for (const server of model.resources.servers) {
    const routes = model.serverModel(server).routes;
    if (
      (server.proxyProtocol === 'opaque' || server.proxyProtocol === 'TLS') &&
      routes.length > 0
    ) {
      out.push({
        severity: 'warning',
        code: 'POLICY_ROUTE_ON_OPAQUE',
        object: objectName(server.meta),
        file: server.meta.at.file,
        line: server.meta.at.line,
        message: `Server ${server.meta.name} is ${server.proxyProtocol}: its ${routes.length} route(s) (${routes
          .map((r) => r.name)
          .slice(0, 3)
          .join(
            ', ',
          )}${routes.length > 3 ? ', …' : ''}) are never consulted and their route-level policies never apply`,
        hint: 'authorize opaque and TLS ports with Server-level policies, or set proxyProtocol to an HTTP protocol',
      });
    }
    // On an `unknown` Server the version label comes from the connection: a class that covers
    // its routes on HTTP/1.1 or HTTP/2 connections selects something.
    let detected: CompiledRoute[] | undefined;
    const versioned = (): CompiledRoute[] =>
      (detected ??=
        server.proxyProtocol === 'unknown'
          ? HTTP_VERSIONS.flatMap((v) => model.serverModel(server, v).routes)
          : []);
    for (const c of model.attachments.classesOf(server)) {
      if (routes.some((r) => matches(c.routeSelector, r.labels))) continue;
      if (versioned().some((r) => matches(c.routeSelector, r.labels))) continue;
      out.push({
        severity: 'warning',
        code: 'POLICY_CLASS_SELECTS_NOTHING',
        object: objectName(c.meta),
        file: c.meta.at.file,
        line: c.meta.at.line,
        message: `route selector ${formatSelector(c.routeSelector) || '(everything)'} matches none of the ${routes.length} route(s) of Server ${server.meta.name}, so policies targeting this class apply to nothing`,
      });
    }
  }
  return out;
}

function matcherCovers(outer: IdentityMatcher, inner: IdentityMatcher): boolean {
  if (inner.any) return outer.any;
  for (const e of inner.exact) if (!identityMatches(outer, e)) return false;
  for (const s of inner.suffixes) {
    if (!outer.any && !outer.suffixes.some((t) => s === t || s.endsWith(`.${t}`))) return false;
  }
  return true;
}

/** Does `outer` admit every client `inner` admits? Sufficient, not necessary: never a false alarm. */
export function authorizationCovers(outer: Authorization, inner: Authorization): boolean {
  const netsOk = inner.networks.every((t) =>
    outer.networks.some(
      (o) => cidrCovers(o.cidr, t.cidr) && o.except.every((e) => !cidrsIntersect(e, t.cidr)),
    ),
  );
  if (!netsOk) return false;
  const a = outer.authentication;
  const b = inner.authentication;
  if (a === 'unauthenticated') return true;
  if (b === 'unauthenticated') return false;
  if (a === 'tls') return true;
  if (b === 'tls') return false;
  return a.every((o) => b.some((i) => matcherCovers(o, i)));
}

/** Route-level policies that a Server-level authorization already makes redundant. */
export function lintIneffectiveRoutePolicies(model: PolicyModel): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  const seen = new Set<string>();
  for (const server of model.resources.servers) {
    const serverModel = model.serverModel(server);
    const broad = serverModel.authorizations.filter((a) => a.kind !== 'localhost');
    for (const route of serverModel.routes) {
      for (const authz of route.authorizations) {
        const wider = broad.find((s) => authorizationCovers(s, authz));
        if (wider === undefined) continue;
        const k = `${server.meta.name}|${authz.name}|${wider.name}`;
        if (seen.has(k)) continue;
        seen.add(k);
        out.push({
          severity: 'warning',
          code: 'POLICY_ROUTE_POLICY_NO_EFFECT',
          object: `AuthorizationPolicy ${server.meta.namespace}/${authz.name.replace(/^authorizationpolicy\//, '')}`,
          file: authz.at?.file,
          line: authz.at?.line,
          message: `${authz.name} on route ${route.name} cannot restrict anything: ${wider.name} on Server ${server.meta.name} already admits every client it admits, and a route's authorizations include all of its Server's`,
          hint: 'move the broad authorization from the Server to the routes that need it',
        });
      }
    }
  }
  return out;
}

/** Fixes the route's own labels for the keys a selector mentions; headers and params stay free. */
function routeConstraints(route: CompiledRoute, keys: readonly string[]): Requirement[] {
  const out: Requirement[] = [];
  for (const k of new Set(keys)) {
    if (k.startsWith(HEADER_PREFIX)) continue;
    if (
      k.startsWith(PARAM_PREFIX) &&
      route.template?.template.params.includes(k.slice(PARAM_PREFIX.length))
    )
      continue;
    const value = route.labels[k];
    out.push(
      typeof value === 'string' ? requirement(k, 'In', [value]) : requirement(k, 'DoesNotExist'),
    );
  }
  return out;
}

/** `a` restricted to one route: its requirements plus the route's fixed labels. */
function onRoute(a: Selector, extra: readonly Requirement[]): Selector {
  return a.kind === 'nothing' ? a : selectorOf([...a.requirements, ...extra]);
}

function examplePath(route: CompiledRoute, witness: Readonly<Record<string, string>>): string {
  if (route.template !== undefined) {
    return route.template.template.text.replace(
      /([:*])([A-Za-z][A-Za-z0-9_-]*)/g,
      (_, _kind: string, name: string) => witness[`${PARAM_PREFIX}${name}`] ?? 'x',
    );
  }
  const m = route.rules[0]?.matches[0];
  return m === undefined || m.path.type === 'RegularExpression' ? '/' : m.path.value;
}

/** Pairs of exclusive HeaderRewritePolicies that can apply to one request, with a witness request. */
export function lintRewriteCollisions(model: PolicyModel): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  const seen = new Set<string>();
  const check = (
    server: Server,
    route: CompiledRoute,
    p: HeaderRewritePolicy,
    q: HeaderRewritePolicy,
  ): void => {
    for (const ra of p.rules) {
      for (const rb of q.rules) {
        const keys = [...ra.match.requirements, ...rb.match.requirements].map((x) => x.key);
        // Do both rules match one request on this route? The selector algebra answers with a
        // witness label set: its header labels are the witness request's headers.
        const result = overlap(onRoute(ra.match, routeConstraints(route, keys)), rb.match);
        if (!result.overlap) continue;
        const w = result.witness;
        const headers = Object.fromEntries(
          Object.keys(w)
            .filter((k) => k.startsWith(HEADER_PREFIX))
            .sort(compareText)
            .map((k) => [k.slice(HEADER_PREFIX.length), w[k] as string]),
        );
        const method =
          route.labels['http.linkerd.io/method'] ?? route.rules[0]?.matches[0]?.method ?? 'GET';
        out.push({
          severity: 'warning',
          code: 'POLICY_REWRITE_COLLISION',
          object: objectName(q.meta),
          file: q.meta.at.file,
          line: q.meta.at.line,
          message: `HeaderRewritePolicies ${p.meta.name} and ${q.meta.name} can both apply to one request on route ${route.name} of Server ${server.meta.name}; they are exclusive, so only ${p.meta.name} (older, then by name) applies`,
          hint: 'narrow the rule matches so no request satisfies both, or merge the policies',
          witness: { request: { method, path: examplePath(route, w), headers } },
        });
        return;
      }
    }
  };
  for (const server of model.resources.servers) {
    const routes = model.serverModel(server).routes;
    for (const route of routes) {
      const list = route.rewrites;
      for (let i = 0; i < list.length; i++) {
        for (let j = i + 1; j < list.length; j++) {
          const p = list[i] as HeaderRewritePolicy;
          const q = list[j] as HeaderRewritePolicy;
          const k = `${p.meta.namespace}/${p.meta.name}|${q.meta.name}`;
          if (seen.has(k)) continue;
          const before = out.length;
          check(server, route, p, q);
          if (out.length > before) seen.add(k);
        }
      }
    }
  }
  return out;
}
