/**
 * Builds compiled authorizations from the resources: default policies, localhost, the probe
 * authorization, AuthorizationPolicies (all referenced authentications must hold: AND) and
 * legacy ServerAuthorizations. Several authorizations on one target are alternatives (OR).
 */
import { compileIdentities, namespaceIdentitySuffix, serviceAccountIdentity } from '../identity.js';
import type { IdentityMatcher } from '../identity.js';
import { compileNetworks } from '../networks.js';
import type { NetworkTerm } from '../networks.js';
import type {
  AuthorizationPolicy,
  ClusterSettings,
  DefaultPolicy,
  Location,
  MeshTLSAuthentication,
  NetworkAuthentication,
  NetworkSpec,
  ObjectRef,
  PolicyResources,
  ServerAuthorization,
} from '../types.js';

/**
 * Who an authorization admits, besides the network: `unauthenticated` admits every client,
 * `tls` every client with a TLS identity, and a list of matchers an identity that every matcher
 * admits (one per MeshTLSAuthentication or ServiceAccount reference).
 */
export type Authentication = 'unauthenticated' | 'tls' | readonly IdentityMatcher[];

export interface Authorization {
  /** `localhost`, `default:<policy>`, `probe`, `authorizationpolicy/<name>`, `serverauthorization/<name>`. */
  readonly name: string;
  readonly kind: 'localhost' | 'default' | 'probe' | 'AuthorizationPolicy' | 'ServerAuthorization';
  readonly networks: readonly NetworkTerm[];
  readonly networkSpecs: readonly NetworkSpec[];
  readonly authentication: Authentication;
  /** Audit mode (`accessPolicy: audit`): allowed, and flagged in the trace. */
  readonly audit?: boolean;
  readonly at?: Location;
}

const ALL_NETWORKS: readonly NetworkSpec[] = [
  { cidr: '0.0.0.0/0', except: [] },
  { cidr: '::/0', except: [] },
];
const LOOPBACK: readonly NetworkSpec[] = [
  { cidr: '127.0.0.1/32', except: [] },
  { cidr: '::1/128', except: [] },
];

function make(
  name: string,
  kind: Authorization['kind'],
  networkSpecs: readonly NetworkSpec[],
  authentication: Authentication,
  extra: Partial<Authorization> = {},
): Authorization {
  return {
    name,
    kind,
    networks: compileNetworks(networkSpecs),
    networkSpecs,
    authentication,
    ...extra,
  };
}

function specs(cidrs: readonly string[]): NetworkSpec[] {
  return cidrs.map((cidr) => ({ cidr, except: [] }));
}

/** The always-present authorization for the pod's own loopback traffic (kubelet exec, sidecars). */
export function localhostAuthorization(): Authorization {
  return make('localhost', 'localhost', LOOPBACK, 'unauthenticated');
}

/** The probe route's authorization: unauthenticated clients from the probe networks. */
export function probeAuthorization(settings: ClusterSettings): Authorization {
  return make('probe', 'probe', specs(settings.probeNetworks), 'unauthenticated');
}

/** The authorization a default policy grants; undefined for `deny`. */
export function defaultPolicyAuthorization(
  policy: DefaultPolicy,
  settings: ClusterSettings,
): Authorization | undefined {
  const name = `default:${policy}`;
  const any = [compileIdentities(['*'])];
  switch (policy) {
    case 'deny':
      return undefined;
    case 'all-unauthenticated':
      return make(name, 'default', ALL_NETWORKS, 'unauthenticated');
    case 'audit':
      return make(name, 'default', ALL_NETWORKS, 'unauthenticated', { audit: true });
    case 'all-authenticated':
      return make(name, 'default', ALL_NETWORKS, any);
    case 'cluster-unauthenticated':
      return make(name, 'default', specs(settings.clusterNetworks), 'unauthenticated');
    case 'cluster-authenticated':
      return make(name, 'default', specs(settings.clusterNetworks), any);
  }
}

/** An AuthorizationPolicy dropped because an authentication it requires does not exist. */
export interface DroppedPolicy {
  readonly policy: AuthorizationPolicy;
  readonly missing: readonly ObjectRef[];
}

/** Lookup tables for authentications, built once per compilation. */
export class AuthenticationIndex {
  private readonly meshTLS = new Map<string, MeshTLSAuthentication>();
  private readonly networks = new Map<string, NetworkAuthentication>();

  constructor(
    resources: PolicyResources,
    private readonly settings: ClusterSettings,
  ) {
    for (const m of resources.meshTLSAuthentications)
      this.meshTLS.set(`${m.meta.namespace}/${m.meta.name}`, m);
    for (const n of resources.networkAuthentications)
      this.networks.set(`${n.meta.namespace}/${n.meta.name}`, n);
  }

  /** The references of `policy` that name nothing, in order. */
  missingRefs(policy: AuthorizationPolicy): ObjectRef[] {
    return policy.requiredAuthenticationRefs.filter((ref) => {
      const key = `${ref.namespace ?? policy.meta.namespace}/${ref.name}`;
      if (ref.kind === 'MeshTLSAuthentication') return !this.meshTLS.has(key);
      if (ref.kind === 'NetworkAuthentication') return !this.networks.has(key);
      return false;
    });
  }

  /**
   * Compiles an AuthorizationPolicy: networks from its NetworkAuthentication (every network
   * when none), identities from each MeshTLSAuthentication / ServiceAccount (all must hold).
   * Undefined when a reference is missing: Linkerd drops such a policy (fail closed).
   */
  compilePolicy(policy: AuthorizationPolicy): Authorization | undefined {
    if (this.missingRefs(policy).length > 0) return undefined;
    let networks: readonly NetworkSpec[] = ALL_NETWORKS;
    const matchers: IdentityMatcher[] = [];
    for (const ref of policy.requiredAuthenticationRefs) {
      const namespace = ref.namespace ?? policy.meta.namespace;
      if (ref.kind === 'NetworkAuthentication') {
        networks = (this.networks.get(`${namespace}/${ref.name}`) as NetworkAuthentication)
          .networks;
      } else if (ref.kind === 'MeshTLSAuthentication') {
        matchers.push(
          this.meshTLSMatcher(
            this.meshTLS.get(`${namespace}/${ref.name}`) as MeshTLSAuthentication,
          ),
        );
      } else {
        matchers.push(
          compileIdentities([serviceAccountIdentity(ref.name, namespace, this.settings)]),
        );
      }
    }
    return make(
      `authorizationpolicy/${policy.meta.name}`,
      'AuthorizationPolicy',
      networks,
      matchers.length === 0 ? 'unauthenticated' : matchers,
      { at: policy.meta.at },
    );
  }

  private meshTLSMatcher(m: MeshTLSAuthentication): IdentityMatcher {
    const patterns = [...m.identities];
    for (const ref of m.identityRefs) {
      if (ref.kind === 'Namespace' || ref.name === '*')
        patterns.push(`*.${namespaceIdentitySuffix(ref.namespace, this.settings)}`);
      else patterns.push(serviceAccountIdentity(ref.name, ref.namespace, this.settings));
    }
    return compileIdentities(patterns);
  }
}

/** Compiles a legacy ServerAuthorization. Unset networks mean the cluster networks. */
export function compileServerAuthorization(
  sa: ServerAuthorization,
  settings: ClusterSettings,
): Authorization {
  const networks = sa.client.networks ?? specs(settings.clusterNetworks);
  let authentication: Authentication = 'unauthenticated';
  const mesh = sa.client.meshTLS;
  if (!sa.client.unauthenticated && mesh !== undefined) {
    if (mesh.unauthenticatedTLS) authentication = 'tls';
    else {
      const patterns = [
        ...mesh.identities,
        ...mesh.serviceAccounts.map((ref) =>
          serviceAccountIdentity(ref.name, ref.namespace, settings),
        ),
      ];
      authentication = [compileIdentities(patterns)];
    }
  }
  return make(
    `serverauthorization/${sa.meta.name}`,
    'ServerAuthorization',
    networks,
    authentication,
    { at: sa.meta.at },
  );
}
