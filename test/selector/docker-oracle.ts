// What the Docker Engine does with `label` filter terms on GET /containers/json, written from
// its documented behaviour: every term must hold (AND); `k` needs the label present, `k=v` needs
// it present with exactly v; each term splits at its first `=`. Used as the oracle for docs/selector.md, "Docker label filters".
import type { Labels } from '../../src/selector/index.js';

export function dockerServerMatches(terms: readonly string[], labels: Labels): boolean {
  for (const term of terms) {
    const at = term.indexOf('=');
    const key = at < 0 ? term : term.slice(0, at);
    if (!Object.prototype.hasOwnProperty.call(labels, key)) return false;
    if (at >= 0 && labels[key] !== term.slice(at + 1)) return false;
  }
  return true;
}
