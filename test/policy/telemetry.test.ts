// TelemetryPolicy (docs/policy.md, "Telemetry"): the per-route metrics the roadmap lists among
// inbound policies, and what `compile` says each route would record.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lintPolicy, renderModel } from '../../src/policy/index.js';
import { ask, load, model, pod, route, server } from './helpers.js';

const EXT = 'policy.labelwise.dev/v1alpha1';

function telemetry(name: string, target: string, spec: string): string {
  return `
apiVersion: ${EXT}
kind: TelemetryPolicy
metadata: { name: ${name}, namespace: ns }
spec:
  targetRef: ${target}
${spec}
---`;
}

const groups = `
apiVersion: ${EXT}
kind: HttpRouteGroup
metadata: { name: books, namespace: ns }
spec:
  routes:
    - methods: [GET]
      path: /books/:book-id
      labels: { team: books, idempotent: "true" }
    - methods: [POST]
      path: /books
      labels: { team: books }
---
apiVersion: ${EXT}
kind: HttpRouteBinding
metadata: { name: books, namespace: ns }
spec: { targetRef: { kind: Server, name: web }, routeRefs: [{ name: books }] }
---
apiVersion: ${EXT}
kind: HttpRouteClass
metadata: { name: reads, namespace: ns }
spec:
  targetRef: { kind: Server, name: web }
  routeSelector: { matchLabels: { idempotent: "true" } }
---`;

type Rendered = Record<string, unknown> & { name: string; telemetry?: Record<string, unknown> };

function compiledRoutes(yaml: string): Rendered[] {
  const m = model(yaml);
  const rendered = renderModel(m, { namespace: 'ns', name: 'pod' });
  const ports = rendered.pods[0]?.ports as { routes: Rendered[] }[];
  return ports[0]?.routes ?? [];
}

describe('telemetry: what compile says each route records', () => {
  const routes = compiledRoutes(
    pod() +
      server('web') +
      groups +
      telemetry(
        'server-counts',
        '{ kind: Server, name: web }',
        '  metrics: [requests]\n  routeLabels: [team]',
      ) +
      telemetry(
        'read-latency',
        '{ kind: HttpRouteClass, name: reads }',
        '  metrics: [latency, responses]\n  routeLabels: [idempotent, absent]',
      ),
  );

  it('policies add up: a class policy adds its series to the Server-wide ones', () => {
    const read = routes.find((r) => r.name === 'books:GET /books/:book-id');
    assert.deepEqual(read?.telemetry, {
      policies: ['telemetrypolicy/read-latency', 'telemetrypolicy/server-counts'],
      labels: {
        server: 'ns/web',
        route: 'books:GET /books/:book-id',
        idempotent: 'true',
        team: 'books',
      },
      series: [
        { metric: 'requests', name: 'route_requests_total', type: 'counter', perRequest: [] },
        {
          metric: 'responses',
          name: 'route_responses_total',
          type: 'counter',
          perRequest: ['status_code', 'classification'],
        },
        {
          metric: 'latency',
          name: 'route_response_latency_ms',
          type: 'histogram',
          perRequest: ['status_code', 'classification'],
        },
      ],
    });
  });

  it('a route outside the class gets only the Server-wide series', () => {
    const write = routes.find((r) => r.name === 'books:POST /books');
    assert.deepEqual(write?.telemetry?.policies, ['telemetrypolicy/server-counts']);
    assert.deepEqual(write?.telemetry?.labels, {
      server: 'ns/web',
      route: 'books:POST /books',
      team: 'books',
    });
  });

  it('authorize says in its trace what the request is counted under', () => {
    const m = model(
      pod() +
        server('web') +
        groups +
        telemetry('all', '{ kind: Server, name: web }', '  metrics: [requests]'),
    );
    const d = ask(m, { path: '/books/1' });
    assert.ok(
      d.trace.includes(
        'telemetry: telemetrypolicy/all record route_requests_total {server="ns/web",route="books:GET /books/:book-id"}',
      ),
      d.trace.join('\n'),
    );
  });

  it('without a TelemetryPolicy a route records nothing per route', () => {
    const plain = compiledRoutes(pod() + server('web') + groups);
    assert.equal(
      plain.some((r) => 'telemetry' in r),
      false,
    );
  });

  it('a Server-wide policy reaches the synthesised default route', () => {
    const only = compiledRoutes(
      pod() +
        server('web') +
        telemetry('all', '{ kind: Server, name: web }', '  metrics: [requests]'),
    );
    const def = only.find((r) => r.name === 'default');
    assert.deepEqual(def?.telemetry?.labels, { server: 'ns/web', route: 'default' });
  });

  it('an HTTPRoute target', () => {
    const rs = compiledRoutes(
      pod() +
        server('web') +
        route('api', 'web', '[{ matches: [{ path: { value: /api } }] }]') +
        telemetry('api', '{ kind: HTTPRoute, name: api }', '  metrics: [responses]'),
    );
    assert.deepEqual(rs.find((r) => r.name === 'api')?.telemetry?.policies, [
      'telemetrypolicy/api',
    ]);
  });
});

describe('telemetry: load-time errors and lint', () => {
  const cases: [string, string, string, number][] = [
    ['an unknown field', '  metrics: [requests]\n  buckets: [1, 5]', 'POLICY_UNKNOWN_FIELD', 8],
    ['an unknown metric', '  metrics: [requests, errors]', 'POLICY_INVALID_FIELD', 7],
    ['no metrics', '  routeLabels: [team]', 'POLICY_MISSING_FIELD', 6],
    [
      'a path parameter as a series label',
      '  metrics: [requests]\n  routeLabels: [path.http.linkerd.io/book-id]',
      'POLICY_INVALID_FIELD',
      8,
    ],
    [
      'an invalid label key',
      '  metrics: [requests]\n  routeLabels: ["-bad"]',
      'POLICY_INVALID_LABEL',
      8,
    ],
  ];
  for (const [name, spec, code, line] of cases)
    it(name, () => {
      const { problems } = load(telemetry('t', '{ kind: Server, name: web }', spec));
      assert.deepEqual(
        problems.map((p) => [p.code, p.line]),
        [[code, line]],
        JSON.stringify(problems, null, 2),
      );
    });

  it('a TelemetryPolicy whose target does not exist is POLICY_TARGET_MISSING', () => {
    const { model: m } = load(
      pod() +
        server('web') +
        telemetry('t', '{ kind: HttpRouteClass, name: nope }', '  metrics: [requests]'),
    );
    assert.deepEqual(
      lintPolicy(m)
        .filter((f) => f.code === 'POLICY_TARGET_MISSING')
        .map((f) => f.object),
      ['TelemetryPolicy ns/t'],
    );
  });
});
