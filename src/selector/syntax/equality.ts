/**
 * The anchord `ANCHORD_LABEL_SELECTOR` form (docs/selector.md, "Equality lists"): comma-separated
 * `key=value` pairs, AND-joined, equality only.
 *
 * - Whitespace around commas and `=` is trimmed; empty items are skipped.
 * - Each item splits at its first `=`, so the value may contain `=`; `key=` means the empty value.
 * - A repeated key with the same value collapses; with another value it is an error.
 * - No character-set validation: Docker labels are free-form.
 *
 * The three error messages are an interface (operators and tests grep them): do not reword.
 */
import { LabelwiseError, quote } from '../../base/errors.js';
import { requirement, selectorOf } from '../model.js';
import type { Requirement, Selector } from '../model.js';

/**
 * Parses an equality list. Blank input gives an empty selector (Everything); the caller decides
 * what that means (anchord falls back to the Compose-project filter). Throws the first problem.
 */
export function parseEqualityList(input: string): Selector {
  const seen = new Map<string, string>();
  const requirements: Requirement[] = [];
  let offset = 0;
  for (const raw of input.split(',')) {
    const itemOffset = offset;
    offset += raw.length + 1;
    const item = raw.trim();
    if (item === '') continue;
    const at = item.indexOf('=');
    const source = { offset: itemOffset + raw.indexOf(item) };
    if (at < 0) {
      throw new LabelwiseError(
        'SELECTOR_EQUALITY_MISSING_EQUALS',
        `label selector entry ${quote(item)} missing '='`,
        { source },
      );
    }
    const key = item.slice(0, at).trim();
    const value = item.slice(at + 1).trim();
    if (key === '') {
      throw new LabelwiseError(
        'SELECTOR_EQUALITY_EMPTY_KEY',
        `label selector entry ${quote(item)} has empty key`,
        { source },
      );
    }
    const previous = seen.get(key);
    if (previous !== undefined) {
      if (previous !== value) {
        throw new LabelwiseError(
          'SELECTOR_EQUALITY_CONFLICT',
          `label selector has duplicate key ${quote(key)} with conflicting values ${quote(previous)} and ${quote(value)}`,
          { source },
        );
      }
      continue;
    }
    seen.set(key, value);
    requirements.push(requirement(key, 'In', [value], source));
  }
  return selectorOf(requirements);
}

/**
 * Prints a selector made only of single-value `In` requirements as an equality list, pairs
 * sorted by key (`k1=v1,k2=v2`, the form anchord logs). Returns undefined for anything else.
 */
export function formatEqualityList(selector: Selector): string | undefined {
  if (selector.kind === 'nothing') return undefined;
  const parts: string[] = [];
  for (const req of selector.requirements) {
    if (req.operator !== 'In' || req.values.length !== 1) return undefined;
    parts.push(`${req.key}=${req.values[0]}`);
  }
  return parts.join(',');
}
