// An object that fails admission is left out; what refers to it must say "X is invalid (see its
// error at file:line)" (POLICY_REF_INVALID, a warning), never "X does not exist".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LabelwiseError } from '../../src/base/errors.js';
import { decide, lintPolicy, renderModel } from '../../src/policy/index.js';
import type { PolicyProblem } from '../../src/policy/index.js';
import { ask, load, mtls, pod, policy, route, server } from './helpers.js';

/** The 1-based line of the first line of `yaml` containing `needle` (after `from`, if given). */
function lineOf(yaml: string, needle: string, from?: string): number {
  const lines = yaml.split('\n');
  const start = from === undefined ? 0 : lines.findIndex((l) => l.includes(from));
  assert.ok(start >= 0, `no line with ${from ?? ''}`);
  const i = lines.findIndex((l, n) => n >= start && l.includes(needle));
  assert.ok(i >= 0, `no line with ${needle}`);
  return i + 1;
}

function findings(yaml: string): { load: PolicyProblem[]; lint: PolicyProblem[] } {
  const { model, problems } = load(yaml);
  return { load: problems, lint: lintPolicy(model) };
}

const codes = (list: readonly PolicyProblem[]): string[] => list.map((p) => p.code);

const BAD_SERVER = server('web', { protocol: 'HTTP/7', access: 'all-unauthenticated' });

const extension = (kind: string, name: string, spec: string): string => `
apiVersion: policy.labelwise.dev/v1alpha1
kind: ${kind}
metadata: { name: ${name}, namespace: ns }
spec:
${spec}
---`;

describe('dependents of a rejected Server', () => {
  const yaml = [
    pod({ name: 'web-0' }),
    BAD_SERVER,
    route('api', 'web', '[{ matches: [{ path: { value: /api } }] }]'),
    policy('web-all', { kind: 'Server', name: 'web' }, []),
    extension(
      'HttpRouteBinding',
      'bind',
      '  targetRef: { kind: Server, name: web }\n  routeRefs: [{ name: g }]',
    ),
    extension('HttpRouteGroup', 'g', '  routes: [{ methods: [GET], path: /x }]'),
    extension('TimeoutPolicy', 'slow', '  targetRef: { kind: Server, name: web }\n  timeout: 5s'),
    extension(
      'HttpRouteClass',
      'reads',
      '  targetRef: { kind: Server, name: web }\n  routeSelector: {}',
    ),
    `
apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: { name: legacy, namespace: ns }
spec:
  server: { name: web }
  client: { unauthenticated: true }
---`,
  ].join('\n');
  const errorLine = lineOf(yaml, 'proxyProtocol: HTTP/7');

  it('the Server has one admission error, and it is the only error', () => {
    const { load: problems, lint } = findings(yaml);
    assert.deepEqual(
      problems.map((p) => [p.code, p.object, p.line]),
      [['POLICY_INVALID_PROTOCOL', 'Server ns/web', errorLine]],
    );
    assert.deepEqual(
      lint.filter((f) => f.severity === 'error'),
      [],
    );
  });

  it('no dependent is told the Server does not exist', () => {
    const { lint } = findings(yaml);
    for (const f of lint) {
      assert.ok(
        !['POLICY_ROUTE_PARENT_MISSING', 'POLICY_TARGET_MISSING'].includes(f.code),
        JSON.stringify(f),
      );
      assert.doesNotMatch(f.message, /does not exist/);
    }
  });

  it('every dependent gets one POLICY_REF_INVALID naming the error place', () => {
    const { lint } = findings(yaml);
    const invalid = lint.filter((f) => f.code === 'POLICY_REF_INVALID');
    assert.deepEqual(invalid.map((f) => f.object).sort(), [
      'AuthorizationPolicy ns/web-all',
      'HTTPRoute ns/api',
      'HttpRouteBinding ns/bind',
      'HttpRouteClass ns/reads',
      'ServerAuthorization ns/legacy',
      'TimeoutPolicy ns/slow',
    ]);
    for (const f of invalid) {
      assert.equal(f.severity, 'warning');
      assert.equal(f.file, 'inline.yaml');
      assert.ok(
        f.message.includes(`Server ns/web is invalid (see its error at inline.yaml:${errorLine})`),
        f.message,
      );
    }
    const onRoute = invalid.find((f) => f.object === 'HTTPRoute ns/api');
    assert.equal(onRoute?.line, lineOf(yaml, 'parentRefs', 'name: api'));
    assert.match(onRoute?.message ?? '', /so the route does not apply there$/);
  });

  it('the pod falls back to the default policy, and the trace says which Server was left out', () => {
    const { model } = load(yaml);
    const d = decide(model, { pod: 'ns/web-0', port: 8080, path: '/api', clientIp: '10.1.1.1' });
    assert.equal(d.server, 'default:all-unauthenticated');
    assert.ok(
      d.trace[0]?.includes(
        `not considered: Server ns/web is invalid (see its error at inline.yaml:${errorLine})`,
      ),
      d.trace[0],
    );
  });

  it('a ServerAuthorization selecting no Server mentions the rejected ones', () => {
    const { lint } = findings(
      [
        BAD_SERVER,
        `
apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: { name: by-selector, namespace: ns }
spec:
  server: { selector: {} }
  client: { unauthenticated: true }
---`,
      ].join('\n'),
    );
    assert.deepEqual(codes(lint), ['POLICY_TARGET_MISSING']);
    assert.match(
      lint[0]?.message ?? '',
      /^server selector \{\} \(every Server\) selects none of the Servers of namespace ns, so this ServerAuthorization authorizes nothing \(1 Server\(s\) of the namespace have errors and were not considered\)$/,
    );
  });

  it('a Server that is truly absent is still reported as missing', () => {
    const { lint } = findings(
      [pod(), route('api', 'nowhere', '[{ matches: [{ path: { value: /api } }] }]')].join('\n'),
    );
    assert.deepEqual(codes(lint), ['POLICY_ROUTE_PARENT_MISSING']);
  });
});

describe('dependents of other rejected objects', () => {
  it('an invalid MeshTLSAuthentication: the policy is still dropped, and said to be invalid', () => {
    const yaml = [
      pod(),
      server('web', { access: 'deny' }),
      mtls('clients', ['Web.Bad']),
      policy('web-clients', { kind: 'Server', name: 'web' }, [
        { kind: 'MeshTLSAuthentication', name: 'clients' },
      ]),
    ].join('\n');
    const { model, problems } = load(yaml);
    assert.deepEqual(codes(problems), ['POLICY_INVALID_IDENTITY']);
    const lint = lintPolicy(model);
    assert.deepEqual(codes(lint), ['POLICY_REF_INVALID']);
    assert.match(
      lint[0]?.message ?? '',
      new RegExp(
        `^authentication MeshTLSAuthentication ns/clients is invalid \\(see its error at inline\\.yaml:${lineOf(yaml, 'Web.Bad')}\\), so this policy is ignored and authorizes nobody$`,
      ),
    );
    // Fail closed, exactly as with a missing reference.
    const d = decide(model, {
      pod: 'ns/pod',
      port: 8080,
      path: '/',
      clientIp: '10.1.1.1',
      identity: 'web.ns.serviceaccount.identity.linkerd.cluster.local',
    });
    assert.equal(d.decision, 'deny');
  });

  it('compile lists the dropped policy under ignored, with why', () => {
    const yaml = [
      pod(),
      server('web', { access: 'deny' }),
      mtls('clients', ['Web.Bad']),
      policy('web-clients', { kind: 'Server', name: 'web' }, [
        { kind: 'MeshTLSAuthentication', name: 'clients' },
      ]),
    ].join('\n');
    const { model } = load(yaml);
    const port = renderModel(model).pods[0]?.ports as Record<string, unknown>[];
    assert.deepEqual(port[0]?.ignored, [
      {
        name: 'authorizationpolicy/web-clients',
        reason: `MeshTLSAuthentication ns/clients is invalid (see its error at inline.yaml:${lineOf(yaml, 'Web.Bad')})`,
      },
    ]);
  });

  it('one missing and one invalid reference: both are reported, each as what it is', () => {
    const yaml = [
      pod(),
      server('web'),
      mtls('clients', ['*.bad*']),
      policy('both', { kind: 'Server', name: 'web' }, [
        { kind: 'MeshTLSAuthentication', name: 'clients' },
        { kind: 'NetworkAuthentication', name: 'nowhere' },
      ]),
    ].join('\n');
    const lint = findings(yaml).lint;
    assert.deepEqual(codes(lint).sort(), ['POLICY_AUTHN_REF_MISSING', 'POLICY_REF_INVALID']);
    const missing = lint.find((f) => f.code === 'POLICY_AUTHN_REF_MISSING');
    assert.match(missing?.message ?? '', /^NetworkAuthentication ns\/nowhere does not exist/);
    assert.doesNotMatch(missing?.message ?? '', /clients/);
  });

  it('an invalid route group bound by a binding, and nested by another group', () => {
    const yaml = [
      pod(),
      server('web'),
      extension(
        'HttpRouteBinding',
        'bind',
        '  targetRef: { kind: Server, name: web }\n  routeRefs: [{ name: broken }, { name: outer }]',
      ),
      extension('HttpRouteGroup', 'broken', '  routes: [{ methods: [GET], path: "/a/:" }]'),
      extension('HttpRouteGroup', 'outer', '  routes: [{ routeGroupRef: { name: broken } }]'),
    ].join('\n');
    const { load: problems, lint } = findings(yaml);
    assert.deepEqual(codes(problems), ['POLICY_INVALID_TEMPLATE']);
    assert.deepEqual(
      lint.map((f) => [f.code, f.object]),
      [
        ['POLICY_REF_INVALID', 'HttpRouteBinding ns/bind'],
        ['POLICY_REF_INVALID', 'HttpRouteGroup ns/outer'],
      ],
    );
    assert.match(lint[0]?.message ?? '', /^route group HttpRouteGroup ns\/broken is invalid/);
    assert.match(
      lint[1]?.message ?? '',
      /^nested route group HttpRouteGroup ns\/broken is invalid/,
    );
  });

  it('an invalid HTTPRoute: policies targeting it are told so', () => {
    const yaml = [
      pod(),
      server('web'),
      route('api', 'web', '[{ matches: [{ path: { type: RegularExpression, value: "/(" } }] }]'),
      policy('api-clients', { kind: 'HTTPRoute', name: 'api' }, []),
      extension(
        'TimeoutPolicy',
        'api-slow',
        '  targetRef: { kind: HTTPRoute, name: api }\n  timeout: 1s',
      ),
    ].join('\n');
    const { load: problems, lint } = findings(yaml);
    assert.deepEqual(codes(problems), ['POLICY_INVALID_REGEX']);
    assert.deepEqual(
      lint.map((f) => [f.code, f.object]),
      [
        ['POLICY_REF_INVALID', 'AuthorizationPolicy ns/api-clients'],
        ['POLICY_REF_INVALID', 'TimeoutPolicy ns/api-slow'],
      ],
    );
    for (const f of lint)
      assert.match(
        f.message,
        new RegExp(
          `^target HTTPRoute ns/api is invalid \\(see its error at inline\\.yaml:${lineOf(yaml, '"/("')}\\)`,
        ),
      );
  });

  it('a rejected Pod: decide names its error instead of listing other pods', () => {
    const yaml = [pod({ name: 'good' }), pod({ name: 'bad', ports: [['http', 70000]] })].join('\n');
    const { model, problems } = load(yaml);
    assert.deepEqual(codes(problems), ['POLICY_INVALID_PORT']);
    assert.deepEqual(
      model.podList.map((p) => p.meta.name),
      ['good'],
    );
    assert.throws(
      () => decide(model, { pod: 'ns/bad', port: 8080, path: '/', clientIp: '10.1.1.1' }),
      (error: unknown) =>
        error instanceof LabelwiseError &&
        error.code === 'POLICY_UNKNOWN_POD' &&
        error.message.startsWith(
          `Pod ns/bad is invalid (see its error at inline.yaml:${lineOf(yaml, '70000')})`,
        ),
    );
  });
});

describe('duplicate definitions', () => {
  it('when the first definition is rejected, the second is used and the duplicate still reported', () => {
    const yaml = [
      pod(),
      server('web', { protocol: 'HTTP/7' }),
      server('web', { access: 'all-unauthenticated' }),
      route('api', 'web', '[{ matches: [{ path: { value: /api } }] }]'),
    ].join('\n');
    const { model, problems } = load(yaml);
    const firstLine = lineOf(yaml, 'apiVersion: policy.linkerd.io/v1beta3');
    assert.deepEqual(
      problems.map((p) => [p.severity, p.code, p.line]),
      [
        ['error', 'POLICY_INVALID_PROTOCOL', lineOf(yaml, 'HTTP/7')],
        ['error', 'POLICY_DUPLICATE_OBJECT', lineOf(yaml, 'name: web', 'HTTP/7')],
      ],
    );
    assert.match(
      problems[1]?.message ?? '',
      new RegExp(
        `first definition \\(inline\\.yaml:${firstLine}\\) has errors and is left out, so this one is used`,
      ),
    );
    assert.deepEqual(codes(lintPolicy(model)), []);
    assert.equal(ask(model, { path: '/api' }).route, 'api');
  });

  it('when the first definition is valid, it is used and the second refused', () => {
    const yaml = [
      pod(),
      server('web', { access: 'all-unauthenticated' }),
      server('web', { protocol: 'HTTP/7' }),
    ].join('\n');
    const { model, problems } = load(yaml);
    assert.deepEqual(codes(problems), ['POLICY_DUPLICATE_OBJECT']);
    assert.equal(ask(model, { path: '/' }).server, 'ns/web');
  });
});

describe('POLICY_UNSUPPORTED_API_VERSION', () => {
  const yaml = [
    pod(),
    server('web').replace('policy.linkerd.io/v1beta3', 'policy.linkerd.io/v2'),
    route('api', 'web', '[{ matches: [{ path: { value: /api } }] }]'),
  ].join('\n');

  it('a known kind at an unknown version of its group is a warning, not silence', () => {
    const { load: problems, lint } = findings(yaml);
    assert.deepEqual(
      problems.map((p) => [p.severity, p.code, p.object, p.line, p.path]),
      [
        [
          'warning',
          'POLICY_UNSUPPORTED_API_VERSION',
          'Server ns/web',
          lineOf(yaml, 'policy.linkerd.io/v2'),
          'apiVersion',
        ],
      ],
    );
    assert.deepEqual(codes(lint), ['POLICY_REF_INVALID']);
    assert.match(
      lint[0]?.message ?? '',
      new RegExp(
        `^parent Server ns/web was left out for its apiVersion \\(see inline\\.yaml:${lineOf(yaml, 'policy.linkerd.io/v2')}\\)`,
      ),
    );
  });

  it('kinds of other groups that share a name are still skipped silently', () => {
    const { load: problems } = findings(
      'apiVersion: example.com/v1\nkind: Server\nmetadata: { name: s }\n---\napiVersion: apps/v1\nkind: Pod\nmetadata: { name: p }\n',
    );
    assert.deepEqual(problems, []);
  });
});

describe('targets that do not exist', () => {
  it('an HttpRouteClass on a missing Server', () => {
    const lint = findings(
      [
        pod(),
        extension(
          'HttpRouteClass',
          'reads',
          '  targetRef: { kind: Server, name: nowhere }\n  routeSelector: {}',
        ),
      ].join('\n'),
    ).lint;
    assert.deepEqual(
      lint.map((f) => [f.code, f.object]),
      [['POLICY_TARGET_MISSING', 'HttpRouteClass ns/reads']],
    );
    assert.match(lint[0]?.message ?? '', /Server ns\/nowhere does not exist/);
  });

  it('a ServerAuthorization naming a missing Server, or selecting none', () => {
    const sa = (name: string, server: string): string => `
apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: { name: ${name}, namespace: ns }
spec:
  server: ${server}
  client: { unauthenticated: true }
---`;
    const lint = findings(
      [
        pod(),
        server('web', { labels: { tier: 'front' } }),
        sa('by-name', '{ name: webb }'),
        sa('by-selector', '{ selector: { matchLabels: { tier: back } } }'),
        sa('fine', '{ selector: { matchLabels: { tier: front } } }'),
      ].join('\n'),
    ).lint;
    assert.deepEqual(
      lint.map((f) => [f.code, f.object]),
      [
        ['POLICY_TARGET_MISSING', 'ServerAuthorization ns/by-name'],
        ['POLICY_TARGET_MISSING', 'ServerAuthorization ns/by-selector'],
      ],
    );
    assert.match(lint[1]?.message ?? '', /tier=back selects none of the Servers/);
  });
});

describe('request input', () => {
  it('a request path must be absolute', () => {
    const { model } = load(pod());
    for (const path of ['books', '', '?q=1']) {
      assert.throws(
        () => decide(model, { pod: 'ns/pod', port: 8080, path, clientIp: '10.1.1.1' }),
        (error: unknown) =>
          error instanceof LabelwiseError && error.code === 'POLICY_RELATIVE_PATH',
        path,
      );
    }
    assert.equal(
      decide(model, { pod: 'ns/pod', port: 8080, path: '/?q=1', clientIp: '10.1.1.1' }).status,
      200,
    );
  });
});
