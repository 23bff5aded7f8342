/**
 * The service graph drawn as SVG, one drawing for both of its readers: a file of its own
 * (`serviceGraphSvg`, the build stage's `data.serviceGraphSvg`) and a page that inlines it
 * (`drawServiceGraph` with `inline`, the build report). Services in the middle column, the
 * Gateway and Prometheus on the left, the outside world and DNS on the right, allowed flows as
 * arrows. Edge labels are placed so that none overlaps another or a node: each label tries points
 * along its edge, nearest the middle first, and takes the first free one; a label with no free
 * place is drawn as a numbered badge, and a legend gives every number's ports (below the picture
 * in a file of its own; an inlining page lays it out itself, as text it can select and wrap).
 * Every text is escaped; the picture holds no script and no reference outside itself.
 */
import { maxOf } from '../../base/index.js';
import type { GraphEdge, GraphNode, ServiceGraph } from './service-graph.js';

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
const COL_GAP = 150;
const ROW_GAP = 26;
const FONT = 9;
/** An upper bound of one character's width at {@link FONT} px in a sans-serif face. */
const CHAR_W = 6;
const LABEL_H = 12;
const WIDTH = 20 + 3 * NODE_W + 2 * COL_GAP + 80;
/** One line of the legend drawn below a picture of its own. */
const LEGEND_LINE = 14;

interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

interface Placed extends Box {
  readonly node: GraphNode;
}

interface LabelPlacement {
  readonly edge: GraphEdge;
  /** Where the label's text box sits; undefined when only its badge (or legend) shows it. */
  readonly box?: Box;
  /** The legend number, for labels drawn as a badge. */
  readonly badge?: { readonly n: number; readonly box?: Box };
}

export interface ServiceGraphSvgOptions {
  /**
   * For a picture inlined in an HTML page: the svg element's `id` and `class`. Ids are page-wide
   * there, so the arrow marker's id is made from this one; the legend is left to the page.
   */
  readonly inline?: { readonly id: string; readonly className?: string };
}

export interface GraphLegendEntry {
  readonly n: number;
  readonly edge: GraphEdge;
}

export interface ServiceGraphDrawing {
  readonly svg: string;
  /** The flows drawn as numbered badges, in number order (drawn in `svg` unless inlined). */
  readonly legend: readonly GraphLegendEntry[];
}

function columnOf(node: GraphNode): number {
  if (node.kind === 'service') return 1;
  return node.kind === 'outside' || node.id === 'dns' ? 2 : 0;
}

function layoutNodes(graph: ServiceGraph): Placed[] {
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
function placeLabels(graph: ServiceGraph, placed: readonly Placed[]): LabelPlacement[] {
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

function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** Node colours by what a node is: the caption names them. */
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
  return [
    `<g class="node" data-id="${escapeXml(node.id)}">`,
    `<title>${escapeXml(`${node.label} (${marks})`)}</title>`,
    `<rect x="${x}" y="${y}" width="${NODE_W}" height="${NODE_H}" rx="6" fill="${fill}" stroke="${vpn ? '#6b46c1' : '#555'}" stroke-width="1.5"${vpn ? ' stroke-dasharray="5 3"' : ''}/>`,
    `<text x="${x + NODE_W / 2}" y="${y + 18}" text-anchor="middle" font-size="13" font-weight="600">${escapeXml(clip(node.label, 20))}</text>`,
    `<text x="${x + NODE_W / 2}" y="${y + 34}" text-anchor="middle" font-size="10" fill="#444">${escapeXml(marks)}</text>`,
    '</g>',
  ].join('');
}

function labelText(box: Box, content: string, cls: string): string {
  return `<text class="${cls}" x="${box.x + box.w / 2}" y="${box.y + LABEL_H - 3}" text-anchor="middle" font-size="${FONT}" fill="#333">${escapeXml(content)}</text>`;
}

function edgeSvg(label: LabelPlacement, at: ReadonlyMap<string, Placed>, marker: string): string {
  const a = at.get(label.edge.from) as Placed;
  const b = at.get(label.edge.to) as Placed;
  const [x1, y1, x2, y2] = ends(a, b);
  // Same column: bow out to the right so the edge does not cross the nodes between.
  const path =
    a.x === b.x
      ? `M${x1} ${y1} C${x1 + 60} ${y1} ${x2 + 60} ${y2} ${x2} ${y2}`
      : `M${x1} ${y1} L${x2} ${y2}`;
  const title = `${label.edge.from} → ${label.edge.to}: ${label.edge.ports}`;
  const parts = [
    `<path d="${path}" fill="none" stroke="#777" stroke-width="1.2" marker-end="url(#${marker})"/>`,
  ];
  if (label.box !== undefined) parts.push(labelText(label.box, label.edge.ports, 'edge-label'));
  const badge = label.badge?.box;
  if (badge !== undefined)
    parts.push(
      `<rect x="${badge.x}" y="${badge.y}" width="${badge.w}" height="${badge.h}" rx="6" fill="#fff" stroke="#777"/>`,
      labelText(badge, String(label.badge?.n), 'edge-label edge-badge'),
    );
  return `<g class="edge" tabindex="0"><title>${escapeXml(title)}</title>${parts.join('')}</g>`;
}

/** The legend as lines below the picture, for an SVG that has no page around it. */
function legendSvg(legend: readonly GraphLegendEntry[], top: number): string[] {
  if (legend.length === 0) return [];
  const fits = Math.floor((WIDTH - 40) / CHAR_W);
  const lines = legend.map(
    ({ n, edge }, i) =>
      `<text x="20" y="${top + (i + 1) * LEGEND_LINE}" font-size="${FONT}" fill="#333">${escapeXml(clip(`${n}. ${edge.from} → ${edge.to}: ${edge.ports}`, fits))}</text>`,
  );
  return ['<g class="legend">', ...lines, '</g>'];
}

/** The picture and the flows it draws as numbered badges. Pure and deterministic. */
export function drawServiceGraph(
  graph: ServiceGraph,
  options: ServiceGraphSvgOptions = {},
): ServiceGraphDrawing {
  const { inline } = options;
  const placed = layoutNodes(graph);
  const at = new Map(placed.map((p) => [p.node.id, p]));
  const labels = placeLabels(graph, placed);
  const legend = labels.flatMap((l) =>
    l.badge === undefined ? [] : [{ n: l.badge.n, edge: l.edge }],
  );
  const bottom = maxOf(
    placed.map((p) => p.y + NODE_H),
    40,
  );
  const drawn = inline === undefined ? legendSvg(legend, bottom + 24) : [];
  const height = bottom + 40 + (drawn.length === 0 ? 0 : legend.length * LEGEND_LINE);
  const marker = inline === undefined ? 'arrow' : `${inline.id}-arrow`;
  const named =
    inline === undefined
      ? ''
      : ` id="${escapeXml(inline.id)}"${inline.className === undefined ? '' : ` class="${escapeXml(inline.className)}"`}`;
  const svg = [
    `<svg xmlns="http://www.w3.org/2000/svg"${named} viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" font-family="sans-serif" role="img" aria-label="${escapeXml(`service graph: ${graph.nodes.length} nodes, ${graph.edges.length} flows`)}">`,
    `<defs><marker id="${escapeXml(marker)}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#777"/></marker></defs>`,
    '<text x="20" y="22" font-size="12" fill="#333">Allowed flows (from the rendered network policies). Orange: public; green: internal; dashed purple border: VPN egress.</text>',
    ...labels.map((l) => edgeSvg(l, at, escapeXml(marker))),
    ...placed.map(nodeSvg),
    ...drawn,
    '</svg>',
  ].join('\n');
  return { svg, legend };
}

/** The graph as a self-contained SVG document string, its legend drawn below the picture. */
export function serviceGraphSvg(graph: ServiceGraph): string {
  return drawServiceGraph(graph).svg;
}
