import { compareText } from '../../base/text.js';
import type { Requirement, Selector } from '../model.js';

/**
 * Prints one requirement in Kubernetes syntax with no spaces except around `in`/`notin`.
 * Single values print as `k=v` / `k!=v`; the lone empty value prints as a set (`k in ()`), which
 * reads less like a typo than `k=`. Values are already sorted by the model.
 */
export function formatRequirement(req: Requirement): string {
  switch (req.operator) {
    case 'Exists':
      return req.key;
    case 'DoesNotExist':
      return `!${req.key}`;
    case 'In':
    case 'NotIn': {
      const single = req.values.length === 1 && req.values[0] !== '';
      if (single) return `${req.key}${req.operator === 'In' ? '=' : '!='}${req.values[0]}`;
      return `${req.key} ${req.operator === 'In' ? 'in' : 'notin'} (${req.values.join(',')})`;
    }
  }
}

/**
 * Prints a selector as a Kubernetes string: requirements sorted by key (stable for equal keys),
 * values sorted. Printing then parsing is a fixed point. Everything prints as `""`; Nothing has
 * no string form and prints as the marker `<nothing>`, which does not parse.
 * The input is never mutated.
 */
export function formatSelector(selector: Selector): string {
  if (selector.kind === 'nothing') return NOTHING_TEXT;
  const reqs = [...selector.requirements].sort((a, b) => compareText(a.key, b.key));
  return reqs.map(formatRequirement).join(',');
}

export const NOTHING_TEXT = '<nothing>';

/** One requirement as apimachinery's `Requirement.String()` prints it, see {@link formatKubernetes}. */
export function formatKubernetesRequirement(req: Requirement): string {
  switch (req.operator) {
    case 'Exists':
      return req.key;
    case 'DoesNotExist':
      return `!${req.key}`;
    case 'In':
    case 'NotIn': {
      const spelling = req.origin?.spelling ?? (req.operator === 'In' ? 'in' : 'notin');
      const values = req.values.join(',');
      if (spelling === 'in' || spelling === 'notin') return `${req.key} ${spelling} (${values})`;
      return `${req.key}${spelling}${values}`;
    }
  }
}

/**
 * Prints a selector byte for byte as apimachinery's `Selector.String()` does for the same
 * selector: terms in selector order (sorted by key, as `labels.Parse` and
 * `LabelSelectorAsSelector` sort them), each operator as it was spelled (`x=`, `x==y`,
 * `x in (y)`), values sorted, no spaces but those around `in`/`notin`. Terms without a spelling
 * (built in code, or from another syntax) print with `in`/`notin`, Kubernetes' names for the
 * model's operators. Everything and Nothing both print as the empty string, as there.
 */
export function formatKubernetes(selector: Selector): string {
  if (selector.kind === 'nothing') return '';
  return selector.requirements.map(formatKubernetesRequirement).join(',');
}
