/**
 * The workload's CiliumNetworkPolicy (one per workload; ports as strings, as Cilium wants them)
 * and the CDI importer's policy. Only what the definition declares is allowed; everything else stays denied.
 */
import { CiliumNetworkPolicy } from '@kubernetes-models/cilium/cilium.io/v2/CiliumNetworkPolicy';
import { sourceHost } from '../resolve/extras.js';
import type { HostPort, Platform, PortSpec, ResolvedService } from '../types.js';
import { CILIUM_NAMESPACE_LABEL, commonLabels, selectorLabels } from './labels.js';
import { dnsEgressRule } from './namespace.js';
import { clientPorts, gatewayPorts, lanPorts } from './ports.js';
import { pushAll } from '../../base/index.js';
import { vpnWorldEgressRule } from './vpn-egress.js';

const toPorts = (ports: readonly Pick<PortSpec, 'port' | 'protocol'>[]) => [
  { ports: ports.map((p) => ({ port: String(p.port), protocol: p.protocol })) },
];

/**
 * The DNS egress rule with Cilium's DNS proxy in the path (`rules.dns`): a `toFQDNs` allow only
 * works for names the proxy saw resolved. Every name may still be looked up.
 */
export function dnsEgressRuleWithProxy(platform: Platform) {
  const rule = dnsEgressRule(platform);
  return {
    ...rule,
    toPorts: rule.toPorts.map((p) => ({ ...p, rules: { dns: [{ matchPattern: '*' }] } })),
  };
}

/** Egress rules to outside hosts by name, grouped by port. */
export function fqdnEgressRules(hosts: readonly HostPort[]): object[] {
  const byPort = new Map<number, string[]>();
  for (const h of hosts) byPort.set(h.port, [...(byPort.get(h.port) ?? []), h.host]);
  return [...byPort]
    .sort(([a], [b]) => a - b)
    .map(([port, names]) => ({
      toFQDNs: [...new Set(names)].sort().map((matchName) => ({ matchName })),
      toPorts: toPorts([{ port, protocol: 'TCP' }]),
    }));
}

/**
 * The OIDC issuer the forward-auth sidecar must reach at start-up (it exits when discovery
 * fails), whatever the egress class: a VPN-class pod has no `world` allow.
 */
export function issuerHost(platform: Platform): HostPort | undefined {
  return sourceHost(platform.forwardAuth.issuerUrl);
}

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
  // Declared clients reach the app's own ports, the one behind forward-auth included: their
  // calls carry no browser session. Nobody else is admitted to the fronted port.
  const exposed = clientPorts(service);
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
  const lan = lanPorts(service);
  if (lan.length > 0 && platform.lan !== undefined) {
    ingress.push({
      fromCIDRSet: platform.lan.sourceCIDRs.map((cidr) => ({ cidr })),
      toPorts: toPorts(lan),
    });
  }
  const issuer = service.auth.mode === 'forward-auth' ? issuerHost(platform) : undefined;
  const egress: object[] = [
    issuer === undefined ? dnsEgressRule(platform) : dnsEgressRuleWithProxy(platform),
  ];
  for (const dependency of service.dependencies) {
    egress.push({
      toEndpoints: [{ matchLabels: peerSelector(dependency.to) }],
      toPorts: toPorts([dependency]),
    });
  }
  if (issuer !== undefined) pushAll(egress, fqdnEgressRules([issuer]));
  // VPN class: IPv4 only, and the egress gateway policy steers it (see vpn-egress.ts).
  egress.push(
    service.egress === 'internet' ? { toEntities: ['world'] } : vpnWorldEgressRule(platform),
  );
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

/** The name of a VM namespace's policy for CDI's importer pods. */
export const IMPORTER_POLICY = 'cdi-importer';

/**
 * Marks a VM's DataVolumes as the root disk or a blank data disk. CDI copies only labels under
 * `kubevirt.io` (and its subdomains) from a claim to its importer pod (`CopyAllowedLabels`), so
 * the key lives there.
 */
export const DISK_LABEL = 'labelwise.kubevirt.io/disk';

/** The labels CDI puts on every importer pod it starts. */
export const IMPORTER_LABELS: Readonly<Record<string, string>> = Object.freeze({
  app: 'containerized-data-importer',
  'cdi.kubevirt.io': 'importer',
});

/**
 * CDI imports a VM's root disk in an importer pod in the VM's namespace; under the default-deny
 * baseline it reaches DNS only, so the download never completes and the VM never starts. This
 * allows the importer pods, and nothing else, exactly the template's host and its declared
 * redirect targets on the template's port. Undefined when there is nothing to download.
 */
export function importerPolicy(
  service: ResolvedService,
  platform: Platform,
): CiliumNetworkPolicy | undefined {
  if (service.kind !== 'vm' || service.importFrom.length === 0) return undefined;
  return new CiliumNetworkPolicy({
    metadata: {
      name: IMPORTER_POLICY,
      namespace: service.name,
      labels: commonLabels(service.name),
    },
    spec: {
      // Not a blank disk's importer, which downloads nothing. NotIn, not In: should the disk
      // label not reach the pod, the root disk's import still works.
      endpointSelector: {
        matchLabels: { ...IMPORTER_LABELS },
        matchExpressions: [{ key: DISK_LABEL, operator: 'NotIn', values: ['blank'] }],
      },
      enableDefaultDeny: { ingress: true, egress: true },
      egress: [dnsEgressRuleWithProxy(platform), ...fqdnEgressRules(service.importFrom)],
    },
  });
}
