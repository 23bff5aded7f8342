/**
 * The service graph: catalog services as nodes, the flows the rendered policies allow as edges
 * (from the reachability proof, never from the definitions), each node marked with its exposure
 * and egress class. `serviceGraph` gives the data; `serviceGraphSvg` draws it as one
 * self-contained SVG string: no scripts, no external references, every text escaped.
 */
import { maxOf } from '../../base/index.js';
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

/** Escapes text for SVG content and attribute values; drops characters XML cannot hold. */
export function escapeXml(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- removing the control characters XML 1.0 forbids
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/[\ud800-\udfff]/g, (c, i: number, s: string) => {
        const code = c.charCodeAt(0);
        const next = s.charCodeAt(i + 1);
        const prev = s.charCodeAt(i - 1);
        const paired =
          (code < 0xdc00 && next >= 0xdc00 && next <= 0xdfff) ||
          (code >= 0xdc00 && prev >= 0xd800 && prev < 0xdc00);
        return paired ? c : '';
      })
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;')
  );
}

const NODE_W = 150;
const NODE_H = 44;
const COL_GAP = 120;
const ROW_GAP = 22;

interface Placed {
  readonly node: GraphNode;
  readonly x: number;
  readonly y: number;
}

/** Columns: the Gateway and Prometheus on the left, services in the middle, outside on the right. */
function layout(graph: ServiceGraph): Placed[] {
  const left = graph.nodes.filter((n) => n.kind === 'platform' && n.id !== 'dns');
  const middle = graph.nodes.filter((n) => n.kind === 'service');
  const right = graph.nodes.filter((n) => n.kind === 'outside' || n.id === 'dns');
  const placed: Placed[] = [];
  [left, middle, right].forEach((column, c) =>
    column.forEach((node, r) =>
      placed.push({ node, x: 20 + c * (NODE_W + COL_GAP), y: 40 + r * (NODE_H + ROW_GAP) }),
    ),
  );
  return placed;
}

function nodeSvg(p: Placed): string {
  const { node, x, y } = p;
  const fill =
    node.kind === 'outside'
      ? '#eef2f7'
      : node.kind === 'platform'
        ? '#f3f0fa'
        : node.exposure === 'public'
          ? '#fff4e5'
          : '#eaf6ee';
  const stroke = node.egress === 'vpn' ? '#6b46c1' : '#555';
  const dash = node.egress === 'vpn' ? ' stroke-dasharray="5 3"' : '';
  const marks =
    node.kind === 'service' ? `${node.exposure ?? ''} · egress ${node.egress ?? ''}` : node.kind;
  return [
    `<g class="node" data-id="${escapeXml(node.id)}">`,
    `<title>${escapeXml(`${node.label} (${marks})`)}</title>`,
    `<rect x="${x}" y="${y}" width="${NODE_W}" height="${NODE_H}" rx="6" fill="${fill}" stroke="${stroke}" stroke-width="1.5"${dash}/>`,
    `<text x="${x + NODE_W / 2}" y="${y + 18}" text-anchor="middle" font-size="13" font-weight="600">${escapeXml(clip(node.label, 20))}</text>`,
    `<text x="${x + NODE_W / 2}" y="${y + 34}" text-anchor="middle" font-size="10" fill="#444">${escapeXml(marks)}</text>`,
    `</g>`,
  ].join('');
}

function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

function edgeSvg(edge: GraphEdge, at: ReadonlyMap<string, Placed>): string {
  const a = at.get(edge.from);
  const b = at.get(edge.to);
  if (a === undefined || b === undefined) return '';
  const x1 = a.x + (b.x >= a.x ? NODE_W : 0);
  const y1 = a.y + NODE_H / 2;
  const x2 = b.x + (b.x > a.x ? 0 : NODE_W);
  const y2 = b.y + NODE_H / 2;
  // Same column: bow out to the right so the edge does not cross the nodes between.
  const path =
    a.x === b.x
      ? `M${x1} ${y1} C${x1 + 60} ${y1} ${x2 + 60} ${y2} ${x2} ${y2}`
      : `M${x1} ${y1} L${x2} ${y2}`;
  return [
    `<g class="edge">`,
    `<title>${escapeXml(`${edge.from} → ${edge.to}: ${edge.ports}`)}</title>`,
    `<path d="${path}" fill="none" stroke="#777" stroke-width="1.2" marker-end="url(#arrow)"/>`,
    `<text x="${(x1 + x2) / 2 + (a.x === b.x ? 48 : 0)}" y="${(y1 + y2) / 2 - 3}" text-anchor="middle" font-size="9" fill="#555">${escapeXml(clip(edge.ports, 28))}</text>`,
    `</g>`,
  ].join('');
}

/** The graph as a self-contained SVG document string. Pure and deterministic. */
export function serviceGraphSvg(graph: ServiceGraph): string {
  const placed = layout(graph);
  const at = new Map(placed.map((p) => [p.node.id, p]));
  const width = 20 + 3 * NODE_W + 2 * COL_GAP + 80;
  const rows = maxOf(
    placed.map((p) => (p.y - 40) / (NODE_H + ROW_GAP) + 1),
    1,
  );
  const height = 40 + rows * (NODE_H + ROW_GAP) + 40;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="sans-serif" role="img" aria-label="service graph">`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#777"/></marker></defs>',
    `<text x="20" y="22" font-size="12" fill="#333">Allowed flows (from the rendered network policies). Orange: public; green: internal; dashed purple border: VPN egress.</text>`,
    ...graph.edges.map((e) => edgeSvg(e, at)),
    ...placed.map(nodeSvg),
    '</svg>',
  ].join('\n');
}
