/**
 * The fleet's host × layer matrix and one page per host. At 20,000 hosts the matrix is paged:
 * the first page is in the HTML, every row is embedded as compact JSON for the pager, and each
 * host's layers and resources are on a page of their own (`hosts/<host>.html`).
 */
import { MAX_PLAIN, hostFileName } from '../../fleet/index.js';
import type { FleetMatrix } from '../../fleet/index.js';
import { escapeHtml, jsonBlock, pageName, table, td } from './html.js';

export const PAGE_SIZE = 100;

/** A host's page; a name too long to be a file name gets the bounded name its output file has. */
export function hostPagePath(host: string): string {
  const name = pageName(host);
  return `hosts/${name.length <= MAX_PLAIN ? name : hostFileName(host)}.html`;
}

export function fleetSection(matrix: FleetMatrix): string {
  const header = ['host', ...matrix.layers];
  const bits = matrix.hosts.map((_, h) =>
    matrix.layers.map((_, l) => (matrix.applies[h]?.[l] === true ? '1' : '0')).join(''),
  );
  const rows = matrix.hosts
    .slice(0, PAGE_SIZE)
    .map((host, h) => [
      `<th scope="row"><a href="${escapeHtml(hostPagePath(host))}">${escapeHtml(host)}</a></th>`,
      ...[...(bits[h] ?? '')].map((bit) => (bit === '1' ? td('●', 'yes') : td('', 'no'))),
    ]);
  const paged = matrix.hosts.length > PAGE_SIZE;
  const attributes = paged ? ` data-pages="data-fleet" data-page-size="${PAGE_SIZE}"` : '';
  const note = paged
    ? `<p class="note nojs">Showing the first ${PAGE_SIZE} of ${matrix.hosts.length} hosts; the page's script pages through the rest.</p>`
    : '';
  const data = paged
    ? jsonBlock('data-fleet', {
        // Each row is [host, layer bits], and the page when the script cannot derive it from the
        // name (a name too long for a file, mapped with a hash).
        rows: matrix.hosts.map((host, h) =>
          pageName(host).length <= MAX_PLAIN
            ? [host, bits[h]]
            : [host, bits[h], hostPagePath(host)],
        ),
      })
    : '';
  return `<h2 id="s-fleet">Fleet: hosts × layers</h2>\n<p class="meta">${matrix.hosts.length} host(s), ${matrix.layers.length} layer(s).</p>\n${note}${table('fleet-matrix', header, rows, 'The fleet has no hosts.', { attributes })}\n${data}`;
}

interface HostManifest {
  readonly host: string;
  readonly layers?: readonly { readonly name: string; readonly reasons?: readonly string[] }[];
  readonly resources?: readonly {
    readonly ref: string;
    readonly target?: string;
    readonly layers?: readonly string[];
    readonly desired?: Readonly<Record<string, unknown>>;
  }[];
}

/** The page of one host: why each layer reaches it, and every resource with its fields. */
export function hostPage(
  manifestJson: string,
  shell: (title: string, body: string) => string,
): string | undefined {
  let manifest: HostManifest;
  try {
    manifest = JSON.parse(manifestJson) as HostManifest;
  } catch {
    return undefined;
  }
  if (typeof manifest.host !== 'string') return undefined;
  const layers = (manifest.layers ?? []).map((l) => [td(l.name), td((l.reasons ?? []).join('; '))]);
  const resources = (manifest.resources ?? []).map((r) => [
    td(r.ref),
    td(r.target ?? ''),
    td((r.layers ?? []).join(', ')),
    `<td><pre>${escapeHtml(JSON.stringify(r.desired ?? {}, null, 2))}</pre></td>`,
  ]);
  const body = `<p><a href="../report.html">← report</a></p>
<h2>Layers that reach ${escapeHtml(manifest.host)}</h2>
${table('host-layers', ['layer', 'why'], layers, 'No layer reaches this host.')}
<h2>Resources</h2>
${table('host-resources', ['resource', 'target', 'set by', 'desired'], resources, 'No resources.')}`;
  return shell(`host ${manifest.host}`, body);
}
