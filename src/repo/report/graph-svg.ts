/**
 * "Who can reach whom" drawn inline in the report: services in the middle column, the Gateway
 * and Prometheus on the left, the outside world and DNS on the right, allowed flows as arrows.
 * Edge labels are placed so that none overlaps another or a node: each label tries points along
 * its edge, nearest the middle first, and takes the first free one; a label with no free place
 * is drawn as a numbered badge, and the legend below the picture gives every number's ports.
 * Every text is escaped; the picture holds no script and no reference outside itself.
 */
import { maxOf } from '../../base/index.js';
import type { GraphEdge, GraphNode, ServiceGraph } from '../../catalog/index.js';
import { escapeHtml } from './html.js';

const NODE_W = 150;
const NODE_H = 44;
const COL_GAP = 150;
const ROW_GAP = 26;
const FONT = 9;
/** An upper bound of one character's width at {@link FONT} px in a sans-serif face. */
const CHAR_W = 6;
const LABEL_H = 12;

interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

interface Placed extends Box {
  readonly node: GraphNode;
}

export interface LabelPlacement {
  readonly edge: GraphEdge;
  /** Where the label's text box sits; undefined when only its badge (or legend) shows it. */
  readonly box?: Box;
  /** The legend number, for labels drawn as a badge. */
  readonly badge?: { readonly n: number; readonly box?: Box };
}

function columnOf(node: GraphNode): number {
  if (node.kind === 'service') return 1;
  return node.kind === 'outside' || node.id === 'dns' ? 2 : 0;
}

export function layoutNodes(graph: ServiceGraph): Placed[] {
  const rows = [0, 0, 0];
  return graph.nodes.map((node) => {
    const c = columnOf(node);
    const r = rows[c] ?? 0;
    rows[c] = r + 1;
    return {
      node,
      x: 20 + c * (NODE_W + COL_GAP),
      y: 40 + r * (NODE_H + ROW_GAP),
      w: NODE_W,
      h: NODE_H,
    };
  });
}

const overlaps = (a: Box, b: Box): boolean =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** The edge's end points: from the side of `a` facing `b` to the side of `b` facing `a`. */
function ends(a: Placed, b: Placed): [number, number, number, number] {
  const x1 = a.x + (b.x >= a.x ? NODE_W : 0);
  const x2 = b.x + (b.x > a.x ? 0 : NODE_W);
  return [x1, a.y + NODE_H / 2, x2, b.y + NODE_H / 2];
}

const STEPS = [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.12, 0.88];
const SHIFTS = [0, -LABEL_H, LABEL_H, -2 * LABEL_H, 2 * LABEL_H];

/** The first box of `w` along the edge that meets nothing taken, or undefined. */
function freeBox(
  line: readonly [number, number, number, number],
  w: number,
  taken: readonly Box[],
  bow: number,
): Box | undefined {
  const [x1, y1, x2, y2] = line;
  for (const t of STEPS)
    for (const shift of SHIFTS) {
      const cx = x1 + (x2 - x1) * t + bow;
      const cy = y1 + (y2 - y1) * t + shift;
      const box = { x: cx - w / 2, y: cy - LABEL_H / 2, w, h: LABEL_H };
      if (box.x >= 0 && box.y >= 28 && !taken.some((b) => overlaps(b, box))) return box;
    }
  return undefined;
}

/** Where each edge's label goes: text where it fits, else a numbered badge and the legend. */
export function placeLabels(graph: ServiceGraph, placed: readonly Placed[]): LabelPlacement[] {
  const at = new Map(placed.map((p) => [p.node.id, p]));
  const taken: Box[] = [...placed];
  const out: LabelPlacement[] = [];
  let badges = 0;
  for (const edge of graph.edges) {
    const a = at.get(edge.from);
    const b = at.get(edge.to);
    if (a === undefined || b === undefined) continue;
    const line = ends(a, b);
    const bow = a.x === b.x ? 48 : 0;
    const text = freeBox(line, [...edge.ports].length * CHAR_W + 4, taken, bow);
    if (text !== undefined) {
      taken.push(text);
      out.push({ edge, box: text });
      continue;
    }
    const n = ++badges;
    const badge = freeBox(line, String(n).length * CHAR_W + 8, taken, bow);
    if (badge !== undefined) taken.push(badge);
    out.push({ edge, badge: badge === undefined ? { n } : { n, box: badge } });
  }
  return out;
}

/** Node colours by what a node is: the report's legend line names them. */
const FILL: Readonly<Record<string, string>> = {
  outside: '#eef2f7',
  platform: '#f3f0fa',
  public: '#fff4e5',
  internal: '#eaf6ee',
};

function nodeSvg(p: Placed): string {
  const { node, x, y } = p;
  const fill = FILL[node.kind === 'service' ? (node.exposure ?? 'internal') : node.kind];
  const vpn = node.egress === 'vpn';
  const marks =
    node.kind === 'service' ? `${node.exposure ?? ''} · egress ${node.egress ?? ''}` : node.kind;
  const label =
    [...node.label].length > 20 ? `${[...node.label].slice(0, 19).join('')}…` : node.label;
  return `<g class="node"><title>${escapeHtml(`${node.label} (${marks})`)}</title><rect x="${x}" y="${y}" width="${NODE_W}" height="${NODE_H}" rx="6" fill="${fill}" stroke="${vpn ? '#6b46c1' : '#555'}" stroke-width="1.5"${vpn ? ' stroke-dasharray="5 3"' : ''}/><text x="${x + NODE_W / 2}" y="${y + 18}" text-anchor="middle" font-size="13" font-weight="600">${escapeHtml(label)}</text><text x="${x + NODE_W / 2}" y="${y + 34}" text-anchor="middle" font-size="10" fill="#444">${escapeHtml(marks)}</text></g>`;
}

function edgeSvg(label: LabelPlacement, at: ReadonlyMap<string, Placed>): string {
  const a = at.get(label.edge.from) as Placed;
  const b = at.get(label.edge.to) as Placed;
  const [x1, y1, x2, y2] = ends(a, b);
  const path =
    a.x === b.x
      ? `M${x1} ${y1} C${x1 + 60} ${y1} ${x2 + 60} ${y2} ${x2} ${y2}`
      : `M${x1} ${y1} L${x2} ${y2}`;
  const title = `${label.edge.from} → ${label.edge.to}: ${label.edge.ports}`;
  const text = (box: Box, content: string, cls: string): string =>
    `<text class="${cls}" x="${box.x + box.w / 2}" y="${box.y + LABEL_H - 3}" text-anchor="middle" font-size="${FONT}" fill="#333">${escapeHtml(content)}</text>`;
  const parts = [
    `<path d="${path}" fill="none" stroke="#777" stroke-width="1.2" marker-end="url(#graph-arrow)"/>`,
  ];
  if (label.box !== undefined) parts.push(text(label.box, label.edge.ports, 'edge-label'));
  const badge = label.badge?.box;
  if (badge !== undefined)
    parts.push(
      `<rect x="${badge.x}" y="${badge.y}" width="${badge.w}" height="${badge.h}" rx="6" fill="#fff" stroke="#777"/>`,
      text(badge, String(label.badge?.n), 'edge-label edge-badge'),
    );
  return `<g class="edge" tabindex="0"><title>${escapeHtml(title)}</title>${parts.join('')}</g>`;
}

/** The picture and, when some labels are badges, the legend that reads them. */
export function serviceGraphFigure(graph: ServiceGraph): string {
  const placed = layoutNodes(graph);
  const at = new Map(placed.map((p) => [p.node.id, p]));
  const labels = placeLabels(graph, placed);
  const width = 20 + 3 * NODE_W + 2 * COL_GAP + 80;
  const bottom = maxOf(
    placed.map((p) => p.y + NODE_H),
    40,
  );
  const height = bottom + 40;
  const svg = [
    `<svg id="service-graph" class="graph" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="sans-serif" role="img" aria-label="${escapeHtml(`service graph: ${graph.nodes.length} nodes, ${graph.edges.length} flows`)}">`,
    '<defs><marker id="graph-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#777"/></marker></defs>',
    `<text x="20" y="22" font-size="12" fill="#333">Orange: public; green: internal; dashed purple border: VPN egress.</text>`,
    ...labels.map((l) => edgeSvg(l, at)),
    ...placed.map(nodeSvg),
    '</svg>',
  ].join('\n');
  const legend = labels
    .filter((l) => l.badge !== undefined)
    .map(
      (l) =>
        `<li value="${l.badge?.n}"><code>${escapeHtml(l.edge.from)}</code> → <code>${escapeHtml(l.edge.to)}</code>: ${escapeHtml(l.edge.ports)}</li>`,
    );
  return legend.length === 0
    ? svg
    : `${svg}\n<ol id="graph-legend" class="legend" aria-label="Flows drawn as numbers">${legend.join('')}</ol>`;
}
