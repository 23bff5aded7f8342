/**
 * The workload's CiliumNetworkPolicy (one per workload; ports as strings, as Cilium wants them)
 * and, for VPN-class egress, the CiliumEgressGatewayPolicy steering the pods through the VPN
 * gateway. Only what the definition declares is allowed; everything else stays denied.
 */
import { CiliumNetworkPolicy } from '@kubernetes-models/cilium/cilium.io/v2/CiliumNetworkPolicy';
import { CiliumEgressGatewayPolicy } from '@kubernetes-models/cilium/cilium.io/v2/CiliumEgressGatewayPolicy';
import type { Platform, PortSpec, ResolvedService } from '../types.js';
import {
  CILIUM_NAMESPACE_LABEL,
  EGRESS_NAMESPACE_LABEL,
  commonLabels,
  selectorLabels,
} from './labels.js';
import { dnsEgressRule } from './namespace.js';
import { gatewayPorts, servicePorts } from './ports.js';

const toPorts = (ports: readonly Pick<PortSpec, 'port' | 'protocol'>[]) => [
  { ports: ports.map((p) => ({ port: String(p.port), protocol: p.protocol })) },
];

/** The Cilium endpoint selector of another service's workload pods. */
export function peerSelector(name: string): Record<string, string> {
  return { ...selectorLabels(name), [CILIUM_NAMESPACE_LABEL]: name };
}

export function workloadPolicy(service: ResolvedService, platform: Platform): CiliumNetworkPolicy {
  const ingress: object[] = [];
  const gateway = gatewayPorts(service, platform);
  if (gateway.length > 0) {
    const cilium = platform.gateway.cilium;
    ingress.push({
      ...('entity' in cilium
        ? { fromEntities: [cilium.entity] }
        : {
            fromEndpoints: [
              {
                matchLabels: { ...cilium.podSelector, [CILIUM_NAMESPACE_LABEL]: cilium.namespace },
              },
            ],
          }),
      toPorts: toPorts(gateway),
    });
  }
  const exposed = servicePorts(service, platform);
  for (const client of service.inClusterClients) {
    if (exposed.length === 0) break;
    ingress.push({
      fromEndpoints: [{ matchLabels: peerSelector(client) }],
      toPorts: toPorts(exposed),
    });
  }
  const metrics = service.observability.metricsEndpoint;
  if (metrics !== undefined) {
    ingress.push({
      fromEndpoints: [
        {
          matchLabels: {
            ...platform.prometheus.podSelector,
            [CILIUM_NAMESPACE_LABEL]: platform.prometheus.namespace,
          },
        },
      ],
      toPorts: toPorts([metrics.port]),
    });
  }
  const egress: object[] = [dnsEgressRule(platform)];
  for (const dependency of service.dependencies) {
    egress.push({
      toEndpoints: [{ matchLabels: peerSelector(dependency.to) }],
      toPorts: toPorts([dependency]),
    });
  }
  // VPN class: no `world` allow here. The pod's only way out is the egress gateway, whose
  // kill-switch and allow rules live outside the workload (fail closed).
  if (service.egress === 'internet') egress.push({ toEntities: ['world'] });
  return new CiliumNetworkPolicy({
    metadata: { name: service.name, namespace: service.name, labels: commonLabels(service.name) },
    spec: {
      endpointSelector: { matchLabels: selectorLabels(service.name) },
      enableDefaultDeny: { ingress: true, egress: true },
      ...(ingress.length > 0 ? { ingress } : {}),
      egress,
    },
  });
}

/** Cluster-scoped, so named after the service: `<name>-vpn`. */
export function vpnEgressPolicy(
  service: ResolvedService,
  platform: Platform,
): CiliumEgressGatewayPolicy {
  return new CiliumEgressGatewayPolicy({
    metadata: { name: `${service.name}-vpn`, labels: commonLabels(service.name) },
    spec: {
      selectors: [
        {
          podSelector: {
            matchLabels: {
              ...selectorLabels(service.name),
              [EGRESS_NAMESPACE_LABEL]: service.name,
            },
          },
        },
      ],
      destinationCIDRs: ['0.0.0.0/0'],
      ...(platform.vpn.excludedCIDRs.length > 0
        ? { excludedCIDRs: [...platform.vpn.excludedCIDRs] }
        : {}),
      egressGateway: {
        nodeSelector: { matchLabels: { ...platform.vpn.nodeSelector } },
        interface: platform.vpn.interface,
      },
    },
  });
}
