/** The diff view: what a change does, when the report is made by `labelwise diff`. */
import type { RepoDiff } from '../diff/model.js';
import { renderDiffText } from '../diff/render-text.js';
import { escapeHtml } from './html.js';

export function diffSection(diff: RepoDiff, name: string): string {
  const lines = renderDiffText(diff, name)
    .split('\n')
    .map((line) => {
      const cls = /^\s*[+]/.test(line) ? 'add' : /^\s*-/.test(line) ? 'del' : '';
      return cls === '' ? escapeHtml(line) : `<span class="${cls}">${escapeHtml(line)}</span>`;
    })
    .join('\n');
  return `<h2 id="s-diff">What this change does</h2>\n<p class="meta"><code>${escapeHtml(diff.from.revision)}</code> → <code>${escapeHtml(diff.to.revision)}</code></p>\n<pre id="diff">${lines}</pre>`;
}
