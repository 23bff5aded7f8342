/** The Service in front of the workload pods, exposing only {@link servicePorts}. */
import { Service } from 'kubernetes-models/v1/Service';
import type { Platform, ResolvedService } from '../types.js';
import { commonLabels, selectorLabels } from './labels.js';
import { lanPorts, servicePorts } from './ports.js';

/** The suffix of the LoadBalancer Service that puts LAN ports on the shared address. */
export const LAN_SERVICE_SUFFIX = '-lan';

/**
 * The declared LAN ports (non-HTTP: DNS, a game server, Plex's direct port) on the platform's
 * shared LAN address: a LoadBalancer Service that Cilium's LB IPAM gives that address, shared
 * with every other service's LAN Service by the sharing key. `externalTrafficPolicy: Local`
 * keeps the client's address, which the network policy matches against the LAN CIDRs.
 */
export function lanService(definition: ResolvedService, platform: Platform): Service | undefined {
  const ports = lanPorts(definition);
  if (ports.length === 0 || platform.lan === undefined) return undefined;
  return new Service({
    metadata: {
      name: `${definition.name}${LAN_SERVICE_SUFFIX}`,
      namespace: definition.name,
      labels: commonLabels(definition.name),
      annotations: {
        'lbipam.cilium.io/ips': platform.lan.address,
        'lbipam.cilium.io/sharing-key': platform.lan.sharingKey,
      },
    },
    spec: {
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      selector: selectorLabels(definition.name),
      ports: ports.map((p) => ({
        name: p.name,
        port: p.port,
        targetPort: definition.kind === 'vm' ? p.port : p.name,
        protocol: p.protocol,
      })),
    },
  });
}

/** The Service, or undefined when the service exposes no port at all (a worker). */
export function service(definition: ResolvedService, platform: Platform): Service | undefined {
  const ports = servicePorts(definition, platform);
  if (ports.length === 0) return undefined;
  return new Service({
    metadata: {
      name: definition.name,
      namespace: definition.name,
      labels: commonLabels(definition.name),
    },
    spec: {
      selector: selectorLabels(definition.name),
      ports: ports.map((p) => ({
        name: p.name,
        port: p.port,
        // A VM's launcher pod declares no named ports (masquerade forwards by number).
        targetPort: definition.kind === 'vm' ? p.port : p.name,
        protocol: p.protocol,
      })),
    },
  });
}
