/**
 * A service graph crowded enough that some edge labels find no free place: ten services, each
 * reached by the Gateway and Prometheus and reaching DNS and the world, and one flow between two
 * services (an arrow within the middle column). The catalog's drawing and the report's page
 * are both tested on it.
 */
import type { ServiceGraph } from '../../src/catalog/index.js';

export function busyGraph(): ServiceGraph {
  const services = Array.from({ length: 10 }, (_, i) => `svc-${i}`);
  return {
    nodes: [
      { id: 'gateway', label: 'gateway', kind: 'platform' },
      { id: 'prometheus', label: 'prometheus', kind: 'platform' },
      ...services.map((id) => ({
        id,
        label: id,
        kind: 'service' as const,
        exposure: 'internal' as const,
        egress: 'internet' as const,
      })),
      { id: 'dns', label: 'dns', kind: 'platform' },
      { id: 'world', label: 'outside world', kind: 'outside' },
    ],
    edges: [
      ...services.map((id) => ({ from: 'gateway', to: id, ports: 'TCP/8080' })),
      ...services.map((id) => ({ from: 'prometheus', to: id, ports: 'TCP/9090' })),
      ...services.map((id) => ({ from: id, to: 'world', ports: 'SCTP/1-65535, TCP/1-65535' })),
      ...services.map((id) => ({ from: id, to: 'dns', ports: 'TCP/53, UDP/53' })),
      { from: 'svc-0', to: 'svc-1', ports: 'TCP/5432' },
    ],
  };
}
