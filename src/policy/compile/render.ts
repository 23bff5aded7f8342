/** The compiled model as plain JSON (`labelwise policy compile --json`, `policy/compiled.json`). */
import { compareText } from '../../base/index.js';
import type { Authorization } from './authorizations.js';
import type { PolicyModel, PortPolicy } from './model.js';
import type { CompiledRoute } from '../routes/route-table.js';
import type { RouteMatchSpec } from '../types.js';

export interface RenderedAuthorization {
  name: string;
  networks: { cidr: string; except?: string[] }[];
  authentication: 'unauthenticated' | 'tls' | { identities: string[][] };
}

function renderAuthorization(a: Authorization): RenderedAuthorization {
  return {
    name: a.name,
    networks: a.networkSpecs.map((n) =>
      n.except.length === 0 ? { cidr: n.cidr } : { cidr: n.cidr, except: [...n.except] },
    ),
    authentication:
      typeof a.authentication === 'string'
        ? a.authentication
        : { identities: a.authentication.map((m) => [...m.patterns]) },
  };
}

function renderMatch(m: RouteMatchSpec): Record<string, unknown> {
  const out: Record<string, unknown> =
    m.grpc === undefined
      ? { path: { type: m.path.type, value: m.path.value } }
      : { grpc: m.path.type === 'PathPrefix' ? { any: true } : { ...m.grpc } };
  if (m.method !== undefined) out.method = m.method;
  if (m.headers.length > 0)
    out.headers = m.headers.map((h) => ({ name: h.name, type: h.type, value: h.value }));
  if (m.queryParams.length > 0)
    out.queryParams = m.queryParams.map((h) => ({ name: h.name, type: h.type, value: h.value }));
  return out;
}

function renderRoute(route: CompiledRoute): Record<string, unknown> {
  const out: Record<string, unknown> = { name: route.name, kind: route.kind };
  if (route.hostnames.length > 0) out.hostnames = [...route.hostnames];
  if (route.template !== undefined) {
    out.template = route.template.template.text;
    out.methods = [...route.template.methods];
    out.binding = route.template.binding;
  } else {
    out.rules = route.rules.map((rule) => ({
      matches: rule.matches.map(renderMatch),
      ...(rule.filters.length > 0 ? { filters: rule.filters.map((f) => ({ ...f })) } : {}),
      ...(rule.timeout === undefined ? {} : { timeout: rule.timeout }),
    }));
  }
  const labels = Object.keys(route.labels).sort(compareText);
  if (labels.length > 0) out.labels = Object.fromEntries(labels.map((k) => [k, route.labels[k]]));
  out.authorizations = route.authorizations.map(renderAuthorization);
  if (route.ignored !== undefined)
    out.ignored = route.ignored.map((i) => ({ name: i.name, reason: i.reason }));
  if (route.timeouts.length > 0)
    out.timeouts = route.timeouts.map((t) => ({ source: t.source, timeout: t.timeout }));
  if (route.rewrites.length > 0)
    out.rewrites = route.rewrites.map((r) => `headerrewritepolicy/${r.meta.name}`);
  if (route.telemetry !== undefined)
    out.telemetry = {
      policies: [...route.telemetry.policies],
      labels: { ...route.telemetry.labels },
      series: route.telemetry.series.map((s) => ({ ...s, perRequest: [...s.perRequest] })),
    };
  return out;
}

/** One (pod, port) as JSON. */
export function renderPortPolicy(p: PortPolicy): Record<string, unknown> {
  return {
    port: p.port,
    server: p.server,
    reason: p.serverReason,
    protocol: p.protocol,
    authorizations: p.authorizations.map(renderAuthorization),
    ...(p.ignored === undefined
      ? {}
      : { ignored: p.ignored.map((i) => ({ name: i.name, reason: i.reason })) }),
    routes: p.protocol === 'opaque' || p.protocol === 'TLS' ? [] : p.table.routes.map(renderRoute),
    ...(p.rateLimit === undefined ? {} : { rateLimit: { ...p.rateLimit } }),
  };
}

/** Every pod (or the one named `ns/name`) with every port worth listing. */
export function renderModel(
  model: PolicyModel,
  only?: { namespace: string; name: string },
): { pods: Record<string, unknown>[] } {
  const pods = model.podList.filter(
    (p) => only === undefined || (p.meta.namespace === only.namespace && p.meta.name === only.name),
  );
  return {
    pods: pods.map((pod) => ({
      pod: `${pod.meta.namespace}/${pod.meta.name}`,
      ports: model.portsOf(pod).map((port) => renderPortPolicy(model.portPolicy(pod, port))),
    })),
  };
}
