/** Building blocks of the report pages. All text from the input passes through {@link escapeHtml}. */
import { escapeControl } from '../../base/index.js';

/** Escapes text for HTML content and quoted attributes; control characters made visible. */
export function escapeHtml(text: string): string {
  return escapeControl(text).replace(/[&<>"'`]/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

export const td = (text: string, cls?: string): string =>
  cls === undefined
    ? `<td>${escapeHtml(text)}</td>`
    : `<td class="${cls}">${escapeHtml(text)}</td>`;

export interface TableOptions {
  /** Extra attributes of the table element, ready-made (` data-pages="…"`). */
  readonly attributes?: string;
  /** Extra attributes per row, ready-made, in the order of the rows. */
  readonly rowAttributes?: readonly string[];
  /**
   * On a narrow screen each row becomes a card, each cell labelled with its column: a wide table
   * would wrap its long column to a word per line or scroll sideways.
   */
  readonly cards?: boolean;
}

/** The cell with its column's name, for the card layout (`data-label`). */
function labelled(cell: string, column: string | undefined): string {
  if (column === undefined) return cell;
  return cell.replace(/^<(td|th)\b/, (open) => `${open} data-label="${escapeHtml(column)}"`);
}

/** A table with a header row; `rows` hold ready-made cells. */
export function table(
  id: string,
  header: readonly string[],
  rows: readonly (readonly string[])[],
  empty: string,
  options: TableOptions = {},
): string {
  if (rows.length === 0) return `<p id="${id}" class="empty">${escapeHtml(empty)}</p>`;
  const head = header.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('');
  const cells = (row: readonly string[]): string =>
    options.cards === true ? row.map((c, i) => labelled(c, header[i])).join('') : row.join('');
  const body = rows
    .map((row, i) => `<tr${options.rowAttributes?.[i] ?? ''}>${cells(row)}</tr>`)
    .join('\n');
  const cls = options.cards === true ? ' class="cards"' : '';
  return `<div class="scroll"><table id="${id}"${cls}${options.attributes ?? ''}><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

/** JSON for a `<script type="application/json">` block: it cannot close the element. */
export function jsonBlock(id: string, value: unknown): string {
  const text = JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026');
  return `<script type="application/json" id="${id}">${text}</script>`;
}

/**
 * A file name for a page about `name` (a host): plain characters kept, every other one written
 * as `_` and its code in hex, so any name maps to one safe, distinct file.
 */
export function pageName(name: string): string {
  return name.replace(/[^A-Za-z0-9.-]|^\./g, (ch) => `_${ch.codePointAt(0)?.toString(16)}_`);
}

/** `href` for a repository file and line, relative to the report (`linkBase` ends with `/`). */
export function fileHref(linkBase: string, file: string, line?: number): string {
  const path = file.split('/').map(encodeURIComponent).join('/');
  return `${linkBase}${path}${line === undefined ? '' : `#L${line}`}`;
}
