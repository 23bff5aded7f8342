/**
 * What happens to a request after its client is admitted, in the proxy's order: the route's
 * timeout, a RequestRedirect answering instead of forwarding, an HTTPLocalRateLimitPolicy
 * answering 429, and the HeaderRewritePolicy that sets or clears headers.
 */
import { matches } from '../selector/index.js';
import type { Labels } from '../selector/index.js';
import type { Client, Note } from './authorize-client.js';
import { exceededLimit } from './compile/rate-limits.js';
import type { CompiledRateLimit } from './compile/rate-limits.js';
import type { Decision } from './decision.js';
import { HEADER_PREFIX, PARAM_PREFIX } from './resources/read-extension.js';
import type { PolicyRequest } from './routes/request.js';
import type { RouteHit } from './routes/route-table.js';
import type { RouteFilter } from './types.js';

/** The request rates `checkRateLimit` compares with a policy's budgets. */
export interface RateInput {
  readonly rate?: number;
  readonly totalRate?: number;
}

/**
 * The redirect a rule's RequestRedirect filter answers, or undefined when it has none or it
 * changes nothing (then the proxy forwards). Header filters are noted on the way.
 */
export function redirectOf(
  filters: readonly RouteFilter[],
  note: Note,
): Decision['redirect'] | undefined {
  let redirect: Extract<RouteFilter, { type: 'RequestRedirect' }> | undefined;
  for (const f of filters) {
    if (f.type === 'RequestRedirect') redirect ??= f;
    else
      note?.(
        `filter: ${f.type} sets ${JSON.stringify(f.set)}, adds ${JSON.stringify(f.add)}, removes ${JSON.stringify(f.remove)}`,
      );
  }
  if (redirect === undefined) return undefined;
  const { scheme, hostname, path, port } = redirect;
  if (scheme === undefined && hostname === undefined && path === undefined && port === undefined) {
    note?.('filter: RequestRedirect changes nothing, so the proxy forwards the request');
    return undefined;
  }
  const status = redirect.statusCode === 301 ? 301 : 302;
  note?.(
    `filter: RequestRedirect answers ${status}${scheme === undefined ? '' : ` to scheme ${scheme}`}${hostname === undefined ? '' : ` host ${hostname}`}${path === undefined ? '' : ` path ${path}`}${port === undefined ? '' : ` port ${port}`} instead of forwarding`,
  );
  return {
    status,
    ...(scheme === undefined ? {} : { scheme }),
    ...(hostname === undefined ? {} : { hostname }),
    ...(path === undefined ? {} : { path }),
    ...(port === undefined ? {} : { port }),
  };
}

export function checkRateLimit(
  limit: CompiledRateLimit,
  client: Client,
  options: RateInput,
  note: Note,
): Decision['rateLimit'] {
  const budgets = [
    limit.total === undefined ? '' : `total ${limit.total}/s`,
    limit.identity === undefined ? '' : `per identity ${limit.identity}/s`,
    limit.overrides.length === 0 ? '' : `${limit.overrides.length} override(s)`,
  ].filter((t) => t !== '');
  if (options.rate === undefined) {
    note?.(
      `rate limit: ${limit.name} applies (${budgets.join(', ')}); no request rate given, so it is not exceeded`,
    );
    return undefined;
  }
  const hit = exceededLimit(
    limit,
    client.identity,
    options.rate,
    options.totalRate ?? options.rate,
  );
  if (hit === undefined) {
    note?.(`rate limit: ${limit.name} (${budgets.join(', ')}) admits ${options.rate}/s`);
    return undefined;
  }
  note?.(
    `rate limit: ${limit.name} ${hit.limit} budget of ${hit.requestsPerSecond}/s is exceeded: 429`,
  );
  return { policy: limit.name, limit: hit.limit, requestsPerSecond: hit.requestsPerSecond };
}

export function pickTimeout(hit: RouteHit, note: Note): string | null {
  const ruleTimeout = hit.route.rules[hit.rule]?.timeout;
  if (ruleTimeout === undefined && hit.route.timeouts.length === 0) return null;
  const candidates = [...hit.route.timeouts];
  if (ruleTimeout !== undefined) {
    candidates.push({
      source: `${hit.route.name} rule ${hit.rule}`,
      timeout: ruleTimeout,
      ms: durationMs(ruleTimeout),
    });
  }
  if (candidates.length === 0) return null;
  // The shortest applicable timeout wins; ties go to the first listed.
  const best = candidates.reduce((a, b) => (b.ms < a.ms ? b : a));
  note?.(
    `timeout: ${best.timeout} from ${best.source}${candidates.length > 1 ? ` (shortest of ${candidates.map((c) => c.timeout).join(', ')})` : ''}`,
  );
  return best.timeout;
}

/** What the route's TelemetryPolicies count the request under (a trace line; no decision field). */
export function noteTelemetry(route: RouteHit['route'], note: Note): void {
  const t = route.telemetry;
  if (t === undefined || note === undefined) return;
  const labels = Object.entries(t.labels)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(',');
  note(
    `telemetry: ${t.policies.join(', ')} record ${t.series.map((s) => s.name).join(', ')} {${labels}}`,
  );
}

export function durationMs(text: string): number {
  const m = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/.exec(text);
  if (m === null) return Number.POSITIVE_INFINITY;
  return (
    Number(m[1] ?? 0) * 3_600_000 +
    Number(m[2] ?? 0) * 60_000 +
    Number(m[3] ?? 0) * 1000 +
    Number(m[4] ?? 0)
  );
}

/** The labels a rewrite rule's selector sees: route labels, template parameters, headers. */
export function requestLabels(hit: RouteHit, request: PolicyRequest): Labels {
  const labels: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(hit.route.labels)) labels[k] = v;
  if (hit.params !== undefined)
    for (const [k, v] of Object.entries(hit.params)) labels[`${PARAM_PREFIX}${k}`] = v;
  // A selector sees one value per label: the first value of a repeated header.
  for (const [k, v] of Object.entries(request.headers))
    if (v[0] !== undefined) labels[`${HEADER_PREFIX}${k}`] = v[0];
  return labels;
}

export function rewriteFor(hit: RouteHit, request: PolicyRequest, note: Note): Decision['rewrite'] {
  if (hit.route.rewrites.length === 0) return undefined;
  const labels = requestLabels(hit, request);
  // Exclusive: the oldest policy (then name) with a matching rule applies; its matching rules
  // apply in list order, so a later rule overrides an earlier one.
  for (const policy of hit.route.rewrites) {
    const rules = policy.rules.filter((r) => matches(r.match, labels));
    if (rules.length === 0) continue;
    const set: Record<string, string> = Object.create(null);
    const clear: string[] = [];
    for (const rule of rules) {
      for (const [k, v] of Object.entries(rule.set)) {
        set[k] = v;
        const i = clear.indexOf(k);
        if (i >= 0) clear.splice(i, 1);
      }
      for (const k of rule.clear) {
        delete set[k];
        if (!clear.includes(k)) clear.push(k);
      }
    }
    note?.(`rewrite: headerrewritepolicy/${policy.meta.name} applies ${rules.length} rule(s)`);
    return { policy: `headerrewritepolicy/${policy.meta.name}`, set, clear };
  }
  return undefined;
}
