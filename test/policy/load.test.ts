// Loading and Linkerd's admission rules: every error carries its code, line and path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { load } from './helpers.js';

const AP = (spec: string): string =>
  `apiVersion: policy.linkerd.io/v1alpha1\nkind: AuthorizationPolicy\nmetadata: { name: p, namespace: ns }\nspec:\n${spec}`;
const SERVER = (spec: string): string =>
  `apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: { name: s, namespace: ns }\nspec:\n${spec}`;
const ROUTE = (rules: string): string =>
  `apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: { name: r, namespace: ns }\nspec:\n  parentRefs: [{ group: policy.linkerd.io, kind: Server, name: s }]\n  rules:\n${rules}`;

const vectors: {
  name: string;
  yaml: string;
  errors: [code: string, line: number, path?: string][];
}[] = [
  {
    name: 'namespace target must be the own namespace',
    yaml: AP('  targetRef: { kind: Namespace, name: other }\n  requiredAuthenticationRefs: []\n'),
    errors: [['POLICY_TARGET_OTHER_NAMESPACE', 5, 'spec.targetRef.name']],
  },
  {
    name: 'at most one authentication of each kind',
    yaml: AP(
      '  targetRef: { group: policy.linkerd.io, kind: Server, name: s }\n  requiredAuthenticationRefs:\n    - { group: policy.linkerd.io, kind: NetworkAuthentication, name: a }\n    - { group: policy.linkerd.io, kind: NetworkAuthentication, name: b }\n',
    ),
    errors: [['POLICY_DUPLICATE_AUTHENTICATION', 8, 'spec.requiredAuthenticationRefs[1]']],
  },
  {
    name: 'unsupported target kind',
    yaml: AP('  targetRef: { kind: Deployment, name: x }\n  requiredAuthenticationRefs: []\n'),
    errors: [['POLICY_UNSUPPORTED_REF', 5, 'spec.targetRef.kind']],
  },
  {
    name: 'requiredAuthenticationRefs is required',
    yaml: AP('  targetRef: { group: policy.linkerd.io, kind: Server, name: s }\n'),
    errors: [['POLICY_MISSING_FIELD', 5, 'spec']],
  },
  {
    name: 'malformed identity',
    yaml: 'apiVersion: policy.linkerd.io/v1alpha1\nkind: MeshTLSAuthentication\nmetadata: { name: m, namespace: ns }\nspec:\n  identities:\n    - "web.*.cluster.local"\n',
    errors: [['POLICY_INVALID_IDENTITY', 6, 'spec.identities[0]']],
  },
  {
    name: 'identities and identityRefs together',
    yaml: 'apiVersion: policy.linkerd.io/v1alpha1\nkind: MeshTLSAuthentication\nmetadata: { name: m, namespace: ns }\nspec:\n  identities: ["*"]\n  identityRefs: [{ kind: Namespace, name: x }]\n',
    errors: [['POLICY_INVALID_AUTHENTICATION', 5, 'spec']],
  },
  {
    name: 'except outside its cidr',
    yaml: 'apiVersion: policy.linkerd.io/v1alpha1\nkind: NetworkAuthentication\nmetadata: { name: n, namespace: ns }\nspec:\n  networks:\n    - cidr: 10.0.0.0/16\n      except: [10.1.0.0/24]\n',
    errors: [['POLICY_INVALID_NETWORK', 7, 'spec.networks[0].except[0]']],
  },
  {
    name: 'legacy octal-looking address refused',
    yaml: 'apiVersion: policy.linkerd.io/v1alpha1\nkind: NetworkAuthentication\nmetadata: { name: n, namespace: ns }\nspec:\n  networks:\n    - cidr: 010.0.0.0/8\n',
    errors: [['POLICY_INVALID_NETWORK', 6, 'spec.networks[0].cidr']],
  },
  {
    name: 'unknown accessPolicy',
    yaml: SERVER('  podSelector: {}\n  port: 80\n  accessPolicy: allow-all\n'),
    errors: [['POLICY_INVALID_ACCESS_POLICY', 7, 'spec.accessPolicy']],
  },
  {
    name: 'unknown proxyProtocol',
    yaml: SERVER('  podSelector: {}\n  port: 80\n  proxyProtocol: HTTP/3\n'),
    errors: [['POLICY_INVALID_PROTOCOL', 7, 'spec.proxyProtocol']],
  },
  {
    name: 'podSelector required',
    yaml: SERVER('  port: 80\n'),
    errors: [['POLICY_MISSING_FIELD', 5, 'spec']],
  },
  {
    name: 'bad port',
    yaml: SERVER('  podSelector: {}\n  port: 70000\n'),
    errors: [['POLICY_INVALID_PORT', 6, 'spec.port']],
  },
  {
    name: 'bad selector operator',
    yaml: SERVER(
      '  podSelector:\n    matchExpressions: [{ key: app, operator: Equals, values: [x] }]\n  port: 80\n',
    ),
    errors: [['POLICY_INVALID_SELECTOR', 6, 'spec.podSelector.matchExpressions[0].operator']],
  },
  {
    name: 'invalid regex',
    yaml: ROUTE('    - matches: [{ path: { type: RegularExpression, value: "/a(" } }]\n'),
    errors: [['POLICY_INVALID_REGEX', 7, 'spec.rules[0].matches[0].path.value']],
  },
  {
    name: 'lookaround is not RE2 (nor Rust regex) syntax',
    yaml: ROUTE(
      '    - matches: [{ headers: [{ type: RegularExpression, name: x, value: "(?=a)b" }] }]\n',
    ),
    errors: [['POLICY_INVALID_REGEX', 7, 'spec.rules[0].matches[0].headers[0].value']],
  },
  {
    name: 'relative path',
    yaml: ROUTE('    - matches:\n        - path: { type: PathPrefix, value: "api" }\n'),
    errors: [['POLICY_RELATIVE_PATH', 8, 'spec.rules[0].matches[0].path.value']],
  },
  {
    name: 'unsupported filter',
    yaml: ROUTE('    - filters: [{ type: Bogus }]\n'),
    errors: [['POLICY_UNSUPPORTED_FILTER', 7, 'spec.rules[0].filters[0].type']],
  },
  {
    name: 'bad hostname',
    yaml: 'apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: { name: r, namespace: ns }\nspec:\n  hostnames: ["a.*.com"]\n',
    errors: [['POLICY_INVALID_HOSTNAME', 5, 'spec.hostnames[0]']],
  },
  {
    name: 'ServerAuthorization: unauthenticatedTLS together with identities',
    yaml: 'apiVersion: policy.linkerd.io/v1beta1\nkind: ServerAuthorization\nmetadata: { name: sa, namespace: ns }\nspec:\n  server: { name: s }\n  client:\n    meshTLS:\n      unauthenticatedTLS: true\n      identities: ["*"]\n',
    errors: [['POLICY_INVALID_CLIENT', 8, 'spec.client.meshTLS.unauthenticatedTLS']],
  },
  {
    name: 'redirect status other than 301 or 302',
    yaml: ROUTE(
      '    - filters: [{ type: RequestRedirect, requestRedirect: { hostname: a.b, statusCode: 307 } }]\n',
    ),
    errors: [['POLICY_INVALID_FILTER', 7, 'spec.rules[0].filters[0].requestRedirect.statusCode']],
  },
  {
    name: 'a name that is not a DNS subdomain',
    yaml: SERVER('  podSelector: {}\n  port: 80\n').replace('name: s,', 'name: Web_1,'),
    errors: [['POLICY_INVALID_NAME', 3, 'metadata.name']],
  },
  {
    name: 'ServerAuthorization server needs exactly one of name and selector',
    yaml: 'apiVersion: policy.linkerd.io/v1beta1\nkind: ServerAuthorization\nmetadata: { name: sa, namespace: ns }\nspec:\n  server: {}\n  client: { unauthenticated: true }\n',
    errors: [['POLICY_INVALID_SERVER_REF', 5, 'spec.server']],
  },
  {
    name: 'kind List is not read',
    yaml: 'apiVersion: v1\nkind: List\nitems: []\n',
    errors: [['POLICY_UNSUPPORTED_LIST', 3, 'items']],
  },
  {
    name: 'a group route needs a path or a routeGroupRef',
    yaml: 'apiVersion: policy.labelwise.dev/v1alpha1\nkind: HttpRouteGroup\nmetadata: { name: g, namespace: ns }\nspec:\n  routes:\n    - { methods: [GET] }\n',
    errors: [['POLICY_INVALID_ROUTE', 6, 'spec.routes[0]']],
  },
  {
    name: 'a rewrite rule needs set or clear',
    yaml: 'apiVersion: policy.labelwise.dev/v1alpha1\nkind: HeaderRewritePolicy\nmetadata: { name: r, namespace: ns }\nspec:\n  targetRef: { kind: Server, name: web }\n  rules:\n    - match: []\n',
    errors: [['POLICY_INVALID_REWRITE', 7, 'spec.rules[0]']],
  },
  {
    name: 'YAML syntax error is located',
    yaml: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: [unclosed\n',
    errors: [['POLICY_YAML_SYNTAX', 5]],
  },
  {
    name: 'duplicate object',
    yaml:
      SERVER('  podSelector: {}\n  port: 80\n') +
      '\n---\n' +
      SERVER('  podSelector: {}\n  port: 81\n'),
    errors: [['POLICY_DUPLICATE_OBJECT', 11, 'metadata.name']],
  },
  {
    name: 'bad creationTimestamp',
    yaml: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\n  creationTimestamp: yesterday\n',
    errors: [['POLICY_INVALID_FIELD', 6, 'metadata.creationTimestamp']],
  },
];

describe('policy admission rules', () => {
  for (const v of vectors) {
    it(v.name, () => {
      const { problems } = load(v.yaml);
      assert.deepEqual(
        problems.map((p) => (p.path === undefined ? [p.code, p.line] : [p.code, p.line, p.path])),
        v.errors.map((e) => (e[2] === undefined ? [e[0], e[1]] : e)),
        JSON.stringify(problems, null, 2),
      );
      for (const p of problems) {
        assert.equal(p.file, 'inline.yaml');
        assert.equal(p.severity, 'error');
      }
    });
  }

  it('route groups that nest in a cycle are reported, not followed for ever', () => {
    const group = (name: string, ref: string): string =>
      `apiVersion: policy.labelwise.dev/v1alpha1\nkind: HttpRouteGroup\nmetadata: { name: ${name}, namespace: ns }\nspec:\n  routes:\n    - routeGroupRef: { name: ${ref} }\n---\n`;
    const { model, problems } = load(
      `${SERVER('  podSelector: {}\n  port: 80\n')}\n---\n${group('a', 'b')}${group('b', 'a')}apiVersion: policy.labelwise.dev/v1alpha1\nkind: HttpRouteBinding\nmetadata: { name: bind, namespace: ns }\nspec:\n  targetRef: { kind: Server, name: s }\n  routeRefs: [{ name: a }]\n`,
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(
      model.problems.map((p) => p.code),
      ['POLICY_ROUTE_GROUP_CYCLE'],
    );
  });

  it('admitted objects Linkerd never applies are reported: a dropped ServerAuthorization, unused rate limits', () => {
    const rl = (name: string, server: string, created: string): string =>
      `apiVersion: policy.linkerd.io/v1alpha1\nkind: HTTPLocalRateLimitPolicy\nmetadata: { name: ${name}, namespace: ns, creationTimestamp: "${created}" }\nspec:\n  targetRef: { group: policy.linkerd.io, kind: Server, name: ${server} }\n  total: { requestsPerSecond: 10 }\n---\n`;
    const { model, problems } = load(
      `${SERVER('  podSelector: {}\n  port: 80\n')}\n---\n` +
        'apiVersion: policy.linkerd.io/v1beta1\nkind: ServerAuthorization\nmetadata: { name: nobody, namespace: ns }\nspec:\n  server: { name: s }\n  client: {}\n---\n' +
        rl('older', 's', '2024-01-01T00:00:00Z') +
        rl('newer', 's', '2024-02-01T00:00:00Z') +
        rl('lost', 'missing', '2024-01-01T00:00:00Z'),
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(model.problems.map((p) => [p.code, p.object]).sort(), [
      ['POLICY_RATE_LIMIT_UNUSED', 'HTTPLocalRateLimitPolicy ns/newer'],
      ['POLICY_SERVER_AUTHORIZATION_DROPPED', 'ServerAuthorization ns/nobody'],
      ['POLICY_TARGET_MISSING', 'HTTPLocalRateLimitPolicy ns/lost'],
    ]);
  });

  it('objects of other kinds and API groups are skipped silently', () => {
    const { problems, model } = load(
      'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: d }\n---\napiVersion: v1\nkind: Secret\nmetadata: { name: s }\n',
    );
    assert.deepEqual(problems, []);
    assert.equal(model.podList.length, 0);
  });

  it('hostile YAML: alias bombs fail with an error, not a hang', () => {
    const bomb =
      'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n';
    const { problems } = load(bomb);
    assert.deepEqual(
      problems.map((p) => p.code),
      ['POLICY_YAML_SYNTAX'],
    );
  });

  it('nesting deeper than the stack is a located YAML error in words, not a crash', () => {
    const deep = `x: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`;
    const { problems } = load(
      `apiVersion: v1\nkind: Namespace\nmetadata: { name: ns }\n---\n${deep}`,
    );
    assert.deepEqual(
      problems.map((p) => [p.code, p.line]),
      [['POLICY_YAML_SYNTAX', 5]],
    );
    assert.match(problems[0]?.message ?? '', /nests too deeply/);
  });

  it('an unquoted number in an annotation: the pod is left out, and the hint says to quote it', () => {
    const { model, problems } = load(
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\n  annotations:\n    config.linkerd.io/opaque-ports: 3306\n',
    );
    assert.deepEqual(
      problems.map((p) => [p.code, p.line, p.path, p.hint]),
      [
        [
          'POLICY_INVALID_FIELD',
          7,
          'metadata.annotations["config.linkerd.io/opaque-ports"]',
          'quote the value: "3306"',
        ],
      ],
    );
    assert.equal(model.pod('ns', 'p'), undefined);
  });

  it('a problem about a whole document has no (empty) path', () => {
    const { problems } = load('- a list\n---\n42\n');
    assert.deepEqual(
      problems.map((p) => [p.code, p.line, p.object, 'path' in p]),
      [
        ['POLICY_NOT_AN_OBJECT', 1, 'document 1', false],
        ['POLICY_NOT_AN_OBJECT', 3, 'document 2', false],
      ],
    );
  });

  it('labels named __proto__ and constructor stay labels', () => {
    const { model } = load(
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\n  labels: { constructor: x, toString: y }\n',
    );
    const pod = model.pod('ns', 'p');
    assert.equal(pod?.meta.labels.constructor, 'x');
    assert.equal(Object.getPrototypeOf(pod?.meta.labels), null);
  });

  it('null podSelector selects nothing; {} selects every pod of the namespace', () => {
    const pods =
      'apiVersion: v1\nkind: Pod\nmetadata: { name: p, namespace: ns, labels: { app: x } }\nspec: { containers: [{ name: c, ports: [{ containerPort: 80 }] }] }\n---\n';
    const none = load(
      pods + SERVER('  podSelector: null\n  port: 80\n  accessPolicy: all-unauthenticated\n'),
    );
    const all = load(
      pods + SERVER('  podSelector: {}\n  port: 80\n  accessPolicy: all-unauthenticated\n'),
    );
    const p1 = none.model.pod('ns', 'p');
    const p2 = all.model.pod('ns', 'p');
    assert.ok(p1 && p2);
    assert.equal(none.model.portPolicy(p1, 80).server, 'default:all-unauthenticated');
    assert.equal(all.model.portPolicy(p2, 80).server, 'ns/s');
  });
});
