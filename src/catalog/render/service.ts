/** The Service in front of the workload pods, exposing only {@link servicePorts}. */
import { Service } from 'kubernetes-models/v1/Service';
import type { Platform, ResolvedService } from '../types.js';
import { commonLabels, selectorLabels } from './labels.js';
import { servicePorts } from './ports.js';

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
