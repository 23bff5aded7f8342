/** What a route matches, in short, as matrix rows and outbound flows show it. */
import type { CompiledRoute } from '../routes/route-table.js';

/** `GET /authors.json, DELETE /authors/*`: at most six matches, then their count. */
export function describeMatches(route: CompiledRoute): string {
  if (route.template !== undefined) {
    const methods = route.template.methods.length === 0 ? '*' : route.template.methods.join('|');
    return `${methods} ${route.template.template.text}`;
  }
  const parts: string[] = [];
  for (const rule of route.rules) {
    const matches = rule.matches.length === 0 ? [undefined] : rule.matches;
    for (const m of matches) {
      if (m === undefined) {
        parts.push('* /*');
        continue;
      }
      const path =
        m.path.type === 'Exact'
          ? m.path.value
          : m.path.type === 'PathPrefix'
            ? `${m.path.value.replace(/\/+$/, '')}/*`
            : `~${m.path.value}`;
      const extra = m.headers.length + m.queryParams.length > 0 ? ' (+conditions)' : '';
      parts.push(`${m.method ?? '*'} ${path}${extra}`);
    }
  }
  const shown = parts.slice(0, 6).join(', ');
  return parts.length > 6 ? `${shown}, … (${parts.length})` : shown;
}
