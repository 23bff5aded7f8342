// Outbound policy: the reader's admission checks, `policy route` (text and JSON), destination
// parsing and the outbound lints, each lint fixture producing exactly its finding.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LabelwiseError } from '../../src/base/index.js';
import {
  OutboundIndex,
  compilePolicy,
  lintPolicy,
  makeRequest,
  parseDestination,
  parseYamlDocs,
  readResources,
  routeOutbound,
} from '../../src/policy/index.js';
import { cli } from './cli-helpers.js';

const FIXTURE = 'test/policy/fixtures/outbound';

const PRELUDE = `apiVersion: v1
kind: Namespace
metadata: { name: ns }
---
apiVersion: v1
kind: Service
metadata: { name: svc, namespace: ns }
spec: { ports: [{ port: 80 }] }
---
`;

function read(text: string): ReturnType<typeof readResources> {
  return readResources(parseYamlDocs(`${PRELUDE}${text}`, 'case.yaml').docs);
}

function lintCodes(text: string): string[] {
  const { resources } = read(text);
  return lintPolicy(compilePolicy(resources, {}))
    .map((p) => p.code)
    .filter((c) => c !== 'POLICY_DEFAULT_NAMESPACE');
}

const route = (spec: string, annotations = ''): string =>
  `apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: { name: r, namespace: ns${annotations} }\nspec:\n  parentRefs: [{ group: core, kind: Service, name: svc, port: 80 }]\n${spec}`;

describe('outbound: reading', () => {
  it('a malformed retry or timeout annotation refuses a route with a Service parent', () => {
    const { problems, resources } = read(
      route('  rules: [{}]\n', ', annotations: { timeout.linkerd.io/request: 1.5s }'),
    );
    assert.deepEqual(
      problems.map((p) => p.code),
      ['POLICY_INVALID_OUTBOUND_ANNOTATION'],
    );
    assert.equal(resources.outboundRoutes?.length, 0);
  });

  it('a route with a Server parent only is not read for outbound', () => {
    const { resources } = read(
      'apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: { name: r, namespace: ns }\nspec:\n  parentRefs: [{ group: policy.linkerd.io, kind: Server, name: s }]\n',
    );
    assert.equal(resources.routes.length, 1);
    assert.equal(resources.outboundRoutes?.length, 0);
  });

  it('an EgressNetwork is checked against its CRD and its traffic policy', () => {
    const { problems } = read(
      'apiVersion: policy.linkerd.io/v1alpha1\nkind: EgressNetwork\nmetadata: { name: e, namespace: ns }\nspec: { trafficPolicy: Maybe, networks: [{ cidr: 300.0.0.0/8 }] }\n',
    );
    assert.ok(
      problems.some((p) => p.code === 'POLICY_INVALID_NETWORK'),
      JSON.stringify(problems),
    );
    assert.ok(problems.every((p) => p.severity === 'error'));
  });
});

describe('outbound: destinations', () => {
  const rows: [string, unknown][] = [
    ['books.booksapp:7002', { service: 'books', namespace: 'booksapp', port: 7002 }],
    [
      'books.booksapp.svc.cluster.local:7002',
      { service: 'books', namespace: 'booksapp', port: 7002 },
    ],
    ['8.8.8.8:443', { ip: '8.8.8.8', port: 443 }],
    ['[2001:db8::1]:443', { ip: '2001:db8::1', port: 443 }],
  ];
  for (const [text, want] of rows)
    it(`${text} parses`, () => assert.deepEqual(parseDestination(text), want));
  for (const text of [
    'books',
    'books:0',
    'books.booksapp:70000',
    'Books.x:1',
    'a.b.example.com:80',
  ])
    it(`${text} is refused with POLICY_INVALID_DESTINATION`, () =>
      assert.throws(
        () => parseDestination(text),
        (e: unknown) => e instanceof LabelwiseError && e.code === 'POLICY_INVALID_DESTINATION',
      ));

  it('a Service the input lacks is POLICY_UNKNOWN_SERVICE', () => {
    const index = new OutboundIndex(read('').resources);
    assert.throws(
      () =>
        routeOutbound(index, {
          from: { namespace: 'ns', name: 'c' },
          to: { service: 'nope', namespace: 'ns', port: 80 },
          request: makeRequest({ path: '/' }),
          settings: { clusterNetworks: ['10.0.0.0/8'] },
        }),
      (e: unknown) => e instanceof LabelwiseError && e.code === 'POLICY_UNKNOWN_SERVICE',
    );
  });
});

describe('outbound: policy route', () => {
  it('a canary split: route, shares, timeouts, retries, circuit breaker, with a numbered trace', async () => {
    const { code, out } = await cli(
      'route',
      FIXTURE,
      '--from',
      'booksapp/webapp',
      '--to',
      'books.booksapp:7002',
      '--path',
      '/books/1',
    );
    assert.equal(code, 0);
    assert.match(out, /decision\s+route/);
    assert.match(out, /booksapp\/books:7002 90%, booksapp\/books-v2:7002 10%/);
    assert.match(out, /request 5s, response -, idle -/);
    assert.match(out, /5xx|500-599/);
    assert.match(out, / 1\. destination: Service booksapp\/books port 7002/);
  });

  it('--json carries the documented shape', async () => {
    const { code, out } = await cli(
      'route',
      FIXTURE,
      '--from',
      'booksapp/webapp',
      '--to',
      '10.96.10.2:7002',
      '--path',
      '/ping',
      '--json',
    );
    assert.equal(code, 0);
    const json = JSON.parse(out) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), [
      'decision',
      'status',
      'from',
      'to',
      'parent',
      'routeKind',
      'route',
      'rule',
      'backends',
      'timeouts',
      'retry',
      'circuitBreaker',
      'egress',
      'trace',
      'diagnostics',
      'errors',
      'warnings',
    ]);
    assert.equal(json.route, 'booksapp/books-canary');
    assert.equal(json.rule, 1);
    assert.deepEqual(json.retry, {
      conditions: ['500-599'],
      limit: 2,
      budget: 'explicit',
      timeout: null,
      source: 'service',
    });
    assert.deepEqual(json.circuitBreaker, {
      mode: 'consecutive',
      maxFailures: 5,
      minPenalty: '1s',
      maxPenalty: '1m',
      jitterRatio: 0.5,
    });
  });

  it('egress: the allowed route and the denied rest', async () => {
    const allowed = JSON.parse(
      (
        await cli(
          'route',
          FIXTURE,
          '--from',
          'booksapp/webapp',
          '--to',
          '93.184.216.34:80',
          '--host',
          'covers.example.com',
          '--path',
          '/c.jpg',
          '--json',
        )
      ).out,
    ) as Record<string, unknown>;
    assert.deepEqual(allowed.egress, {
      network: 'linkerd-egress/internet',
      trafficPolicy: 'Deny',
      allowed: true,
    });
    const denied = JSON.parse(
      (
        await cli(
          'route',
          FIXTURE,
          '--from',
          'booksapp/webapp',
          '--to',
          '93.184.216.34:80',
          '--host',
          'covers.example.com',
          '--method',
          'POST',
          '--path',
          '/c.jpg',
          '--json',
        )
      ).out,
    ) as Record<string, unknown>;
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.egress, {
      network: 'linkerd-egress/internet',
      trafficPolicy: 'Deny',
      allowed: false,
    });
  });

  it('an unknown client pod is POLICY_UNKNOWN_POD, a bad --to POLICY_INVALID_DESTINATION', async () => {
    const pod = await cli(
      'route',
      FIXTURE,
      '--from',
      'booksapp/nope',
      '--to',
      'books.booksapp:7002',
      '--path',
      '/',
      '--json',
    );
    assert.equal(pod.code, 1);
    assert.match(pod.out, /POLICY_UNKNOWN_POD/);
    const to = await cli(
      'route',
      FIXTURE,
      '--from',
      'booksapp/webapp',
      '--to',
      'books',
      '--path',
      '/',
      '--json',
    );
    assert.equal(to.code, 1);
    assert.match(to.out, /POLICY_INVALID_DESTINATION/);
  });
});

describe('outbound: lints, one finding each', () => {
  const cases: [string, string, string][] = [
    [
      'a backend Service that does not exist',
      'POLICY_BACKEND_MISSING',
      route('  rules: [{ backendRefs: [{ name: gone, port: 80 }] }]\n'),
    ],
    [
      'a backend port the Service lacks',
      'POLICY_BACKEND_MISSING',
      route('  rules: [{ backendRefs: [{ name: svc, port: 81 }] }]\n'),
    ],
    [
      'a backend of an unsupported kind',
      'POLICY_BACKEND_INVALID',
      route(
        '  rules: [{ backendRefs: [{ group: apps, kind: Deployment, name: svc, port: 80 }] }]\n',
      ),
    ],
    [
      'weights summing to zero',
      'POLICY_BACKEND_WEIGHTS_ZERO',
      route(
        '  rules: [{ matches: [{ method: GET }], backendRefs: [{ name: svc, port: 80, weight: 0 }] }]\n',
      ),
    ],
    [
      'retries on every method without a limit',
      'POLICY_RETRY_UNBUDGETED',
      route('  rules: [{}]\n', ', annotations: { retry.linkerd.io/http: 5xx }'),
    ],
    [
      'a parent Service that does not exist',
      'POLICY_OUTBOUND_PARENT_MISSING',
      'apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: { name: r, namespace: ns }\nspec:\n  parentRefs: [{ group: core, kind: Service, name: gone }]\n  rules: [{ matches: [{ method: GET }] }]\n',
    ],
    [
      'a rule another route always wins over',
      'POLICY_OUTBOUND_RULE_SHADOWED',
      `${route('  rules: [{ matches: [{ method: GET, path: { type: PathPrefix, value: /a } }] }]\n').replace('name: r,', 'name: r, creationTimestamp: "2024-01-01T00:00:00Z",')}---\n${route('  rules: [{ matches: [{ method: GET, path: { type: PathPrefix, value: /a/ } }] }]\n').replace('name: r,', 'name: s, creationTimestamp: "2024-02-01T00:00:00Z",')}`,
    ],
    [
      'routes on an Allow EgressNetwork',
      'POLICY_EGRESS_ALLOWS_UNROUTED',
      'apiVersion: policy.linkerd.io/v1alpha1\nkind: EgressNetwork\nmetadata: { name: e, namespace: ns }\nspec: { trafficPolicy: Allow }\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: { name: r, namespace: ns }\nspec:\n  parentRefs: [{ group: policy.linkerd.io, kind: EgressNetwork, name: e }]\n  rules: [{ matches: [{ method: GET }] }]\n',
    ],
    [
      'a Service annotation Linkerd ignores',
      'POLICY_OUTBOUND_ANNOTATION_IGNORED',
      'apiVersion: v1\nkind: Service\nmetadata: { name: other, namespace: ns, annotations: { timeout.linkerd.io/response: "5" } }\nspec: { ports: [{ port: 80 }] }\n',
    ],
  ];
  for (const [name, code, text] of cases)
    it(`${name}: ${code}`, () => assert.deepEqual(lintCodes(text), [code]));

  it('an idempotent rule with retries, or an explicit limit, is not flagged', () => {
    assert.deepEqual(
      lintCodes(
        route(
          '  rules: [{ matches: [{ method: GET }] }]\n',
          ', annotations: { retry.linkerd.io/http: 5xx }',
        ),
      ),
      [],
    );
    assert.deepEqual(
      lintCodes(
        route(
          '  rules: [{}]\n',
          ', annotations: { retry.linkerd.io/http: 5xx, retry.linkerd.io/limit: "2" }',
        ),
      ),
      [],
    );
  });
});
