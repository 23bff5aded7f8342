/**
 * Linkerd's CustomResourceDefinitions for every policy kind and version this module reads,
 * stored as JSON beside this file (`linkerd/<crd name>.json`) and validated against strictly, as
 * `kubectl apply --validate=strict` does: a field is accepted exactly where Linkerd's CRD has it.
 *
 * Source: linkerd/linkerd2 `charts/linkerd-crds/templates/{policy,workload}/*.yaml` at release
 * {@link LINKERD_CRD_RELEASE}. The only change from upstream is the chart's templated
 * `metadata.annotations` and `metadata.labels`, which are not part of any schema and are removed;
 * the YAML is stored as JSON so the pure core can import it without file I/O.
 */
import { compileUpstream } from '../../base/crds/upstream-schemas.js';
import type { UpstreamSchemaSource, UpstreamValidators } from '../../base/crds/upstream-schemas.js';
import authorizationPolicies from './linkerd/authorizationpolicies.policy.linkerd.io.json' with { type: 'json' };
import egressNetworks from './linkerd/egressnetworks.policy.linkerd.io.json' with { type: 'json' };
import externalWorkloads from './linkerd/externalworkloads.workload.linkerd.io.json' with { type: 'json' };
import rateLimits from './linkerd/httplocalratelimitpolicies.policy.linkerd.io.json' with { type: 'json' };
import httpRoutes from './linkerd/httproutes.policy.linkerd.io.json' with { type: 'json' };
import meshTls from './linkerd/meshtlsauthentications.policy.linkerd.io.json' with { type: 'json' };
import networkAuthns from './linkerd/networkauthentications.policy.linkerd.io.json' with { type: 'json' };
import serverAuthzs from './linkerd/serverauthorizations.policy.linkerd.io.json' with { type: 'json' };
import servers from './linkerd/servers.policy.linkerd.io.json' with { type: 'json' };

/** The Linkerd release the stored CRDs come from (commit b24cd4059841, one past the tag). */
export const LINKERD_CRD_RELEASE = 'edge-26.8.3';

interface CrdDocument {
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly group: string;
    readonly names: { readonly kind: string };
    readonly versions: readonly { readonly name: string }[];
  };
}

const CRDS: readonly CrdDocument[] = [
  authorizationPolicies,
  egressNetworks,
  externalWorkloads,
  rateLimits,
  httpRoutes,
  meshTls,
  networkAuthns,
  serverAuthzs,
  servers,
];

const TEMPLATES: Readonly<Record<string, string>> = {
  'authorizationpolicies.policy.linkerd.io': 'policy/authorization-policy.yaml',
  'egressnetworks.policy.linkerd.io': 'policy/egress-network.yaml',
  'externalworkloads.workload.linkerd.io': 'workload/external-workload.yaml',
  'httplocalratelimitpolicies.policy.linkerd.io': 'policy/http-local-ratelimit-policy.yaml',
  'httproutes.policy.linkerd.io': 'policy/httproute.yaml',
  'meshtlsauthentications.policy.linkerd.io': 'policy/meshtls-authentication.yaml',
  'networkauthentications.policy.linkerd.io': 'policy/network-authentication.yaml',
  'serverauthorizations.policy.linkerd.io': 'policy/server-authorization.yaml',
  'servers.policy.linkerd.io': 'policy/server.yaml',
};

/** One source per (CRD, version): what `compileUpstream` validates with. */
export function linkerdSchemaSources(): UpstreamSchemaSource[] {
  return CRDS.flatMap((crd) =>
    crd.spec.versions.map((version) => ({
      apiVersion: `${crd.spec.group}/${version.name}`,
      kind: crd.spec.names.kind,
      file: `linkerd/${crd.metadata.name}.json`,
      format: 'crd' as const,
      project: 'Linkerd',
      release: LINKERD_CRD_RELEASE,
      url: `https://github.com/linkerd/linkerd2/blob/${LINKERD_CRD_RELEASE}/charts/linkerd-crds/templates/${TEMPLATES[crd.metadata.name] ?? ''}`,
      document: crd,
    })),
  );
}

let compiled: UpstreamValidators | undefined;

/** The validators, compiled once per process (each kind's on first use). */
export function linkerdValidators(): UpstreamValidators {
  return (compiled ??= compileUpstream(linkerdSchemaSources()));
}
