/**
 * The service's Namespace (its trust zone) and the namespace's default-deny baseline: every pod
 * denied all ingress and egress except DNS to the cluster resolver. `enableDefaultDeny` is set
 * explicitly because an empty rule list does not deny; `ingress: [{}]` is the rule that allows
 * nothing. There is no standing monitoring allow: scraping is allowed per metrics endpoint.
 */
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { CiliumNetworkPolicy } from '@kubernetes-models/cilium/cilium.io/v2/CiliumNetworkPolicy';
import type { Platform, ResolvedService } from '../types.js';
import { CILIUM_NAMESPACE_LABEL, commonLabels } from './labels.js';

/** The name of the per-namespace baseline policy. */
export const BASELINE_POLICY = 'default-deny';

export function namespace(service: ResolvedService): Namespace {
  return new Namespace({
    metadata: {
      name: service.name,
      labels: {
        ...commonLabels(service.name),
        // Pod Security admission as a second line behind the renderer's own defaults. A VM's
        // virt-launcher pod needs more than `restricted` allows.
        // So does an app under a reviewed root exception (`restricted` forbids root).
        'pod-security.kubernetes.io/enforce':
          service.kind === 'vm' || service.security.rootException !== undefined
            ? 'baseline'
            : 'restricted',
      },
    },
  });
}

/** The DNS egress rule shared by the baseline and the workload policy. */
export function dnsEgressRule(platform: Platform) {
  return {
    toEndpoints: [
      {
        matchLabels: {
          ...platform.clusterDns.podSelector,
          [CILIUM_NAMESPACE_LABEL]: platform.clusterDns.namespace,
        },
      },
    ],
    toPorts: [
      {
        ports: [
          { port: '53', protocol: 'UDP' as const },
          { port: '53', protocol: 'TCP' as const },
        ],
      },
    ],
  };
}

export function baselinePolicy(service: ResolvedService, platform: Platform): CiliumNetworkPolicy {
  return new CiliumNetworkPolicy({
    metadata: {
      name: BASELINE_POLICY,
      namespace: service.name,
      labels: commonLabels(service.name),
    },
    spec: {
      endpointSelector: {},
      enableDefaultDeny: { ingress: true, egress: true },
      ingress: [{}],
      egress: [dnsEgressRule(platform)],
    },
  });
}
