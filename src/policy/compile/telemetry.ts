/**
 * What TelemetryPolicies make the proxy record per route, as `compile` shows it. Telemetry is
 * additive like authorization: every policy whose target covers the route adds its metrics and
 * its route labels, so two teams asking for different series both get them.
 */
import { compareText } from '../../base/index.js';
import type { Labels } from '../../selector/index.js';
import { TELEMETRY_METRICS } from '../types.js';
import type { PolicyTarget, Server, TelemetryMetric, TelemetryPolicy } from '../types.js';

/** One series family a route would get. */
export interface TelemetrySeries {
  readonly metric: TelemetryMetric;
  /** The series name, as `compile` lists it. */
  readonly name: string;
  readonly type: 'counter' | 'histogram';
  /** Labels whose value each request or response sets (never a path parameter's value). */
  readonly perRequest: readonly string[];
}

/** A route's telemetry: the covering policies, the labels every series has, the series. */
export interface RouteTelemetry {
  /** `telemetrypolicy/<name>`, by name. */
  readonly policies: readonly string[];
  /** `server` and `route` always, then each asked-for route label the route has. */
  readonly labels: Readonly<Record<string, string>>;
  readonly series: readonly TelemetrySeries[];
}

const SERIES: Readonly<Record<TelemetryMetric, Omit<TelemetrySeries, 'metric'>>> = {
  requests: { name: 'route_requests_total', type: 'counter', perRequest: [] },
  responses: {
    name: 'route_responses_total',
    type: 'counter',
    perRequest: ['status_code', 'classification'],
  },
  latency: {
    name: 'route_response_latency_ms',
    type: 'histogram',
    perRequest: ['status_code', 'classification'],
  },
};

/** TelemetryPolicies by target, filed once per model. */
export class TelemetryIndex {
  private readonly byTarget = new Map<string, TelemetryPolicy[]>();

  constructor(policies: readonly TelemetryPolicy[]) {
    for (const p of policies) {
      const k = `${p.meta.namespace}/${p.target.kind}/${p.target.name}`;
      const list = this.byTarget.get(k);
      if (list === undefined) this.byTarget.set(k, [p]);
      else list.push(p);
    }
  }

  /**
   * The route's telemetry from the policies on its Server and on `targets`; undefined when none
   * covers it (the route records nothing per route).
   */
  forRoute(
    server: Server,
    targets: readonly (readonly [PolicyTarget['kind'], string])[],
    route: { readonly name: string; readonly labels: Labels },
  ): RouteTelemetry | undefined {
    const ns = server.meta.namespace;
    const all = [['Server', server.meta.name] as const, ...targets].flatMap(
      ([kind, name]) => this.byTarget.get(`${ns}/${kind}/${name}`) ?? [],
    );
    const policies = [...new Set(all)].sort((a, b) => compareText(a.meta.name, b.meta.name));
    if (policies.length === 0) return undefined;
    const metrics = new Set(policies.flatMap((p) => p.metrics));
    const labels: Record<string, string> = {
      server: `${ns}/${server.meta.name}`,
      route: route.name,
    };
    const keys = [...new Set(policies.flatMap((p) => p.routeLabels))].sort(compareText);
    for (const k of keys) {
      const value = route.labels[k];
      // `server` and `route` are the series' own: a route label of that name does not replace them.
      if (value !== undefined && labels[k] === undefined) labels[k] = value;
    }
    return {
      policies: policies.map((p) => `telemetrypolicy/${p.meta.name}`),
      labels,
      series: TELEMETRY_METRICS.filter((m) => metrics.has(m)).map((metric) => ({
        metric,
        ...SERIES[metric],
      })),
    };
  }
}
