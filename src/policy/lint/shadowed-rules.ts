/**
 * Rules that can never be selected: every match of the rule is covered by a match of an
 * earlier rule (in tie order: older route, then name, then rule order) with the same Linkerd
 * score. A match `n` covers `m` only when method, headers, query parameters and hostnames are
 * equal and the paths relate as below, so each match has a small *cover key* and the lint is one
 * pass over the rules with a map, linear in the number of matches (a pairwise scan took
 * minutes on one route with a few thousand rules).
 *
 * Path relation (Linkerd does not tell Exact from PathPrefix, and ignores trailing slashes):
 * - Exact `v` is covered by Exact `v` and by PathPrefix `p` with trim(p) = v;
 * - PathPrefix `v` is covered by PathPrefix `p` with trim(p) = trim(v);
 * - a regular expression only by the same regular expression.
 */
import type { PolicyModel } from '../compile/model.js';
import type { CompiledRoute } from '../routes/route-table.js';
import type { PolicyProblem, RouteMatchSpec } from '../types.js';

function trim(value: string): string {
  if (value === '/') return '/';
  let end = value.length;
  while (end > 1 && value.charCodeAt(end - 1) === 47 /* / */) end--;
  return value.slice(0, end);
}

function valuesKey(list: RouteMatchSpec['headers']): string {
  if (list.length === 0) return '';
  return list
    .map((m) => `${m.name}\u0000${m.type}\u0000${m.value}`)
    .sort()
    .join('\u0001');
}

/** Everything but the path that two matches must share for one to cover the other. */
function contextKey(m: RouteMatchSpec, hosts: string): string {
  return `${m.method ?? ''}\u0002${valuesKey(m.headers)}\u0002${valuesKey(m.queryParams)}\u0002${hosts}`;
}

/** The key a match offers to later matches. */
function offeredKey(m: RouteMatchSpec, hosts: string): string {
  const p = m.path;
  const path =
    p.type === 'RegularExpression'
      ? `R${p.value}`
      : p.type === 'Exact'
        ? `E${p.value}`
        : `P${trim(p.value)}`;
  return `${path}\u0003${contextKey(m, hosts)}`;
}

/** The keys under which an earlier match would cover `m`. */
function coveringKeys(m: RouteMatchSpec, hosts: string): string[] {
  const p = m.path;
  const context = contextKey(m, hosts);
  if (p.type === 'RegularExpression') return [`R${p.value}\u0003${context}`];
  if (p.type === 'Exact') return [`E${p.value}\u0003${context}`, `P${p.value}\u0003${context}`];
  return [`P${trim(p.value)}\u0003${context}`];
}

interface Offer {
  /** Position in tie order: earlier offers win. */
  readonly order: number;
  readonly by: string;
}

/** Shadowed rules of plain (non-template) routes of one parent, in tie order. */
export function shadowedOn(
  routes: readonly CompiledRoute[],
): { route: CompiledRoute; rule: number; by: string }[] {
  const out: { route: CompiledRoute; rule: number; by: string }[] = [];
  const offers = new Map<string, Offer>();
  let order = 0;
  for (const route of routes) {
    const hosts = [...route.hostnames].sort().join(',');
    route.rules.forEach((rule, r) => {
      if (rule.matches.length > 0) {
        let by: Offer | undefined;
        let all = true;
        for (const m of rule.matches) {
          let best: Offer | undefined;
          for (const k of coveringKeys(m, hosts)) {
            const offer = offers.get(k);
            if (offer !== undefined && (best === undefined || offer.order < best.order))
              best = offer;
          }
          if (best === undefined) {
            all = false;
            break;
          }
          by ??= best;
        }
        if (all && by !== undefined) out.push({ route, rule: r, by: by.by });
      }
      for (const m of rule.matches) {
        const k = offeredKey(m, hosts);
        if (!offers.has(k)) offers.set(k, { order, by: `${route.name} rule ${r}` });
      }
      order++;
    });
  }
  return out;
}

/** Rules every match of which an earlier rule (in tie order) takes with the same score. */
export function lintShadowedRules(model: PolicyModel): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  for (const server of model.resources.servers) {
    const routes = model.serverModel(server).table?.routes ?? [];
    const plain = routes.filter((r) => r.template === undefined);
    for (const { route, rule: r, by } of shadowedOn(plain)) {
      const rule = route.rules[r];
      out.push({
        severity: 'warning',
        code: 'POLICY_RULE_SHADOWED',
        object: `${route.kind} ${server.meta.namespace}/${route.name}`,
        file: rule?.at?.file ?? route.at?.file,
        line: rule?.at?.line ?? route.at?.line,
        message: `rule ${r} can never be selected on Server ${server.meta.name}: ${by} matches the same requests with the same score and wins the tie (older route, then name, then rule order)`,
        hint: 'Linkerd scores Exact and PathPrefix of the same path equally; make the paths, headers or methods differ',
      });
    }
  }
  return out;
}
