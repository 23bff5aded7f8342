/**
 * The service graph: catalog services as nodes, the flows the rendered policies allow as edges
 * (from the reachability proof, never from the definitions), each node marked with its exposure
 * and egress class. `serviceGraph` gives the data; `graph-svg.ts` draws it.
 */
import type { Flow, Reachability } from '../conformance/reachability.js';
import { formatPorts, unionPorts } from '../conformance/port-sets.js';
import type { PortSet } from '../conformance/port-sets.js';
import type { ResolvedService } from '../types.js';

export interface GraphNode {
  /** A service name, or a platform node: `gateway`, `prometheus`, `dns`, `world`. */
  readonly id: string;
  readonly label: string;
  readonly kind: 'service' | 'platform' | 'outside';
  readonly exposure?: 'internal' | 'public';
  readonly egress?: 'internet' | 'vpn';
}

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  /** Open ports, e.g. `TCP/4180`. */
  readonly ports: string;
}

export interface ServiceGraph {
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
}

const PLATFORM_NODES: Readonly<Record<string, GraphNode>> = {
  'platform/gateway': { id: 'gateway', label: 'Gateway', kind: 'platform' },
  'platform/prometheus': { id: 'prometheus', label: 'Prometheus', kind: 'platform' },
  'platform/dns': { id: 'dns', label: 'cluster DNS', kind: 'platform' },
};

function nodeOf(endpoint: Flow['from']): string | undefined {
  if (endpoint.service !== undefined)
    return endpoint.role === 'workload' ? endpoint.service : undefined;
  if (endpoint.role === 'world' || endpoint.role === 'external') return 'world';
  return PLATFORM_NODES[endpoint.id]?.id;
}

/**
 * Services and the flows between them, the platform and the outside. Flows of non-workload pods
 * (importers, stray pods) and DNS lookups, which every pod has, are left out: they would draw
 * the same edge from every node.
 */
export function serviceGraph(
  services: readonly ResolvedService[],
  reachability: Reachability,
): ServiceGraph {
  const nodes: GraphNode[] = services.map((s) => ({
    id: s.name,
    label: s.name,
    kind: 'service',
    exposure: s.exposure,
    egress: s.egress,
  }));
  const edges = new Map<string, { from: string; to: string; ports: PortSet }>();
  for (const flow of reachability.flows) {
    const from = nodeOf(flow.from);
    const to = nodeOf(flow.to);
    if (from === undefined || to === undefined || from === to || to === 'dns') continue;
    const key = `${from}\u0000${to}`;
    const before = edges.get(key);
    edges.set(key, { from, to, ports: unionPorts(before?.ports ?? [], flow.ports) });
  }
  const used = new Set([...edges.values()].flatMap((e) => [e.from, e.to]));
  for (const node of Object.values(PLATFORM_NODES)) if (used.has(node.id)) nodes.push(node);
  if (used.has('world')) nodes.push({ id: 'world', label: 'outside world', kind: 'outside' });
  return {
    nodes,
    edges: [...edges.values()]
      .map((e) => ({ from: e.from, to: e.to, ports: formatPorts(e.ports) }))
      .sort((a, b) => (a.from !== b.from ? (a.from < b.from ? -1 : 1) : a.to < b.to ? -1 : 1)),
  };
}
