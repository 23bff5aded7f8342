/**
 * Matcher terms in Datum's words, for "why does this layer apply": `role=web`,
 * `site in [frankfurt london]`, `tier not in [legacy]`, `has monitoring`, `missing decommissioned`,
 * or `every host` for a layer without a matcher. Display only: matching is `src/selector`'s job.
 */
import type { Requirement, Selector } from '../../selector/index.js';

/** One requirement as a reason. */
export function formatReason(req: Requirement): string {
  switch (req.operator) {
    case 'In':
      return req.values.length === 1
        ? `${req.key}=${req.values[0]}`
        : `${req.key} in [${req.values.join(' ')}]`;
    case 'NotIn':
      return req.values.length === 1
        ? `${req.key}!=${req.values[0]}`
        : `${req.key} not in [${req.values.join(' ')}]`;
    case 'Exists':
      return `has ${req.key}`;
    case 'DoesNotExist':
      return `missing ${req.key}`;
  }
}

/** Every term of a matcher as reasons; `every host` when it has none, `no host` for Nothing. */
export function matcherReasons(selector: Selector): string[] {
  if (selector.kind === 'nothing') return ['no host'];
  if (selector.requirements.length === 0) return ['every host'];
  return selector.requirements.map(formatReason);
}
