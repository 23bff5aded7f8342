/**
 * The page shell shared by report.html and the host pages: a Content-Security-Policy that allows
 * no external resource and no script but the report's own, the stylesheet, and the header with
 * the labelwise version and the git revision the report was made from.
 */
import { escapeHtml } from './html.js';
import { SCRIPT, SCRIPT_HASH } from './script.js';
import { STYLE } from './style.js';

export interface PageContext {
  /** The labelwise version. */
  readonly version: string;
  /** The repository's git revision (`abc123` or `abc123+dirty`), when it is a checkout. */
  readonly revision?: string;
}

const CSP = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src ${SCRIPT_HASH}; base-uri 'none'; form-action 'none'`;

export function page(
  title: string,
  body: string,
  context: PageContext,
  withScript: boolean,
): string {
  const revision =
    context.revision === undefined ? '' : `, revision <code>${escapeHtml(context.revision)}</code>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
<p class="meta">Made by labelwise ${escapeHtml(context.version)}${revision}.</p>
${withScript ? `<script>${SCRIPT}</script>` : ''}
</body>
</html>
`;
}
