// The roadmap's gRPC kinds (docs/policy.md, "gRPC services"): GrpcService, GrpcServiceBinding
// with serviceRefs, GrpcServiceClass with its method selector, and the policies that target the
// binding or the class (AuthorizationPolicy, TimeoutPolicy).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeMatrix, lintPolicy, renderModel } from '../../src/policy/index.js';
import { ID, ask, load, model, pod, policy, server } from './helpers.js';

const EXT = 'policy.labelwise.dev/v1alpha1';
const GROUP = { group: 'policy.labelwise.dev' };

const services = `
apiVersion: ${EXT}
kind: GrpcService
metadata: { name: greeter, namespace: ns }
spec:
  service: helloworld.Greeter
  labels: { team: hello }
  methods:
    - name: SayHello
      labels: { idempotent: "true" }
    - name: SayGoodbye
---
apiVersion: ${EXT}
kind: GrpcService
metadata: { name: health, namespace: ns }
spec: { service: grpc.health.v1.Health }
---
apiVersion: ${EXT}
kind: GrpcServiceClass
metadata: { name: reads, namespace: ns }
spec:
  targetRef: { kind: GrpcService, name: greeter }
  methodSelector: { matchLabels: { idempotent: "true" } }
---
apiVersion: ${EXT}
kind: TimeoutPolicy
metadata: { name: reads-fast, namespace: ns }
spec: { targetRef: { kind: GrpcServiceClass, name: reads }, timeout: 1s }
---
apiVersion: ${EXT}
kind: TimeoutPolicy
metadata: { name: server-wide, namespace: ns }
spec: { targetRef: { kind: Server, name: rpc }, timeout: 10s }
---`;

function binding(name: string, serverName: string, refs: string[]): string {
  return `
apiVersion: ${EXT}
kind: GrpcServiceBinding
metadata: { name: ${name}, namespace: ns }
spec:
  targetRef: { kind: Server, name: ${serverName} }
  serviceRefs: ${JSON.stringify(refs.map((r) => ({ kind: 'GrpcService', name: r })))}
---`;
}

const yaml =
  pod({ ports: [['grpc', 9090]] }) +
  server('rpc', { protocol: 'gRPC', port: 9090 }) +
  services +
  binding('rpc-services', 'rpc', ['greeter', 'health']) +
  policy('readers', { kind: 'GrpcServiceClass', name: 'reads', ...GROUP }, [
    { kind: 'ServiceAccount', name: 'reader' },
  ]) +
  policy('admins', { kind: 'GrpcServiceBinding', name: 'rpc-services', ...GROUP }, [
    { kind: 'ServiceAccount', name: 'admin' },
  ]);

describe('gRPC services: authorize', () => {
  const m = model(yaml);
  const cases: { name: string; path: string; identity: string; want: Record<string, unknown> }[] = [
    {
      name: 'a class over method labels authorizes and times out its methods',
      path: '/helloworld.Greeter/SayHello',
      identity: 'reader',
      want: {
        decision: 'allow',
        route: 'greeter:helloworld.Greeter/SayHello',
        authorization: 'authorizationpolicy/readers',
        timeout: '1s',
      },
    },
    {
      name: 'a method outside the class: the class policy does not reach it',
      path: '/helloworld.Greeter/SayGoodbye',
      identity: 'reader',
      want: { decision: 'deny', status: 403, route: 'greeter:helloworld.Greeter/SayGoodbye' },
    },
    {
      name: 'a binding-level policy reaches every bound method; the Server timeout applies',
      path: '/helloworld.Greeter/SayGoodbye',
      identity: 'admin',
      want: { decision: 'allow', authorization: 'authorizationpolicy/admins', timeout: '10s' },
    },
    {
      name: 'a service without methods binds every method',
      path: '/grpc.health.v1.Health/Check',
      identity: 'admin',
      want: { decision: 'allow', route: 'health:grpc.health.v1.Health/*' },
    },
    {
      name: 'a method of no bound service: 404, the default route is gone',
      path: '/other.Service/Call',
      identity: 'admin',
      want: { decision: 'not-found', status: 404 },
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const d = ask(m, { path: c.path, method: 'POST', port: 9090, identity: ID(c.identity) });
      const got = Object.fromEntries(
        Object.keys(c.want).map((k) => [k, (d as unknown as Record<string, unknown>)[k]]),
      );
      assert.deepEqual(got, c.want, d.trace.join('\n'));
    });

  it('the trace names the GrpcService route that won', () => {
    const d = ask(m, {
      path: '/helloworld.Greeter/SayHello',
      method: 'POST',
      port: 9090,
      identity: ID('reader'),
    });
    assert.ok(
      d.trace.some((line) => line.includes('route: greeter:helloworld.Greeter/SayHello')),
      d.trace.join('\n'),
    );
  });

  it('compile lists each method with its derived labels', () => {
    const rendered = renderModel(m, { namespace: 'ns', name: 'pod' });
    const routes = (rendered.pods[0]?.ports as { routes: Record<string, unknown>[] }[])[0]?.routes;
    const hello = routes?.find((r) => r.name === 'greeter:helloworld.Greeter/SayHello');
    assert.equal(hello?.kind, 'GrpcService');
    assert.deepEqual(hello?.labels, {
      'grpc.linkerd.io/method': 'SayHello',
      'grpc.linkerd.io/service': 'helloworld.Greeter',
      'http.linkerd.io/version': 'HTTP/2',
      idempotent: 'true',
      'policy.labelwise.dev/binding': 'rpc-services',
      'policy.labelwise.dev/grpc-service': 'greeter',
      team: 'hello',
    });
    assert.deepEqual(routes?.map((r) => r.name).sort(), [
      'greeter:helloworld.Greeter/SayGoodbye',
      'greeter:helloworld.Greeter/SayHello',
      'health:grpc.health.v1.Health/*',
    ]);
  });

  it('a HeaderRewritePolicy on a GrpcServiceClass applies to its methods only', () => {
    const withRewrite = model(
      yaml +
        `
apiVersion: ${EXT}
kind: HeaderRewritePolicy
metadata: { name: tag-reads, namespace: ns }
spec:
  targetRef: { kind: GrpcServiceClass, name: reads }
  rules: [{ set: { x-read: "1" } }]
---`,
    );
    const ask9090 = (path: string) =>
      ask(withRewrite, { path, method: 'POST', port: 9090, identity: ID('admin') });
    assert.equal(
      ask9090('/helloworld.Greeter/SayHello').rewrite?.policy,
      'headerrewritepolicy/tag-reads',
    );
    assert.equal(ask9090('/helloworld.Greeter/SayGoodbye').rewrite, undefined);
  });

  it('the reach matrix has a row per bound method, with its policies', () => {
    const rows = computeMatrix(m).rows.filter((r) => r.server === 'ns/rpc');
    const hello = rows.find((r) => r.route === 'greeter:helloworld.Greeter/SayHello');
    assert.deepEqual(hello?.authorizations, [
      'authorizationpolicy/admins',
      'authorizationpolicy/readers',
    ]);
    assert.equal(rows.length, 3, JSON.stringify(rows.map((r) => r.route)));
  });

  it('on an HTTP Server bound services are never consulted: the default route answers', () => {
    const http = model(
      pod({ ports: [['grpc', 9090]] }) +
        server('rpc', { protocol: 'HTTP/2', port: 9090 }) +
        services +
        binding('rpc-services', 'rpc', ['greeter']),
    );
    const d = ask(http, { path: '/helloworld.Greeter/SayHello', method: 'POST', port: 9090 });
    assert.equal(d.route, 'default', d.trace.join('\n'));
  });
});

describe('gRPC services: load-time errors (strict schemas)', () => {
  const cases: [string, string, string, number][] = [
    [
      'unknown field in a GrpcService spec',
      'kind: GrpcService\nmetadata: { name: s, namespace: ns }\nspec:\n  service: a.B\n  methodz: []\n',
      'POLICY_UNKNOWN_FIELD',
      6,
    ],
    [
      'unknown field in a method',
      'kind: GrpcService\nmetadata: { name: s, namespace: ns }\nspec:\n  service: a.B\n  methods:\n    - { name: Get, timeout: 1s }\n',
      'POLICY_UNKNOWN_FIELD',
      7,
    ],
    [
      'unknown field in a serviceRef',
      'kind: GrpcServiceBinding\nmetadata: { name: b, namespace: ns }\nspec:\n  targetRef: { kind: Server, name: rpc }\n  serviceRefs:\n    - { name: s, port: 9090 }\n',
      'POLICY_UNKNOWN_FIELD',
      7,
    ],
    [
      'unknown field in a GrpcServiceClass spec',
      'kind: GrpcServiceClass\nmetadata: { name: c, namespace: ns }\nspec:\n  targetRef: { kind: GrpcService, name: s }\n  methodSelector: {}\n  routeSelector: {}\n',
      'POLICY_UNKNOWN_FIELD',
      7,
    ],
    [
      'a method listed twice',
      'kind: GrpcService\nmetadata: { name: s, namespace: ns }\nspec:\n  service: a.B\n  methods:\n    - { name: Get }\n    - { name: Get }\n',
      'POLICY_DUPLICATE_GRPC_METHOD',
      8,
    ],
    [
      'a service name that is not a protobuf full name',
      'kind: GrpcService\nmetadata: { name: s, namespace: ns }\nspec:\n  service: a/B\n',
      'POLICY_INVALID_FIELD',
      5,
    ],
    [
      'a class must target a GrpcService (the roadmap: GrpcServiceClass → GrpcService)',
      'kind: GrpcServiceClass\nmetadata: { name: c, namespace: ns }\nspec:\n  targetRef: { kind: Server, name: rpc }\n  methodSelector: {}\n',
      'POLICY_UNSUPPORTED_REF',
      5,
    ],
    [
      'a class needs its method selector',
      'kind: GrpcServiceClass\nmetadata: { name: c, namespace: ns }\nspec:\n  targetRef: { kind: GrpcService, name: s }\n',
      'POLICY_MISSING_FIELD',
      5,
    ],
    [
      'a serviceRef of another kind',
      'kind: GrpcServiceBinding\nmetadata: { name: b, namespace: ns }\nspec:\n  targetRef: { kind: Server, name: rpc }\n  serviceRefs:\n    - { kind: HttpRouteGroup, name: s }\n',
      'POLICY_UNSUPPORTED_REF',
      7,
    ],
  ];
  for (const [name, body, code, line] of cases)
    it(name, () => {
      const { problems } = load(`apiVersion: ${EXT}\n${body}`);
      assert.deepEqual(
        problems.map((p) => [p.code, p.line]),
        [[code, line]],
        JSON.stringify(problems, null, 2),
      );
    });
});

describe('gRPC services: lint', () => {
  it('a class selecting none of the bound methods, and one whose service is unbound', () => {
    const { model: m, problems } = load(
      yaml +
        `
apiVersion: ${EXT}
kind: GrpcServiceClass
metadata: { name: writes, namespace: ns }
spec:
  targetRef: { kind: GrpcService, name: greeter }
  methodSelector: { matchLabels: { idempotent: "false" } }
---
apiVersion: ${EXT}
kind: GrpcService
metadata: { name: unbound, namespace: ns }
spec: { service: a.Unbound }
---
apiVersion: ${EXT}
kind: GrpcServiceClass
metadata: { name: all-unbound, namespace: ns }
spec: { targetRef: { kind: GrpcService, name: unbound }, methodSelector: {} }
---`,
    );
    assert.deepEqual(problems, []);
    const found = lintPolicy(m)
      .filter((f) => f.code === 'POLICY_GRPC_CLASS_SELECTS_NOTHING')
      .map((f) => f.object);
    assert.deepEqual(found.sort(), [
      'GrpcServiceClass ns/all-unbound',
      'GrpcServiceClass ns/writes',
    ]);
  });

  it('the fixture itself lints clean of gRPC findings', () => {
    const codes = lintPolicy(model(yaml)).map((f) => f.code);
    assert.deepEqual(
      codes.filter((c) => c.startsWith('POLICY_GRPC') || c === 'POLICY_TARGET_MISSING'),
      [],
    );
  });

  it('a binding naming a missing GrpcService, and targets that do not exist', () => {
    const { model: m, problems } = load(
      pod({ ports: [['grpc', 9090]] }) +
        server('rpc', { protocol: 'gRPC', port: 9090 }) +
        binding('b', 'rpc', ['nope']) +
        binding('lost', 'no-server', []) +
        `
apiVersion: ${EXT}
kind: GrpcServiceClass
metadata: { name: c, namespace: ns }
spec: { targetRef: { kind: GrpcService, name: nope }, methodSelector: {} }
---
apiVersion: ${EXT}
kind: TimeoutPolicy
metadata: { name: t, namespace: ns }
spec: { targetRef: { kind: GrpcServiceClass, name: missing }, timeout: 1s }
---`,
    );
    assert.deepEqual(problems, []);
    const found = lintPolicy(m).map((f) => [f.code, f.object]);
    assert.deepEqual(
      found.filter(([code]) => code !== 'POLICY_SERVER_OVERLAP').sort(),
      [
        ['POLICY_GRPC_SERVICE_MISSING', 'GrpcServiceBinding ns/b'],
        ['POLICY_ROUTE_PARENT_MISSING', 'GrpcServiceBinding ns/lost'],
        ['POLICY_TARGET_MISSING', 'GrpcServiceClass ns/c'],
        ['POLICY_TARGET_MISSING', 'TimeoutPolicy ns/t'],
      ].sort(),
    );
  });
});
