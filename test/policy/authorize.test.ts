// Request vectors for docs/policy.md, "How a request is decided" and "Route precedence", each
// scenario a YAML fixture and a table of requests.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Decision, DecideInput, SettingsInput } from '../../src/policy/index.js';
import { ID, ask, model, mtls, network, pod, policy, route, server } from './helpers.js';

interface Vector {
  name: string;
  request: Partial<DecideInput> & { path: string };
  want: Partial<Decision>;
}

interface Scenario {
  name: string;
  yaml: string;
  settings?: SettingsInput;
  vectors: Vector[];
}

const anyone = (name: string): string => policy(name, { kind: 'Server', name: 'web' }, []);
const prefix = (value: string, extra = ''): string =>
  `{ matches: [{ path: { type: PathPrefix, value: "${value}" }${extra} }] }`;
const exact = (value: string, extra = ''): string =>
  `{ matches: [{ path: { type: Exact, value: "${value}" }${extra} }] }`;

const scenarios: Scenario[] = [
  {
    name: 'servers and defaults: default policies',
    yaml: pod(),
    vectors: [
      {
        name: 'cluster default all-unauthenticated admits anyone',
        request: { path: '/', clientIp: '8.8.8.8' },
        want: {
          decision: 'allow',
          status: 200,
          server: 'default:all-unauthenticated',
          route: 'default',
          authorization: 'default:all-unauthenticated',
        },
      },
      {
        name: 'IPv6 client admitted too',
        request: { path: '/x', clientIp: '2001:db8::1' },
        want: { decision: 'allow', authorization: 'default:all-unauthenticated' },
      },
    ],
  },
  {
    name: 'servers and defaults: cluster default cluster-unauthenticated',
    yaml: pod(),
    settings: { defaultPolicy: 'cluster-unauthenticated' },
    vectors: [
      {
        name: 'outside the cluster networks: 403',
        request: { path: '/', clientIp: '8.8.8.8' },
        want: {
          decision: 'deny',
          status: 403,
          server: 'default:cluster-unauthenticated',
          route: 'default',
        },
      },
      {
        name: 'inside the cluster networks',
        request: { path: '/', clientIp: '192.168.1.4' },
        want: { decision: 'allow', authorization: 'default:cluster-unauthenticated' },
      },
      {
        name: 'localhost is always allowed',
        request: { path: '/', clientIp: '127.0.0.1' },
        want: { decision: 'allow', authorization: 'localhost' },
      },
    ],
  },
  {
    name: 'servers and defaults: pod annotation deny',
    yaml: pod({ annotations: { 'config.linkerd.io/default-inbound-policy': 'deny' } }),
    vectors: [
      {
        name: 'deny: 403 on the default route',
        request: { path: '/', identity: ID('x') },
        want: {
          decision: 'deny',
          status: 403,
          server: 'default:deny',
          route: 'default',
          authorization: null,
        },
      },
      {
        name: 'localhost still allowed',
        request: { path: '/', clientIp: '::1' },
        want: { decision: 'allow', authorization: 'localhost' },
      },
    ],
  },
  {
    name: 'servers and defaults: namespace annotation reaches the pod',
    yaml: `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns\n  annotations: { config.linkerd.io/default-inbound-policy: all-authenticated }\n---${pod()}`,
    vectors: [
      {
        name: 'plaintext client denied',
        request: { path: '/' },
        want: { decision: 'deny', server: 'default:all-authenticated' },
      },
      {
        name: 'any meshed identity admitted',
        request: { path: '/', identity: ID('anything', 'other') },
        want: { decision: 'allow', authorization: 'default:all-authenticated' },
      },
    ],
  },
  {
    name: 'servers and defaults: require-identity ports upgrade the default',
    yaml: pod({
      ports: [
        ['http', 8080],
        ['admin', 9990],
      ],
      annotations: { 'config.linkerd.io/proxy-require-identity-inbound-ports': '8080,9000-9100' },
    }),
    settings: { defaultPolicy: 'cluster-unauthenticated' },
    vectors: [
      {
        name: 'listed port: cluster-authenticated',
        request: { path: '/' },
        want: { decision: 'deny', server: 'default:cluster-authenticated' },
      },
      {
        name: 'listed port with identity',
        request: { path: '/', identity: ID('a') },
        want: { decision: 'allow', authorization: 'default:cluster-authenticated' },
      },
      {
        name: 'port in a listed range',
        request: { path: '/', port: 9050 },
        want: { server: 'default:cluster-authenticated' },
      },
      {
        name: 'other port unchanged',
        request: { path: '/', port: 7000 },
        want: { decision: 'allow', server: 'default:cluster-unauthenticated' },
      },
    ],
  },
  {
    name: 'servers and defaults: Server ordering: oldest, then name; no timestamp is newest',
    yaml:
      pod() +
      server('zeta', { created: '2024-01-01T00:00:00Z', access: 'all-unauthenticated' }) +
      server('alpha', { created: '2024-02-01T00:00:00Z' }) +
      server('undated', {}),
    vectors: [
      {
        name: 'the oldest wins over a lower name',
        request: { path: '/' },
        want: {
          server: 'ns/zeta',
          decision: 'allow',
          authorization: 'default:all-unauthenticated',
        },
      },
    ],
  },
  {
    name: 'servers and defaults: Server ordering: equal timestamps go by name',
    yaml:
      pod() +
      server('b-server', { created: '2024-01-01T00:00:00Z' }) +
      server('a-server', { created: '2024-01-01T00:00:00+00:00', access: 'all-unauthenticated' }),
    vectors: [
      {
        name: 'lower name wins',
        request: { path: '/' },
        want: { server: 'ns/a-server', decision: 'allow' },
      },
    ],
  },
  {
    name: 'servers and defaults: named ports and unmatched ports',
    yaml:
      pod({
        ports: [
          ['http', 8080],
          ['http', 8081],
          ['metrics', 9000],
        ],
      }) +
      server('web', { port: 'http', access: 'all-unauthenticated' }) +
      server('undeclared', { port: 7777, access: 'all-unauthenticated' }),
    vectors: [
      {
        // Linkerd's links_unnamed_server_port: a number governs whether declared or not.
        name: 'a numeric Server port applies though no container declares it',
        request: { path: '/', port: 7777 },
        want: { server: 'ns/undeclared' },
      },
      {
        name: 'a name resolving to 8080',
        request: { path: '/', port: 8080 },
        want: { server: 'ns/web' },
      },
      {
        name: 'the same name resolving to 8081',
        request: { path: '/', port: 8081 },
        want: { server: 'ns/web' },
      },
      {
        name: 'another port falls back to the default',
        request: { path: '/', port: 9000 },
        want: { server: 'default:all-unauthenticated' },
      },
    ],
  },
  {
    name: 'authorization policies: a Server with nothing attached denies',
    yaml: pod() + server('web'),
    vectors: [
      {
        name: 'accessPolicy defaults to deny',
        request: { path: '/', identity: ID('a') },
        want: { decision: 'deny', status: 403, server: 'ns/web', route: 'default' },
      },
    ],
  },
  {
    name: 'authorization policies: AND within a policy, OR across policies',
    yaml:
      pod() +
      server('web') +
      mtls('clients', [ID('frontend')]) +
      network('office', [{ cidr: '10.0.0.0/8', except: ['10.9.0.0/16'] }]) +
      policy('both', { kind: 'Server', name: 'web' }, [
        { kind: 'MeshTLSAuthentication', name: 'clients' },
        { kind: 'NetworkAuthentication', name: 'office' },
      ]) +
      policy('admin', { kind: 'Server', name: 'web' }, [{ kind: 'ServiceAccount', name: 'admin' }]),
    vectors: [
      {
        name: 'identity and network both hold',
        request: { path: '/', identity: ID('frontend'), clientIp: '10.1.2.3' },
        want: { decision: 'allow', authorization: 'authorizationpolicy/both' },
      },
      {
        name: 'identity holds, network does not',
        request: { path: '/', identity: ID('frontend'), clientIp: '192.168.1.1' },
        want: { decision: 'deny' },
      },
      {
        name: 'network holds, client unauthenticated',
        request: { path: '/', clientIp: '10.1.2.3' },
        want: { decision: 'deny' },
      },
      {
        name: 'CIDR except excludes the address',
        request: { path: '/', identity: ID('frontend'), clientIp: '10.9.0.7' },
        want: { decision: 'deny' },
      },
      {
        name: 'the other policy admits (OR)',
        request: { path: '/', identity: ID('admin'), clientIp: '8.8.8.8' },
        want: { decision: 'allow', authorization: 'authorizationpolicy/admin' },
      },
    ],
  },
  {
    name: 'authorization policies: a missing authentication drops the policy (fail closed)',
    yaml:
      pod() +
      server('web') +
      policy('typo', { kind: 'Server', name: 'web' }, [
        { kind: 'MeshTLSAuthentication', name: 'clinets' },
      ]),
    vectors: [
      {
        name: 'nobody is authorized',
        request: { path: '/', identity: ID('frontend') },
        want: { decision: 'deny', authorization: null },
      },
    ],
  },
  {
    name: 'authorization policies: a Namespace-targeted policy reaches every Server',
    yaml:
      `apiVersion: v1\nkind: Namespace\nmetadata: { name: ns }\n---` +
      pod() +
      server('web') +
      policy('ns-wide', { kind: 'Namespace', name: 'ns' }, [
        { kind: 'ServiceAccount', name: 'ops' },
      ]),
    vectors: [
      {
        name: 'admitted through the namespace',
        request: { path: '/', identity: ID('ops') },
        want: { decision: 'allow', authorization: 'authorizationpolicy/ns-wide' },
      },
      {
        name: 'ServiceAccount of another namespace does not match',
        request: { path: '/', identity: ID('ops', 'other') },
        want: { decision: 'deny' },
      },
    ],
  },
  {
    name: 'authorization policies: legacy ServerAuthorization',
    yaml:
      pod() +
      server('web', { labels: { tier: 'front' } }) +
      `
apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: { name: by-name, namespace: ns }
spec:
  server: { name: web }
  client:
    meshTLS:
      serviceAccounts: [{ name: frontend }]
---
apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: { name: by-selector, namespace: ns }
spec:
  server: { selector: { matchLabels: { tier: front } } }
  client:
    unauthenticated: true
    networks: [{ cidr: 192.168.0.0/16 }]
---
apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: { name: not-selected, namespace: ns }
spec:
  server: { selector: { matchLabels: { tier: back } } }
  client: { unauthenticated: true }
---`,
    vectors: [
      {
        name: 'by name with a service account',
        request: { path: '/', identity: ID('frontend'), clientIp: '10.2.2.2' },
        want: { decision: 'allow', authorization: 'serverauthorization/by-name' },
      },
      {
        name: 'meshTLS without networks means the cluster networks',
        request: { path: '/', identity: ID('frontend'), clientIp: '8.8.8.8' },
        want: { decision: 'deny' },
      },
      {
        name: 'by selector, unauthenticated from its network',
        request: { path: '/', clientIp: '192.168.3.3' },
        want: { decision: 'allow', authorization: 'serverauthorization/by-selector' },
      },
      {
        name: 'a selector over other Servers does not apply',
        request: { path: '/', clientIp: '10.3.3.3' },
        want: { decision: 'deny' },
      },
    ],
  },
  {
    name: 'routes: default and probe routes on a Server without routes',
    yaml:
      pod({
        probes: [
          ['/healthz', 8080],
          ['/ready', 'http'],
        ],
      }) + server('web'),
    vectors: [
      {
        name: 'probe path is authorized for unauthenticated clients',
        request: { path: '/healthz', clientIp: '172.20.0.1' },
        want: { decision: 'allow', route: 'probe', authorization: 'probe' },
      },
      {
        name: 'probe on a named port',
        request: { path: '/ready', clientIp: '8.8.8.8' },
        want: { decision: 'allow', route: 'probe' },
      },
      {
        name: 'probe route is GET only',
        request: { path: '/healthz', method: 'POST' },
        want: { decision: 'deny', route: 'default' },
      },
      {
        name: 'other paths take the default route',
        request: { path: '/api' },
        want: { decision: 'deny', route: 'default' },
      },
    ],
  },
  {
    name: 'routes: default server gets the probe route too',
    yaml: pod({
      probes: [['/healthz', 8080]],
      annotations: { 'config.linkerd.io/default-inbound-policy': 'deny' },
    }),
    vectors: [
      {
        name: 'probe allowed under deny',
        request: { path: '/healthz', clientIp: '10.0.0.5' },
        want: { decision: 'allow', server: 'default:deny', route: 'probe', authorization: 'probe' },
      },
    ],
  },
  {
    name: 'routes: no probe networks: no probe route',
    yaml: pod({ probes: [['/healthz', 8080]] }) + server('web'),
    settings: { probeNetworks: '' },
    vectors: [
      {
        name: 'probe falls to the default route',
        request: { path: '/healthz' },
        want: { decision: 'deny', route: 'default' },
      },
    ],
  },
  {
    name: 'routes: attaching the first route removes default and probe',
    yaml:
      pod({ probes: [['/healthz', 8080]] }) +
      server('web') +
      route('api', 'web', `[${prefix('/api')}]`) +
      anyone('open'),
    vectors: [
      {
        name: 'the probe path now 404s',
        request: { path: '/healthz' },
        want: { decision: 'not-found', status: 404, route: null, authorization: null },
      },
      {
        name: 'the route answers, with the Server authorization',
        request: { path: '/api/v1' },
        want: {
          decision: 'allow',
          route: 'api',
          rule: 0,
          authorization: 'authorizationpolicy/open',
        },
      },
    ],
  },
  {
    name: 'routes: route acceptance: missing parent, ignored parentRef, GRPCRoute outranks HTTPRoute',
    yaml:
      pod({
        ports: [
          ['http', 8080],
          ['grpc', 9090],
        ],
      }) +
      server('web', { access: 'all-unauthenticated' }) +
      server('grpc', { port: 9090, protocol: 'gRPC', access: 'all-unauthenticated' }) +
      route('orphan', 'nope', `[${prefix('/x')}]`) +
      `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: with-port, namespace: ns }
spec:
  parentRefs: [{ group: policy.linkerd.io, kind: Server, name: web, port: 8080 }]
  rules: [${prefix('/y')}]
---` +
      route('h', 'grpc', `[${prefix('/')}]`) +
      route('g', 'grpc', `[{ matches: [{ method: { service: pkg.Books, method: Get } }] }]`, {
        kind: 'GRPCRoute',
      }),
    vectors: [
      {
        name: 'web keeps its default route',
        request: { path: '/y' },
        want: { route: 'default', decision: 'allow' },
      },
      {
        name: 'gRPC method routed',
        request: { path: '/pkg.Books/Get', method: 'POST', port: 9090 },
        want: { route: 'g', decision: 'allow' },
      },
      {
        name: 'the conflicted HTTPRoute does not apply',
        request: { path: '/other', method: 'POST', port: 9090 },
        want: { decision: 'not-found' },
      },
    ],
  },
  {
    name: 'precedence: Exact and PathPrefix tie in linkerd mode; Exact wins in gateway-api mode',
    yaml:
      pod() +
      server('web', { access: 'all-unauthenticated' }) +
      route('prefix-old', 'web', `[${prefix('/books')}]`, { created: '2024-01-01T00:00:00Z' }) +
      route('exact-new', 'web', `[${exact('/books')}]`, { created: '2024-06-01T00:00:00Z' }),
    vectors: [
      {
        name: 'linkerd: equal score, the older route wins',
        request: { path: '/books' },
        want: { route: 'prefix-old', precedence: 'linkerd' },
      },
      {
        name: 'gateway-api: Exact beats PathPrefix',
        request: { path: '/books', precedence: 'gateway-api' },
        want: { route: 'exact-new', precedence: 'gateway-api' },
      },
      {
        name: 'prefix still serves deeper paths',
        request: { path: '/books/1' },
        want: { route: 'prefix-old' },
      },
    ],
  },
  {
    name: 'precedence: path scores: longer prefix, whole segments, trailing slashes, regex',
    yaml:
      pod() +
      server('web', { access: 'all-unauthenticated' }) +
      route(
        'r',
        'web',
        `[${prefix('/')}, ${prefix('/api/')}, ${prefix('/api/v1')}, { matches: [{ path: { type: RegularExpression, value: "/a|/ab" } }] }, { matches: [{ path: { type: RegularExpression, value: "/items/[0-9]+" } }] }]`,
      ),
    vectors: [
      { name: 'longest prefix wins', request: { path: '/api/v1/books' }, want: { rule: 1 + 1 } },
      {
        name: 'a prefix matches whole segments only',
        request: { path: '/api/v10' },
        want: { rule: 1 },
      },
      {
        name: 'trailing slash ignored on both sides',
        request: { path: '/api/v1/' },
        want: { rule: 2 },
      },
      {
        name: 'prefix with trailing slash matches the bare path',
        request: { path: '/api' },
        want: { rule: 1 },
      },
      {
        name: 'regex must span the whole path (leftmost-first)',
        request: { path: '/ab' },
        want: { rule: 0 },
      },
      { name: 'regex scores the path length', request: { path: '/items/42' }, want: { rule: 4 } },
      {
        name: 'root prefix scores 1 and matches anything',
        request: { path: '/zzz' },
        want: { rule: 0 },
      },
    ],
  },
  {
    name: 'precedence: headers before method in linkerd mode, method before headers in gateway-api mode',
    yaml:
      pod() +
      server('web', { access: 'all-unauthenticated' }) +
      route(
        'r',
        'web',
        `[${prefix('/x', ', headers: [{ name: X-Env, value: prod }]')}, ${prefix('/x', ', method: GET')}, ${prefix('/x', ', queryParams: [{ name: debug, value: "1" }]')}]`,
      ),
    vectors: [
      {
        name: 'linkerd: the header matcher wins',
        request: { path: '/x', headers: [['x-env', 'prod']] },
        want: { rule: 0 },
      },
      {
        name: 'gateway-api: the method wins',
        request: { path: '/x', headers: [['X-ENV', 'prod']], precedence: 'gateway-api' },
        want: { rule: 1 },
      },
      {
        name: 'linkerd: query matcher beats method',
        request: { path: '/x?debug=1' },
        want: { rule: 2 },
      },
      {
        name: 'a repeated header matches on any of its values',
        request: {
          path: '/x',
          headers: [
            ['x-env', 'dev'],
            ['x-env', 'prod'],
          ],
        },
        want: { rule: 0 },
      },
      {
        name: 'a repeated query parameter matches on any of its values',
        request: { path: '/x?debug=0&debug=1' },
        want: { rule: 2 },
      },
      {
        name: 'header value is case-sensitive',
        request: { path: '/x', method: 'POST', headers: [['x-env', 'Prod']] },
        want: { decision: 'not-found' },
      },
    ],
  },
  {
    name: 'precedence: hosts first: exact beats wildcard, longer wildcard beats shorter, no hostnames last',
    yaml:
      pod() +
      server('web', { access: 'all-unauthenticated' }) +
      route('any-host', 'web', `[${exact('/deep/path/here')}]`) +
      route('short-wild', 'web', `[${prefix('/')}]`, { hostnames: ['*.example.com'] }) +
      route('long-wild', 'web', `[${prefix('/')}]`, { hostnames: ['*.api.example.com'] }) +
      route('exact-host', 'web', `[${prefix('/')}]`, { hostnames: ['books.api.example.com'] }),
    vectors: [
      {
        name: 'exact hostname wins',
        request: { path: '/deep/path/here', host: 'Books.API.example.com:8080' },
        want: { route: 'exact-host' },
      },
      {
        name: 'longer wildcard beats shorter',
        request: { path: '/', host: 'x.api.example.com' },
        want: { route: 'long-wild' },
      },
      {
        name: 'a host match outranks a longer path',
        request: { path: '/deep/path/here', host: 'www.example.com' },
        want: { route: 'short-wild' },
      },
      {
        name: 'wildcard does not match the bare domain',
        request: { path: '/deep/path/here', host: 'example.com' },
        want: { route: 'any-host' },
      },
      {
        name: 'no host: only routes without hostnames',
        request: { path: '/' },
        want: { decision: 'not-found' },
      },
    ],
  },
  {
    name: 'precedence: tie-breaks: oldest route, then name, then rule order',
    yaml:
      pod() +
      server('web', { access: 'all-unauthenticated' }) +
      route('b-old', 'web', `[${prefix('/t')}]`, { created: '2024-01-01T00:00:00Z' }) +
      route('a-new', 'web', `[${prefix('/t')}]`, { created: '2024-03-01T00:00:00Z' }) +
      route('a-same', 'web', `[${prefix('/u')}, ${prefix('/u')}]`, {
        created: '2024-01-01T00:00:00Z',
      }) +
      route('b-same', 'web', `[${prefix('/u')}]`, { created: '2024-01-01T00:00:00Z' }),
    vectors: [
      { name: 'oldest route', request: { path: '/t' }, want: { route: 'b-old' } },
      {
        name: 'same age: name, then first rule',
        request: { path: '/u' },
        want: { route: 'a-same', rule: 0 },
      },
    ],
  },
  {
    name: 'authorization: a route is never stricter than its Server',
    yaml:
      pod() +
      server('web') +
      route('admin', 'web', `[${prefix('/admin')}]`) +
      policy('admin-only', { kind: 'HTTPRoute', name: 'admin' }, [
        { kind: 'ServiceAccount', name: 'admin' },
      ]) +
      policy('frontend', { kind: 'Server', name: 'web' }, [
        { kind: 'ServiceAccount', name: 'frontend' },
      ]),
    vectors: [
      {
        name: 'route-level policy admits',
        request: { path: '/admin', identity: ID('admin') },
        want: { decision: 'allow', authorization: 'authorizationpolicy/admin-only' },
      },
      {
        name: 'the Server-level policy reaches the route',
        request: { path: '/admin', identity: ID('frontend') },
        want: { decision: 'allow', authorization: 'authorizationpolicy/frontend' },
      },
      {
        name: 'neither: 403',
        request: { path: '/admin', identity: ID('mallory') },
        want: { decision: 'deny', status: 403 },
      },
      {
        name: 'no route: 404 comes before authorization',
        request: { path: '/public', identity: ID('admin') },
        want: { decision: 'not-found', status: 404 },
      },
    ],
  },
  {
    name: 'authorization: identity matching: *, *.suffix, exact, SPIFFE',
    yaml:
      pod() +
      server('web') +
      mtls('star', ['*']) +
      mtls('suffix', ['*.prod.serviceaccount.identity.linkerd.cluster.local']) +
      mtls('spiffe', ['spiffe://example.org/ns/prod/sa/api']) +
      route('star', 'web', `[${prefix('/star')}]`) +
      route('suffix', 'web', `[${prefix('/suffix')}]`) +
      route('spiffe', 'web', `[${prefix('/spiffe')}]`) +
      policy('p-star', { kind: 'HTTPRoute', name: 'star' }, [
        { kind: 'MeshTLSAuthentication', name: 'star' },
      ]) +
      policy('p-suffix', { kind: 'HTTPRoute', name: 'suffix' }, [
        { kind: 'MeshTLSAuthentication', name: 'suffix' },
      ]) +
      policy('p-spiffe', { kind: 'HTTPRoute', name: 'spiffe' }, [
        { kind: 'MeshTLSAuthentication', name: 'spiffe' },
      ]),
    vectors: [
      {
        name: '* admits any DNS-style identity',
        request: { path: '/star', identity: ID('x', 'y') },
        want: { decision: 'allow' },
      },
      { name: '* needs an identity', request: { path: '/star' }, want: { decision: 'deny' } },
      {
        name: '* does not admit a SPIFFE ID',
        request: { path: '/star', identity: 'spiffe://example.org/ns/prod/sa/api' },
        want: { decision: 'deny' },
      },
      {
        name: '*.suffix admits identities ending in .suffix',
        request: { path: '/suffix', identity: ID('api', 'prod') },
        want: { decision: 'allow' },
      },
      {
        name: '*.suffix needs a label boundary',
        request: {
          path: '/suffix',
          identity: 'api.xprod.serviceaccount.identity.linkerd.cluster.local',
        },
        want: { decision: 'deny' },
      },
      {
        name: '*.suffix does not admit the bare suffix',
        request: {
          path: '/suffix',
          identity: 'prod.serviceaccount.identity.linkerd.cluster.local',
        },
        want: { decision: 'deny' },
      },
      {
        name: 'SPIFFE matches exactly',
        request: { path: '/spiffe', identity: 'spiffe://example.org/ns/prod/sa/api' },
        want: { decision: 'allow' },
      },
      {
        name: 'SPIFFE prefix does not match',
        request: { path: '/spiffe', identity: 'spiffe://example.org/ns/prod/sa/api2' },
        want: { decision: 'deny' },
      },
    ],
  },
  {
    name: 'authorization: networks: cidr minus except, IPv6, IPv4-mapped',
    yaml:
      pod() +
      server('web') +
      network('nets', [
        { cidr: '10.0.0.0/8', except: ['10.1.0.0/16', '10.2.3.4/32'] },
        { cidr: 'fd00::/8', except: ['fd00:dead::/32'] },
      ]) +
      policy('p', { kind: 'Server', name: 'web' }, [
        { kind: 'NetworkAuthentication', name: 'nets' },
      ]),
    vectors: [
      { name: 'inside', request: { path: '/', clientIp: '10.9.9.9' }, want: { decision: 'allow' } },
      {
        name: 'in an except range',
        request: { path: '/', clientIp: '10.1.200.1' },
        want: { decision: 'deny' },
      },
      {
        name: 'an excepted host',
        request: { path: '/', clientIp: '10.2.3.4' },
        want: { decision: 'deny' },
      },
      {
        name: 'its neighbour',
        request: { path: '/', clientIp: '10.2.3.5' },
        want: { decision: 'allow' },
      },
      {
        name: 'IPv6 inside',
        request: { path: '/', clientIp: 'fd12::1' },
        want: { decision: 'allow' },
      },
      {
        name: 'IPv6 except',
        request: { path: '/', clientIp: 'fd00:dead::1' },
        want: { decision: 'deny' },
      },
      {
        name: 'IPv4-mapped IPv6 counts as IPv4',
        request: { path: '/', clientIp: '::ffff:10.9.9.9' },
        want: { decision: 'allow' },
      },
    ],
  },
  {
    name: 'authorization: opaque and TLS ports are authorized per connection',
    yaml:
      pod({
        ports: [
          ['db', 5432],
          ['tls', 8443],
        ],
      }) +
      server('db', { port: 5432, protocol: 'opaque', selector: '{}' }) +
      server('tls', { port: 8443, protocol: 'TLS', selector: '{}', access: 'all-authenticated' }) +
      policy('db-clients', { kind: 'Server', name: 'db' }, [
        { kind: 'ServiceAccount', name: 'api' },
      ]),
    vectors: [
      {
        name: 'opaque: authorized connection',
        request: { path: '/', port: 5432, identity: ID('api') },
        want: {
          decision: 'allow',
          status: null,
          route: null,
          authorization: 'authorizationpolicy/db-clients',
        },
      },
      {
        name: 'opaque: refused',
        request: { path: '/', port: 5432, identity: ID('web') },
        want: { decision: 'refused', status: null, route: null },
      },
      {
        name: 'TLS: refused without identity',
        request: { path: '/', port: 8443 },
        want: { decision: 'refused' },
      },
      {
        name: 'TLS: accessPolicy admits identities',
        request: { path: '/', port: 8443, identity: ID('x') },
        want: { decision: 'allow', authorization: 'default:all-authenticated' },
      },
    ],
  },
  {
    name: 'servers and defaults: opaque-ports annotation on a default server',
    yaml: pod({ ports: [['db', 3306]], annotations: { 'config.linkerd.io/opaque-ports': '3306' } }),
    vectors: [
      {
        name: 'connection-level decision',
        request: { path: '/', port: 3306 },
        want: {
          decision: 'allow',
          status: null,
          route: null,
          server: 'default:all-unauthenticated',
        },
      },
    ],
  },
];

describe('hostile regular expressions', () => {
  it(
    'a backtracking pattern decides in linear time (RE2, as in the proxy)',
    { timeout: 10_000 },
    () => {
      const m = model(
        pod() +
          server('web', { access: 'all-unauthenticated' }) +
          route(
            'evil',
            'web',
            '[{ matches: [{ path: { type: RegularExpression, value: "/(a+)+b" } }] }]',
          ),
      );
      const d = ask(m, { path: `/${'a'.repeat(5_000)}` });
      assert.equal(d.decision, 'not-found');
      assert.equal(ask(m, { path: '/aaab' }).route, 'evil');
    },
  );
});

describe('a dropped policy is named in the trace (why 403?)', () => {
  const m = model(
    pod() +
      server('web') +
      route('admin', 'web', `[${prefix('/admin')}]`) +
      policy('typo', { kind: 'Server', name: 'web' }, [
        { kind: 'MeshTLSAuthentication', name: 'clinets' },
      ]) +
      policy('admins', { kind: 'HTTPRoute', name: 'admin' }, [
        { kind: 'NetworkAuthentication', name: 'offices' },
      ]),
  );

  it('route and Server level, with the missing reference', () => {
    const d = ask(m, { path: '/admin', identity: ID('frontend') });
    assert.equal(d.decision, 'deny');
    const ignored = d.trace.filter((line) => line.includes('is ignored'));
    assert.deepEqual(ignored, [
      'authorization: authorizationpolicy/admins (route) is ignored and admits nobody: NetworkAuthentication ns/offices does not exist (Linkerd drops such a policy silently)',
      'authorization: authorizationpolicy/typo (server) is ignored and admits nobody: MeshTLSAuthentication ns/clinets does not exist (Linkerd drops such a policy silently)',
    ]);
    // Before the verdict, so the last line still gives it.
    assert.equal(d.trace[d.trace.length - 1], 'no authorization admits the client: 403');
  });

  it('a 404 never reaches authorization; tracing off builds no lines', () => {
    const d = ask(m, { path: '/other', identity: ID('frontend') });
    assert.equal(d.decision, 'not-found');
    assert.equal(
      d.trace.some((line) => line.includes('is ignored')),
      false,
    );
    const off = ask(m, { path: '/admin', identity: ID('frontend'), trace: false });
    assert.deepEqual(off.trace, []);
    assert.equal(off.decision, 'deny');
  });
});

describe('policy authorize vectors', () => {
  for (const scenario of scenarios) {
    describe(scenario.name, () => {
      const m = model(scenario.yaml, scenario.settings ?? {});
      for (const v of scenario.vectors) {
        it(v.name, () => {
          const d = ask(m, v.request);
          const got: Record<string, unknown> = {};
          for (const k of Object.keys(v.want))
            got[k] = (d as unknown as Record<string, unknown>)[k];
          assert.deepEqual(got, v.want, `trace:\n${d.trace.join('\n')}`);
          assert.ok(d.trace.length > 0);
        });
      }
    });
  }
});
