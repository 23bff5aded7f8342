import type { Labels } from './labels.js';
import { labelValue } from './labels.js';
import type { Requirement, Selector } from './model.js';
import { formatRequirement } from './syntax/k8s-print.js';

/**
 * Does one requirement hold for a label set? The reference semantics of docs/selector.md, "The model": `In` needs the
 * key present with a listed value; `NotIn` holds when the key is absent; `Exists` holds for `""`.
 * Never throws; inherited or non-string properties count as absent.
 */
export function requirementMatches(req: Requirement, labels: Labels): boolean {
  const value = labelValue(labels, req.key);
  switch (req.operator) {
    case 'In':
      return value !== undefined && req.values.includes(value);
    case 'NotIn':
      return value === undefined || !req.values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
  }
}

/**
 * The interpreter: does `selector` match `labels`? Straightforward and obviously right; the
 * reference that {@link compile}d predicates and the indexes are tested against.
 */
export function matches(selector: Selector, labels: Labels): boolean {
  if (selector.kind === 'nothing') return false;
  for (const req of selector.requirements) {
    if (!requirementMatches(req, labels)) return false;
  }
  return true;
}

/** One line of an explanation: a requirement, whether it held, and the value it saw. */
export interface ExplainedTerm {
  /** The requirement printed as a Kubernetes selector term, e.g. `tier in (api,web)`. */
  readonly requirement: string;
  readonly ok: boolean;
  /** The label's value, or null when the key is absent. */
  readonly actual: string | null;
  readonly source: Requirement;
}

export interface Explanation {
  readonly matched: boolean;
  /** Every requirement in selector order, so a reader sees which term failed. */
  readonly terms: readonly ExplainedTerm[];
  /** Set for the Nothing selector, which has no terms yet matches nothing. */
  readonly note?: string;
}

/** Explains a match decision term by term (docs/selector.md, "Matching semantics"). Agrees with {@link matches} always. */
export function explain(selector: Selector, labels: Labels): Explanation {
  if (selector.kind === 'nothing') {
    return {
      matched: false,
      terms: [],
      note: 'the Nothing selector (a null LabelSelector) matches no label set',
    };
  }
  const terms = selector.requirements.map((req) => {
    const actual = labelValue(labels, req.key);
    return {
      requirement: formatRequirement(req),
      ok: requirementMatches(req, labels),
      actual: actual === undefined ? null : actual,
      source: req,
    };
  });
  return { matched: terms.every((term) => term.ok), terms };
}
