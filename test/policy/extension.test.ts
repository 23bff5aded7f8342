// The extension (docs/policy.md, "The extension"): route groups with path templates, bindings, classes over
// route labels, composable timeouts and exclusive header rewrites.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ID, ask, load, model, pod, policy, server } from './helpers.js';

const groups = `
apiVersion: policy.labelwise.dev/v1alpha1
kind: HttpRouteGroup
metadata: { name: web, namespace: ns }
spec:
  routes:
    - methods: [GET]
      path: /
      labels: { http.linkerd.io/idempotent: "true" }
    - routeGroupRef: { name: books }
      labels: { group: books }
---
apiVersion: policy.labelwise.dev/v1alpha1
kind: HttpRouteGroup
metadata: { name: books, namespace: ns }
spec:
  routes:
    - methods: [POST]
      path: /books
    - methods: [GET, HEAD]
      path: /books/:book-id
      labels: { http.linkerd.io/idempotent: "true" }
    - methods: [POST]
      path: /books/:book-id/edit
    - path: /static/*rest
---
apiVersion: policy.labelwise.dev/v1alpha1
kind: HttpRouteBinding
metadata: { name: web-routes, namespace: ns, creationTimestamp: "2024-01-01T00:00:00Z" }
spec:
  targetRef: { kind: Server, name: web }
  routeRefs: [{ name: web }]
---
apiVersion: policy.labelwise.dev/v1alpha1
kind: HttpRouteClass
metadata: { name: idempotent, namespace: ns }
spec:
  targetRef: { kind: Server, name: web }
  routeSelector: { matchLabels: { http.linkerd.io/idempotent: "true" } }
---
apiVersion: policy.labelwise.dev/v1alpha1
kind: HttpRouteClass
metadata: { name: edits, namespace: ns }
spec:
  targetRef: { kind: Server, name: web }
  routeSelector:
    matchExpressions:
      - { key: http.linkerd.io/method, operator: In, values: [POST] }
      - { key: group, operator: In, values: [books] }
---
apiVersion: policy.labelwise.dev/v1alpha1
kind: TimeoutPolicy
metadata: { name: server-wide, namespace: ns }
spec: { targetRef: { kind: Server, name: web }, timeout: 30s }
---
apiVersion: policy.labelwise.dev/v1alpha1
kind: TimeoutPolicy
metadata: { name: idempotent-fast, namespace: ns }
spec: { targetRef: { kind: HttpRouteClass, name: idempotent }, timeout: 1500ms }
---
apiVersion: policy.labelwise.dev/v1alpha1
kind: HeaderRewritePolicy
metadata: { name: set-foobar, namespace: ns, creationTimestamp: "2024-01-01T00:00:00Z" }
spec:
  targetRef: { kind: Server, name: web }
  rules:
    - set: { x-foobar: yahoo }
      match: [{ header: { key: content-type, op: In, values: [application/json] } }]
    - clear: [x-foobar]
      match: [{ header: { key: host, op: In, values: [example.com] } }]
---
apiVersion: policy.labelwise.dev/v1alpha1
kind: HeaderRewritePolicy
metadata: { name: younger, namespace: ns, creationTimestamp: "2024-02-01T00:00:00Z" }
spec:
  targetRef: { kind: HttpRouteBinding, name: web-routes }
  rules:
    - set: { x-younger: "1" }
---`;

const yaml =
  pod() +
  server('web') +
  groups +
  policy('reads', { kind: 'HttpRouteClass', name: 'idempotent' }, []) +
  policy('editors', { kind: 'HttpRouteClass', name: 'edits' }, [
    { kind: 'ServiceAccount', name: 'editor' },
  ]) +
  policy('binding-wide', { kind: 'HttpRouteBinding', name: 'web-routes' }, [
    { kind: 'ServiceAccount', name: 'admin' },
  ]);

describe('extension: route groups, bindings and classes', () => {
  const m = model(yaml);
  const cases: {
    name: string;
    request: Parameters<typeof ask>[1];
    want: Record<string, unknown>;
  }[] = [
    {
      name: 'template with a parameter name containing "-"',
      request: { path: '/books/42' },
      want: {
        decision: 'allow',
        route: 'books:GET /books/:book-id',
        rule: 1,
        params: { 'book-id': '42' },
        authorization: 'authorizationpolicy/reads',
      },
    },
    {
      name: 'trailing slash matches the same route',
      request: { path: '/books/42/' },
      want: { route: 'books:GET /books/:book-id', params: { 'book-id': '42' } },
    },
    {
      name: 'methods are per route: HEAD listed too',
      request: { path: '/books/42', method: 'HEAD' },
      want: { route: 'books:HEAD /books/:book-id' },
    },
    {
      name: 'a method not listed: 404',
      request: { path: '/books/42', method: 'DELETE' },
      want: { decision: 'not-found', status: 404 },
    },
    {
      name: 'static beats parameter',
      request: { path: '/books', method: 'POST', identity: ID('mallory') },
      want: { route: 'books:POST /books', decision: 'deny' },
    },
    {
      name: 'class over labels: POST in group books',
      request: { path: '/books/7/edit', method: 'POST', identity: ID('editor') },
      want: {
        route: 'books:POST /books/:book-id/edit',
        decision: 'allow',
        authorization: 'authorizationpolicy/editors',
      },
    },
    {
      name: 'binding-level authorization reaches every route',
      request: { path: '/books', method: 'POST', identity: ID('admin') },
      want: { decision: 'allow', authorization: 'authorizationpolicy/binding-wide' },
    },
    {
      name: 'catch-all without methods',
      request: { path: '/static/css/site.css', method: 'PUT', identity: ID('admin') },
      want: { route: 'books:* /static/*rest', params: { rest: 'css/site.css' } },
    },
    {
      name: 'root template',
      request: { path: '/' },
      want: { route: 'web:GET /', rule: 0, decision: 'allow' },
    },
    {
      name: 'shortest applicable timeout wins',
      request: { path: '/books/1' },
      want: { timeout: '1500ms' },
    },
    {
      name: 'server-wide timeout elsewhere',
      request: { path: '/books', method: 'POST', identity: ID('admin') },
      want: { timeout: '30s' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = ask(m, c.request) as unknown as Record<string, unknown>;
      const got: Record<string, unknown> = {};
      for (const k of Object.keys(c.want))
        got[k] = d[k] === undefined ? undefined : JSON.parse(JSON.stringify(d[k]));
      assert.deepEqual(got, c.want, (d.trace as string[]).join('\n'));
    });
  }

  it('exclusive rewrites: the oldest policy applies its matching rules in order', () => {
    const d = ask(m, {
      path: '/',
      headers: [
        ['content-type', 'application/json'],
        ['host', 'example.com'],
      ],
    });
    assert.equal(d.rewrite?.policy, 'headerrewritepolicy/set-foobar');
    assert.deepEqual({ ...d.rewrite?.set }, {});
    assert.deepEqual(d.rewrite?.clear, ['x-foobar']);
    const json = ask(m, { path: '/', headers: [['content-type', 'application/json']] });
    assert.deepEqual({ ...json.rewrite?.set }, { 'x-foobar': 'yahoo' });
  });

  it('exclusive rewrites: the younger policy applies only when the older does not', () => {
    const d = ask(m, { path: '/' });
    assert.equal(d.rewrite?.policy, 'headerrewritepolicy/younger');
  });

  it('matched template parameters are request labels: path.http.linkerd.io/<param>', () => {
    const byParam = model(
      pod() +
        server('web', { access: 'all-unauthenticated' }) +
        groups.replace(
          /kind: HeaderRewritePolicy[\s\S]*$/,
          `kind: HeaderRewritePolicy
metadata: { name: book-42, namespace: ns }
spec:
  targetRef: { kind: HttpRouteBinding, name: web-routes }
  rules:
    - set: { x-book: answer }
      match:
        - { label: { key: path.http.linkerd.io/book-id, op: In, values: ["42"] } }
        - { label: { key: http.linkerd.io/path, op: In, values: [/books/:book-id] } }
---`,
        ),
    );
    const hit = ask(byParam, { path: '/books/42' });
    assert.equal(hit.route, 'books:GET /books/:book-id');
    assert.equal(hit.rewrite?.policy, 'headerrewritepolicy/book-42');
    assert.deepEqual({ ...hit.rewrite?.set }, { 'x-book': 'answer' });
    const other = ask(byParam, { path: '/books/7' });
    assert.equal(other.route, 'books:GET /books/:book-id');
    assert.equal(other.rewrite, undefined);
  });

  it('derived route labels are on every route', () => {
    const pod = m.pod('ns', 'pod');
    assert.ok(pod);
    const routes = m.portPolicy(pod, 8080).table.routes;
    const edit = routes.find((r) => r.name === 'books:POST /books/:book-id/edit');
    assert.deepEqual(
      { ...edit?.labels },
      {
        group: 'books',
        'http.linkerd.io/method': 'POST',
        'http.linkerd.io/path': '/books/:book-id/edit',
        'http.linkerd.io/version': 'HTTP/1.1',
        'path.http.linkerd.io/book-id': ':book-id',
        'policy.labelwise.dev/binding': 'web-routes',
        'policy.labelwise.dev/group': 'books',
      },
    );
    assert.equal(
      routes.some((r) => r.name === 'default'),
      false,
      'a binding attaches routes, so no default route',
    );
  });
});

describe('extension: load-time errors', () => {
  const cases: { name: string; yaml: string; code: string; line: number }[] = [
    {
      name: 'conflicting templates in one group (same method and shape)',
      yaml: 'apiVersion: policy.labelwise.dev/v1alpha1\nkind: HttpRouteGroup\nmetadata: { name: g, namespace: ns }\nspec:\n  routes:\n    - { methods: [GET], path: "/books/:id" }\n    - { methods: [GET, POST], path: "/books/:book-id/" }\n',
      code: 'POLICY_TEMPLATE_CONFLICT',
      line: 7,
    },
    {
      name: 'catch-all not last',
      yaml: 'apiVersion: policy.labelwise.dev/v1alpha1\nkind: HttpRouteGroup\nmetadata: { name: g, namespace: ns }\nspec:\n  routes:\n    - { path: "/a/*rest/b" }\n',
      code: 'POLICY_INVALID_TEMPLATE',
      line: 6,
    },
    {
      name: 'derived labels are reserved',
      yaml: 'apiVersion: policy.labelwise.dev/v1alpha1\nkind: HttpRouteGroup\nmetadata: { name: g, namespace: ns }\nspec:\n  routes:\n    - path: /a\n      labels: { http.linkerd.io/path: b }\n',
      code: 'POLICY_RESERVED_LABEL',
      line: 7,
    },
    {
      name: 'bad timeout',
      yaml: 'apiVersion: policy.labelwise.dev/v1alpha1\nkind: TimeoutPolicy\nmetadata: { name: t, namespace: ns }\nspec:\n  targetRef: { kind: Server, name: web }\n  timeout: soon\n',
      code: 'POLICY_INVALID_DURATION',
      line: 6,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { problems } = load(c.yaml);
      assert.deepEqual(
        problems.map((p) => [p.code, p.line]),
        [[c.code, c.line]],
      );
    });
  }
});
