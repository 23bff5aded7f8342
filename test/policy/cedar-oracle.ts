// An independent oracle: the same authorization sets written as Cedar policies, evaluated by
// Cedar's own engine (@cedar-policy/cedar-wasm). Used by the differential test and the benchmark.

/** One generated authorization: a target and the authentications that must all hold. */
export interface AuthzSpec {
  /** `server` or a route index. */
  readonly target: 'server' | number;
  /** MeshTLSAuthentication identities (`*`, `*.suffix`, exact, SPIFFE); undefined: no MeshTLS ref. */
  readonly identities?: readonly string[];
  /** A ServiceAccount ref (name in namespace `ns`). */
  readonly serviceAccount?: string;
  /** A NetworkAuthentication. */
  readonly networks?: readonly { cidr: string; except: readonly string[] }[];
}

export const SA_ID = (name: string): string =>
  `${name}.ns.serviceaccount.identity.linkerd.cluster.local`;

function identityTerm(pattern: string): string {
  if (pattern === '*') return '!context.spiffe';
  if (pattern.startsWith('*.'))
    return `(!context.spiffe && context.identity like ${JSON.stringify(pattern)} && context.identity != ${JSON.stringify(pattern.slice(1))})`;
  return `context.identity == ${JSON.stringify(pattern)}`;
}

/** The Cedar policy text for a list of authorizations on Server::"web" and its Route children. */
export function cedarPolicies(authz: readonly AuthzSpec[]): string {
  const out = [
    'permit(principal, action, resource) when { context.ip.isInRange(ip("127.0.0.1/32")) || context.ip.isInRange(ip("::1/128")) };',
  ];
  for (const a of authz) {
    const resource =
      a.target === 'server' ? 'resource in Server::"web"' : `resource == Route::"r${a.target}"`;
    const terms: string[] = [];
    if (a.networks !== undefined) {
      terms.push(
        `(${a.networks.map((n) => `(context.ip.isInRange(ip(${JSON.stringify(n.cidr)}))${n.except.map((e) => ` && !context.ip.isInRange(ip(${JSON.stringify(e)}))`).join('')})`).join(' || ') || 'false'})`,
      );
    }
    if (a.identities !== undefined)
      terms.push(
        `(context.authenticated && (${a.identities.map(identityTerm).join(' || ') || 'false'}))`,
      );
    if (a.serviceAccount !== undefined)
      terms.push(
        `(context.authenticated && context.identity == ${JSON.stringify(SA_ID(a.serviceAccount))})`,
      );
    out.push(
      `permit(principal, action, ${resource})${terms.length === 0 ? '' : ` when { ${terms.join(' && ')} }`};`,
    );
  }
  return out.join('\n');
}

/** Cedar entities: routes r0…r(n-1), children of Server::"web". */
export function cedarEntities(routes: number): {
  uid: { type: string; id: string };
  attrs: Record<string, never>;
  parents: { type: string; id: string }[];
}[] {
  return Array.from({ length: routes }, (_, i) => ({
    uid: { type: 'Route', id: `r${i}` },
    attrs: {},
    parents: [{ type: 'Server', id: 'web' }],
  }));
}

/** The request context Cedar sees. */
export function cedarContext(ip: string, identity: string | undefined): Record<string, unknown> {
  return {
    ip: { __extn: { fn: 'ip', arg: ip } },
    authenticated: identity !== undefined,
    identity: identity ?? '',
    spiffe: identity?.startsWith('spiffe://') ?? false,
  };
}

/** The same authorizations as Linkerd YAML (Server `web`, routes `r<i>` on Exact `/r<i>`). */
export function linkerdYaml(routes: number, authz: readonly AuthzSpec[]): string {
  const docs: string[] = [
    'apiVersion: v1\nkind: Pod\nmetadata: { name: pod, namespace: ns, labels: { app: web } }\nspec: { containers: [{ name: c, ports: [{ name: http, containerPort: 8080 }] }] }',
    'apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: { name: web, namespace: ns }\nspec: { podSelector: { matchLabels: { app: web } }, port: 8080, proxyProtocol: HTTP/1 }',
  ];
  for (let i = 0; i < routes; i++) {
    docs.push(
      `apiVersion: policy.linkerd.io/v1beta3\nkind: HTTPRoute\nmetadata: { name: r${i}, namespace: ns }\nspec:\n  parentRefs: [{ group: policy.linkerd.io, kind: Server, name: web }]\n  rules: [{ matches: [{ path: { type: Exact, value: /r${i} } }] }]`,
    );
  }
  authz.forEach((a, i) => {
    const refs: string[] = [];
    if (a.identities !== undefined) {
      docs.push(
        `apiVersion: policy.linkerd.io/v1alpha1\nkind: MeshTLSAuthentication\nmetadata: { name: m${i}, namespace: ns }\nspec: { identities: ${JSON.stringify(a.identities)} }`,
      );
      refs.push(`{ group: policy.linkerd.io, kind: MeshTLSAuthentication, name: m${i} }`);
    }
    if (a.networks !== undefined) {
      docs.push(
        `apiVersion: policy.linkerd.io/v1alpha1\nkind: NetworkAuthentication\nmetadata: { name: n${i}, namespace: ns }\nspec: { networks: ${JSON.stringify(a.networks)} }`,
      );
      refs.push(`{ group: policy.linkerd.io, kind: NetworkAuthentication, name: n${i} }`);
    }
    if (a.serviceAccount !== undefined)
      refs.push(`{ kind: ServiceAccount, name: ${a.serviceAccount} }`);
    const target =
      a.target === 'server'
        ? '{ group: policy.linkerd.io, kind: Server, name: web }'
        : `{ group: policy.linkerd.io, kind: HTTPRoute, name: r${a.target} }`;
    docs.push(
      `apiVersion: policy.linkerd.io/v1alpha1\nkind: AuthorizationPolicy\nmetadata: { name: p${i}, namespace: ns }\nspec:\n  targetRef: ${target}\n  requiredAuthenticationRefs: [${refs.join(', ')}]`,
    );
  });
  return docs.join('\n---\n') + '\n';
}
