/**
 * VPN-class egress. Cilium enforces network policy before the egress gateway rewrites a packet,
 * so the workload's own policy must allow the internet, and the CiliumEgressGatewayPolicy then
 * steers it through the gateway node. Both speak IPv4 only: Cilium v1.18's gateway policy takes
 * IPv4 CIDRs alone, and a `0.0.0.0/0` CIDR rule selects `reserved:world-ipv4` and never an IPv6
 * address (pkg/labels/cidr.go), so IPv6 egress stays denied and cannot bypass the kill-switch.
 * Without a node matching the gateway's selector Cilium drops the steered traffic: fail closed.
 */
import ipaddr from 'ipaddr.js';
import { CiliumEgressGatewayPolicy } from '@kubernetes-models/cilium/cilium.io/v2/CiliumEgressGatewayPolicy';
import type { Platform, ResolvedService } from '../types.js';
import { EGRESS_NAMESPACE_LABEL, commonLabels, selectorLabels } from './labels.js';

export const IPV4_WORLD = '0.0.0.0/0';

/** The platform's excluded CIDRs by address family; an unparsable entry counts as neither. */
export function excludedByFamily(platform: Platform): { ipv4: string[]; ipv6: string[] } {
  const ipv4: string[] = [];
  const ipv6: string[] = [];
  for (const cidr of platform.vpn.excludedCIDRs) {
    let kind: string | undefined;
    try {
      kind = ipaddr.parseCIDR(cidr)[0].kind();
    } catch {
      // The platform schema checks the form; an entry it let through is simply not used.
      kind = undefined;
    }
    if (kind === 'ipv4') ipv4.push(cidr);
    else if (kind === 'ipv6') ipv6.push(cidr);
  }
  return { ipv4, ipv6 };
}

/**
 * The world allow of a VPN-class workload: every IPv4 address except the excluded ones, which
 * the gateway does not steer and which would therefore be reached around it.
 */
export function vpnWorldEgressRule(platform: Platform): object {
  const { ipv4 } = excludedByFamily(platform);
  return { toCIDRSet: [{ cidr: IPV4_WORLD, ...(ipv4.length > 0 ? { except: ipv4 } : {}) }] };
}

/** Cluster-scoped, so named after the service: `<name>-vpn`. */
export function vpnEgressPolicy(
  service: ResolvedService,
  platform: Platform,
): CiliumEgressGatewayPolicy {
  const { ipv4 } = excludedByFamily(platform);
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
      destinationCIDRs: [IPV4_WORLD],
      ...(ipv4.length > 0 ? { excludedCIDRs: ipv4 } : {}),
      egressGateway: {
        nodeSelector: { matchLabels: { ...platform.vpn.nodeSelector } },
        interface: platform.vpn.interface,
      },
    },
  });
}
