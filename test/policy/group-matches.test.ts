// Route-group routes match headers and query parameters, and every extension kind is strict.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ask, load, model, pod, policy, server } from './helpers.js';

const GROUP = `
apiVersion: policy.labelwise.dev/v1alpha1
kind: HttpRouteGroup
metadata: { name: api, namespace: ns }
spec:
  routes:
    - methods: [GET]
      path: /books/:id
      headers: [{ name: X-Version, value: "2" }]
      labels: { version: v2 }
    - methods: [GET]
      path: /books/:id
      labels: { version: v1 }
    - methods: [GET]
      path: /search
      queryParams: [{ name: q, type: RegularExpression, value: "[a-z]+" }]
---
apiVersion: policy.labelwise.dev/v1alpha1
kind: HttpRouteBinding
metadata: { name: api, namespace: ns }
spec:
  targetRef: { kind: Server, name: web }
  routeRefs: [{ name: api }]
---`;

function fixture() {
  return model(
    pod() +
      server('web') +
      GROUP +
      policy('open', { kind: 'Server', name: 'web' }, [
        { kind: 'NetworkAuthentication', name: 'all' },
      ]) +
      `
apiVersion: policy.linkerd.io/v1alpha1
kind: NetworkAuthentication
metadata: { name: all, namespace: ns }
spec: { networks: [{ cidr: 0.0.0.0/0 }] }
---`,
  );
}

describe('route-group headers and queryParams', () => {
  it('a header match picks the route that needs it; without it the other route of that shape', () => {
    const m = fixture();
    const v2 = ask(m, { path: '/books/7', headers: [['x-version', '2']] });
    assert.equal(v2.decision, 'allow', v2.trace.join('\n'));
    assert.equal(v2.rule, 0);
    assert.deepEqual({ ...v2.params }, { id: '7' });
    const v1 = ask(m, { path: '/books/7', headers: [['x-version', '1']] });
    assert.equal(v1.decision, 'allow');
    assert.equal(v1.rule, 1);
  });

  it('a query parameter match must hold, else 404 with the reason in the trace', () => {
    const m = fixture();
    assert.equal(ask(m, { path: '/search?q=dune' }).decision, 'allow');
    const miss = ask(m, { path: '/search?q=42' });
    assert.equal(miss.decision, 'not-found');
    assert.ok(
      miss.trace.some((l) => /query does not match q=\[a-z\]\+/.test(l)),
      miss.trace.join('\n'),
    );
    assert.equal(ask(m, { path: '/search' }).decision, 'not-found');
  });

  it('routes of one shape with different headers do not conflict', () => {
    assert.deepEqual(
      load(GROUP).problems.filter((p) => p.severity === 'error'),
      [],
    );
  });
});

describe('extension kinds are strict: an unknown field is an error', () => {
  const cases: [string, string, number][] = [
    [
      'HttpRouteGroup route',
      'kind: HttpRouteGroup\nmetadata: { name: g, namespace: ns }\nspec:\n  routes:\n    - { path: /a, header: [] }\n',
      5,
    ],
    [
      'HttpRouteGroup spec',
      'kind: HttpRouteGroup\nmetadata: { name: g, namespace: ns }\nspec:\n  routes: [{ path: /a }]\n  route: []\n',
      5,
    ],
    [
      'HttpRouteBinding',
      'kind: HttpRouteBinding\nmetadata: { name: b, namespace: ns }\nspec:\n  targetRef: { kind: Server, name: web }\n  routeRefs: [{ name: g }]\n  extra: 1\n',
      6,
    ],
    [
      'HttpRouteClass targetRef',
      'kind: HttpRouteClass\nmetadata: { name: c, namespace: ns }\nspec:\n  targetRef: { kind: Server, name: web, port: 80 }\n  routeSelector: {}\n',
      4,
    ],
    [
      'TimeoutPolicy',
      'kind: TimeoutPolicy\nmetadata: { name: t, namespace: ns }\nspec:\n  targetRef: { kind: Server, name: web }\n  timeout: 1s\n  backendTimeout: 2s\n',
      6,
    ],
    [
      'HeaderRewritePolicy rule',
      'kind: HeaderRewritePolicy\nmetadata: { name: h, namespace: ns }\nspec:\n  targetRef: { kind: Server, name: web }\n  rules:\n    - { set: { a: b }, add: { c: d } }\n',
      6,
    ],
  ];
  for (const [name, body, line] of cases)
    it(name, () => {
      const { problems } = load(`apiVersion: policy.labelwise.dev/v1alpha1\n${body}`);
      const unknown = problems.filter((p) => p.code === 'POLICY_UNKNOWN_FIELD');
      assert.equal(unknown.length, 1, JSON.stringify(problems, null, 2));
      assert.equal(unknown[0]?.line, line + 1);
    });
});
