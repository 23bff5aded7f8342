/** The catalog section: each service with its posture, and the service graph as a picture. */
import { drawServiceGraph } from '../../catalog/index.js';
import type { ServiceGraph } from '../../catalog/index.js';
import { escapeHtml, table, td } from './html.js';

interface CatalogData {
  readonly services?: readonly {
    readonly name: string;
    readonly kind?: string;
    readonly exposure?: string;
    readonly egress?: string;
    readonly auth?: string;
    readonly replicas?: number;
    readonly objects?: readonly string[];
  }[];
  readonly serviceGraph?: ServiceGraph;
  readonly checks?: readonly { name: string; ok: boolean; message: string }[];
}

/** The proof lines an operator most needs to see: the VPN kill-switch, one per service. */
function provedLines(data: CatalogData): string {
  const proved = (data.checks ?? []).filter(
    (c) => c.ok && c.name === 'vpn-egress-only-through-gateway',
  );
  if (proved.length === 0) return '';
  const items = proved.map((c) => `<li>proved: ${escapeHtml(c.message)}</li>`).join('\n');
  return `\n<h3>Egress proved</h3>\n<ul id="catalog-proved">\n${items}\n</ul>`;
}

/**
 * The catalog's drawing inlined (its ids made page-wide unique) and, when some flows are drawn as
 * numbered badges, the legend that reads them as a list the reader can select and wrap.
 */
function serviceGraphFigure(graph: ServiceGraph): string {
  const { svg, legend } = drawServiceGraph(graph, {
    inline: { id: 'service-graph', className: 'graph' },
  });
  const items = legend.map(
    ({ n, edge }) =>
      `<li value="${n}"><code>${escapeHtml(edge.from)}</code> → <code>${escapeHtml(edge.to)}</code>: ${escapeHtml(edge.ports)}</li>`,
  );
  return items.length === 0
    ? svg
    : `${svg}\n<ol id="graph-legend" class="legend" aria-label="Flows drawn as numbers">${items.join('')}</ol>`;
}

export function catalogSection(value: unknown): string {
  const data = (value ?? {}) as CatalogData;
  const rows = (data.services ?? []).map((s) => [
    td(s.name),
    td(s.kind ?? ''),
    td(s.exposure ?? ''),
    td(s.egress ?? ''),
    td(s.auth ?? ''),
    td(String(s.replicas ?? '')),
    td(String(s.objects?.length ?? 0)),
  ]);
  const services = table(
    'catalog-services',
    ['service', 'kind', 'exposure', 'egress', 'auth', 'replicas', 'objects'],
    rows,
    'The catalog has no services.',
  );
  // Drawn inline from the graph's data (not the stage's ready SVG) so the legend can be HTML.
  const picture =
    data.serviceGraph !== undefined && data.serviceGraph.nodes.length > 0
      ? `<h3>Who can reach whom</h3>\n<p class="meta">From the rendered network policies alone: services as nodes, allowed flows as edges. Hover or focus an arrow for its flow.</p>\n<div class="scroll">${serviceGraphFigure(data.serviceGraph)}</div>`
      : '';
  const flows = (data.serviceGraph?.edges ?? []).map((e) => [td(e.from), td(e.to), td(e.ports)]);
  const flowTable =
    flows.length > 0 ? `\n${table('catalog-flows', ['from', 'to', 'ports'], flows, '')}` : '';
  return `<h2 id="s-catalog">Catalog: services</h2>\n${services}${provedLines(data)}\n${picture}${flowTable}`;
}
