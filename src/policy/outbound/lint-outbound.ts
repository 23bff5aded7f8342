/**
 * Lints of the outbound side (docs/policy.md, "Lints"): the mistakes Linkerd accepts and then
 * turns into 500s, silent defaults or traffic nobody meant to allow.
 */
import { pushAll } from '../../base/index.js';
import { shadowedOn } from '../lint/shadowed-rules.js';
import type { CompiledRoute } from '../routes/route-table.js';
import { compareRoutes } from '../routes/route-table.js';
import type { PolicyProblem, PolicyResources } from '../types.js';
import { compiled } from './outbound-index.js';
import type { OutboundBackend, OutboundParent, OutboundRoute, OutboundRule } from './types.js';

function objectOf(route: OutboundRoute): string {
  return `${route.kind} ${route.meta.namespace}/${route.meta.name}`;
}

interface Known {
  readonly services: ReadonlyMap<string, readonly number[]>;
  readonly egress: ReadonlySet<string>;
}

function known(resources: PolicyResources): Known {
  return {
    services: new Map(
      (resources.services ?? []).map((s) => [
        `${s.meta.namespace}/${s.meta.name}`,
        s.ports.map((p) => p.port),
      ]),
    ),
    egress: new Set(
      (resources.egressNetworks ?? []).map((n) => `${n.meta.namespace}/${n.meta.name}`),
    ),
  };
}

/** Annotations of Services and EgressNetworks Linkerd could not parse and replaced by defaults. */
function lintIgnoredAnnotations(resources: PolicyResources): PolicyProblem[] {
  const parents = [...(resources.services ?? []), ...(resources.egressNetworks ?? [])];
  return parents.flatMap((p) =>
    p.config.ignored.map((i) => ({
      severity: 'warning' as const,
      code: 'POLICY_OUTBOUND_ANNOTATION_IGNORED' as const,
      object: `${p.meta.kind} ${p.meta.namespace}/${p.meta.name}`,
      file: p.meta.at.file,
      line: p.meta.at.line,
      path: 'metadata.annotations',
      message: `${i.annotation}: ${i.reason}; Linkerd logs this and uses the default, as if the annotation were absent`,
      hint: 'durations are a whole number and one unit (ms, s, m, h, d); see docs/policy.md, "Outbound annotations"',
    })),
  );
}

function parentMissing(route: OutboundRoute, p: OutboundParent, k: Known): PolicyProblem[] {
  const key = `${p.namespace}/${p.name}`;
  const exists = p.kind === 'Service' ? k.services.has(key) : k.egress.has(key);
  const ports = k.services.get(key);
  if (exists && (p.port === undefined || ports === undefined || ports.includes(p.port))) return [];
  return [
    {
      severity: 'error',
      code: 'POLICY_OUTBOUND_PARENT_MISSING',
      object: objectOf(route),
      file: p.at.file,
      line: p.at.line,
      ...(p.at.path === undefined ? {} : { path: p.at.path }),
      message: exists
        ? `parent Service ${key} has no port ${p.port ?? ''}: the route applies to no request`
        : `parent ${p.kind} ${key} does not exist: the route is not accepted and applies to no request`,
    },
  ];
}

function backendProblem(
  route: OutboundRoute,
  b: OutboundBackend,
  k: Known,
  parents: readonly OutboundParent[],
): PolicyProblem | undefined {
  const key = `${b.namespace}/${b.name}`;
  const at = {
    file: b.at.file,
    line: b.at.line,
    ...(b.at.path === undefined ? {} : { path: b.at.path }),
  };
  const base = { severity: 'error' as const, object: objectOf(route), ...at };
  if (b.kind === 'invalid')
    return {
      ...base,
      code: 'POLICY_BACKEND_INVALID',
      message: `${b.message ?? 'invalid backend'}: its share of requests gets 500`,
    };
  if (b.kind === 'EgressNetwork') {
    if (!k.egress.has(key))
      return {
        ...base,
        code: 'POLICY_BACKEND_MISSING',
        message: `backend EgressNetwork ${key} does not exist: its share of requests gets 500`,
      };
    if (
      !parents.some(
        (p) => p.kind === 'EgressNetwork' && p.namespace === b.namespace && p.name === b.name,
      )
    )
      return {
        ...base,
        code: 'POLICY_BACKEND_INVALID',
        message: `backend EgressNetwork ${key} is not a parent of the route: Linkerd accepts an EgressNetwork backend only on that EgressNetwork's own routes, so its share of requests gets 500`,
      };
    return undefined;
  }
  const ports = k.services.get(key);
  if (ports === undefined)
    return {
      ...base,
      code: 'POLICY_BACKEND_MISSING',
      message: `backend Service ${key} does not exist: its share of requests gets 500`,
    };
  if (b.port !== undefined && !ports.includes(b.port))
    return {
      ...base,
      code: 'POLICY_BACKEND_MISSING',
      message: `backend Service ${key} has no port ${b.port} (it has ${ports.join(', ') || 'none'}): its share of requests finds no endpoint`,
    };
  return undefined;
}

function ruleProblems(
  route: OutboundRoute,
  rule: OutboundRule,
  r: number,
  k: Known,
): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  for (const b of rule.backends) {
    const p = backendProblem(route, b, k, route.parents);
    if (p !== undefined) out.push(p);
  }
  if (rule.backends.length > 0 && rule.backends.every((b) => b.weight === 0))
    out.push({
      severity: 'error',
      code: 'POLICY_BACKEND_WEIGHTS_ZERO',
      object: objectOf(route),
      file: rule.at.file,
      line: rule.at.line,
      message: `rule ${r}: the backend weights sum to zero, so no backend can be picked and every request it takes fails`,
      hint: 'give at least one backendRef a weight above 0 (an absent weight is 1)',
    });
  return out;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/** Retries in force on rules that take POST or PATCH, with Linkerd's default limit only. */
function lintRetryBudget(resources: PolicyResources, route: OutboundRoute): PolicyProblem[] {
  if (route.kind !== 'HTTPRoute') return [];
  const parentRetry = route.parents
    .filter((p) => p.kind === 'Service')
    .map((p) =>
      resources.services?.find((s) => s.meta.namespace === p.namespace && s.meta.name === p.name),
    )
    .find((s) => s?.config.httpRetry !== undefined)?.config.httpRetry;
  const retry = route.config.httpRetry ?? parentRetry;
  if (retry === undefined || retry.limitWritten) return [];
  const source = route.config.httpRetry !== undefined ? 'the route' : 'its parent Service';
  return route.rules.flatMap((rule, r) => {
    const unsafe = rule.matches.some((m) => m.method === undefined || !IDEMPOTENT.has(m.method));
    if (!unsafe) return [];
    return [
      {
        severity: 'warning' as const,
        code: 'POLICY_RETRY_UNBUDGETED' as const,
        object: objectOf(route),
        file: rule.at.file,
        line: rule.at.line,
        message: `rule ${r} takes ${rule.matches.some((m) => m.method === undefined) ? 'every method, POST and PATCH included' : 'POST or PATCH'}, and retries from ${source} apply with no retry.linkerd.io/limit: a non-idempotent request may be sent twice`,
        hint: 'match the idempotent methods in their own rule, or set retry.linkerd.io/limit (and retry.linkerd.io/timeout) on purpose',
      },
    ];
  });
}

/** Rules another producer route of the same parent always wins over. */
function lintShadowedOutbound(routes: readonly OutboundRoute[]): PolicyProblem[] {
  const byParent = new Map<string, { route: OutboundRoute; compiled: CompiledRoute }[]>();
  for (const route of routes) {
    if (route.kind !== 'HTTPRoute' && route.kind !== 'GRPCRoute') continue;
    for (const p of route.parents) {
      if (p.namespace !== route.meta.namespace) continue;
      const key = `${p.kind} ${p.namespace}/${p.name}:${p.port ?? '*'}:${route.kind}`;
      const list = byParent.get(key) ?? [];
      list.push({ route, compiled: compiled(route) });
      byParent.set(key, list);
    }
  }
  const out: PolicyProblem[] = [];
  for (const [parent, list] of byParent) {
    list.sort((a, b) => compareRoutes(a.compiled, b.compiled));
    for (const hit of shadowedOn(list.map((e) => e.compiled))) {
      const entry = list.find((e) => e.compiled === hit.route);
      const rule = entry?.route.rules[hit.rule];
      if (entry === undefined || rule === undefined) continue;
      out.push({
        severity: 'warning',
        code: 'POLICY_OUTBOUND_RULE_SHADOWED',
        object: objectOf(entry.route),
        file: rule.at.file,
        line: rule.at.line,
        message: `rule ${hit.rule} can never be selected for ${parent.slice(0, parent.lastIndexOf(':'))}: ${hit.by} matches the same requests with the same score and wins the tie (older route, then name, then rule order)`,
        hint: 'Linkerd scores Exact and PathPrefix of the same path equally; make the paths, headers or methods differ',
      });
    }
  }
  return out;
}

/** Routes on an Allow EgressNetwork: whatever they do not match is still allowed. */
function lintAllowEgress(resources: PolicyResources): PolicyProblem[] {
  const routes = resources.outboundRoutes ?? [];
  return (resources.egressNetworks ?? []).flatMap((net) => {
    if (net.trafficPolicy !== 'Allow') return [];
    const attached = routes.filter((r) =>
      r.parents.some(
        (p) =>
          p.kind === 'EgressNetwork' &&
          p.namespace === net.meta.namespace &&
          p.name === net.meta.name,
      ),
    );
    if (attached.length === 0) return [];
    return [
      {
        severity: 'warning' as const,
        code: 'POLICY_EGRESS_ALLOWS_UNROUTED' as const,
        object: `EgressNetwork ${net.meta.namespace}/${net.meta.name}`,
        file: net.meta.at.file,
        line: net.meta.at.line,
        path: 'spec.trafficPolicy',
        message: `trafficPolicy Allow: ${attached.map((r) => `${r.meta.namespace}/${r.meta.name}`).join(', ')} restrict nothing, since every request no route matches goes out through the default route http-egress-allow`,
        hint: 'to allow only what the routes match, set trafficPolicy: Deny',
      },
    ];
  });
}

/** Every outbound lint finding (unsorted; `lintModel` sorts). Deterministic; never throws. */
export function lintOutbound(resources: PolicyResources): PolicyProblem[] {
  const k = known(resources);
  const routes = resources.outboundRoutes ?? [];
  const out = [...lintIgnoredAnnotations(resources), ...lintAllowEgress(resources)];
  for (const route of routes) {
    for (const p of route.parents) pushAll(out, parentMissing(route, p, k));
    route.rules.forEach((rule, r) => pushAll(out, ruleProblems(route, rule, r, k)));
    pushAll(out, lintRetryBudget(resources, route));
  }
  pushAll(out, lintShadowedOutbound(routes));
  return out;
}
