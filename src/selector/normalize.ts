/**
 * Per-key normal form of a selector (docs/selector.md, "The algebra"). Every conjunction of requirements on one key is
 * one of five states, and intersecting two states stays in the family:
 *
 *   never         unsatisfiable
 *   in S          present with a value in the finite, non-empty set S
 *   present ¬E    present with a value outside the finite set E (E empty: just present)
 *   absent|¬E     absent, or present with a value outside the non-empty set E
 *   absent        absent only
 *
 * Because the value space (all strings) is infinite, a state's meaning fixes its parameters, so
 * two satisfiable selectors are equivalent exactly when their normal forms are equal.
 */
import { sortStrings } from './labels.js';
import { intersectSorted, subtractSorted, uniteSorted } from './sorted-sets.js';
import type { Requirement, Selector } from './model.js';
import { formatRequirement } from './syntax/k8s-print.js';

export type KeyState =
  | { readonly kind: 'never' }
  | { readonly kind: 'in'; readonly values: readonly string[] }
  | { readonly kind: 'present-not-in'; readonly excluded: readonly string[] }
  | { readonly kind: 'absent-or-not-in'; readonly excluded: readonly string[] }
  | { readonly kind: 'absent' };

/** No constraint on the key: the identity of {@link intersectStates}. */
export const ANY: KeyState = Object.freeze({
  kind: 'absent-or-not-in',
  excluded: Object.freeze([]) as readonly string[],
});

export interface NormalForm {
  /** False when some key is `never` or the selector is Nothing. */
  readonly satisfiable: boolean;
  /** Constrained keys, sorted. */
  readonly keys: ReadonlyMap<string, KeyState>;
  /** The requirements on `key`, in selector order, for proofs (computed on demand). */
  sourcesOf(key: string): readonly Requirement[];
  /** For Nothing: no key is to blame. */
  readonly nothing: boolean;
}

/** Sorts `values` in place and drops repeats: cheaper than a Set for many short strings. */
function sortedDistinct(values: string[]): string[] {
  sortStrings(values);
  let kept = 0;
  for (let i = 0; i < values.length; i++) {
    if (i === 0 || values[i] !== values[kept - 1]) values[kept++] = values[i] as string;
  }
  values.length = kept;
  return values;
}

function isAny(state: KeyState): boolean {
  return state.kind === 'absent-or-not-in' && state.excluded.length === 0;
}

/** The state one requirement imposes on its key. */
export function stateOf(req: Requirement): KeyState {
  switch (req.operator) {
    case 'In':
      return req.values.length === 0 ? { kind: 'never' } : { kind: 'in', values: req.values };
    case 'NotIn':
      return { kind: 'absent-or-not-in', excluded: req.values };
    case 'Exists':
      return { kind: 'present-not-in', excluded: [] };
    case 'DoesNotExist':
      return { kind: 'absent' };
  }
}

/** Intersection of two key states (both must hold). */
export function intersectStates(a: KeyState, b: KeyState): KeyState {
  if (a.kind === 'never' || b.kind === 'never') return { kind: 'never' };
  if (isAny(a)) return b;
  if (isAny(b)) return a;
  if (a.kind === 'in' || b.kind === 'in') {
    const [set, other] = a.kind === 'in' ? [a, b] : [b as Extract<KeyState, { kind: 'in' }>, a];
    let values: readonly string[];
    switch (other.kind) {
      case 'in':
        values = intersectSorted(set.values, other.values);
        break;
      case 'present-not-in':
      case 'absent-or-not-in':
        values = subtractSorted(set.values, other.excluded);
        break;
      case 'absent':
        values = [];
        break;
    }
    return values.length === 0 ? { kind: 'never' } : { kind: 'in', values };
  }
  if (a.kind === 'absent' || b.kind === 'absent') {
    const other = a.kind === 'absent' ? b : a;
    return other.kind === 'present-not-in' ? { kind: 'never' } : { kind: 'absent' };
  }
  // Both are "not in" states: unite the exclusions; presence is required if either requires it.
  const excluded = uniteSorted(
    (a as { excluded: readonly string[] }).excluded,
    (b as { excluded: readonly string[] }).excluded,
  );
  const present = a.kind === 'present-not-in' || b.kind === 'present-not-in';
  return { kind: present ? 'present-not-in' : 'absent-or-not-in', excluded };
}

/**
 * What the requirements on one key demand so far, kept so that adding a requirement costs only
 * its own values: intersecting states pairwise would copy the growing exclusion set every time,
 * and 16,000 `k!=vN` terms would take quadratic time.
 */
interface KeyAccumulator {
  /** Values allowed by every `In` so far (sorted); undefined while there has been no `In`. */
  allowed: readonly string[] | undefined;
  /** Every `NotIn` value, duplicates included (sorted and de-duplicated once, at the end). */
  excluded: string[];
  present: boolean;
  absent: boolean;
}

function accumulate(acc: KeyAccumulator, req: Requirement): void {
  switch (req.operator) {
    case 'In':
      // The intersection is never longer than this requirement's values, so the walks of all
      // `In` terms on a key cost at most twice their values together.
      acc.allowed =
        acc.allowed === undefined ? req.values : intersectSorted(acc.allowed, req.values);
      break;
    case 'NotIn':
      for (const value of req.values) acc.excluded.push(value);
      break;
    case 'Exists':
      acc.present = true;
      break;
    case 'DoesNotExist':
      acc.absent = true;
      break;
  }
}

/** The one state an accumulator stands for (the same as intersecting the requirements' states). */
function settle(acc: KeyAccumulator): KeyState {
  const mustBePresent = acc.present || acc.allowed !== undefined;
  if (acc.absent) return mustBePresent ? { kind: 'never' } : { kind: 'absent' };
  if (acc.allowed !== undefined) {
    const values = subtractSorted(acc.allowed, sortedDistinct(acc.excluded));
    return values.length === 0 ? { kind: 'never' } : { kind: 'in', values };
  }
  const excluded = sortedDistinct(acc.excluded);
  return { kind: acc.present ? 'present-not-in' : 'absent-or-not-in', excluded };
}

/**
 * Normalises a selector key by key in O(n log n) for n requirements and values (the sort of each
 * key's final value set dominates). Pure; leaves the selector untouched.
 */
export function normalize(selector: Selector): NormalForm {
  const accumulators = new Map<string, KeyAccumulator>();
  // Requirements arrive sorted by key, so one key's terms are adjacent: remembering the last
  // accumulator spares a map lookup per term.
  let lastKey: string | undefined;
  let acc: KeyAccumulator | undefined;
  for (const req of selector.requirements) {
    if (req.key !== lastKey || acc === undefined) {
      lastKey = req.key;
      acc = accumulators.get(req.key);
      if (acc === undefined) {
        acc = { allowed: undefined, excluded: [], present: false, absent: false };
        accumulators.set(req.key, acc);
      }
    }
    accumulate(acc, req);
  }
  const keys = new Map<string, KeyState>();
  let satisfiable = selector.kind !== 'nothing';
  for (const key of sortStrings([...accumulators.keys()])) {
    const state = settle(accumulators.get(key) as KeyAccumulator);
    if (state.kind === 'never') satisfiable = false;
    if (!isAny(state)) keys.set(key, state);
  }
  const sourcesOf = (key: string): readonly Requirement[] =>
    selector.requirements.filter((req) => req.key === key);
  return { satisfiable, keys, sourcesOf, nothing: selector.kind === 'nothing' };
}

/** Prints one key state as Kubernetes selector terms. */
export function formatState(key: string, state: KeyState): string {
  const req = (operator: Requirement['operator'], values: readonly string[] = []): string =>
    formatRequirement({ key, operator, values });
  switch (state.kind) {
    case 'never':
      // Callers print only satisfiable forms; an unsatisfiable key has no selector text.
      throw new Error(`formatState: key ${key} is unsatisfiable`);
    case 'in':
      return req('In', state.values);
    case 'present-not-in':
      return state.excluded.length === 0
        ? req('Exists')
        : `${req('Exists')},${req('NotIn', state.excluded)}`;
    case 'absent-or-not-in':
      return req('NotIn', state.excluded);
    case 'absent':
      return req('DoesNotExist');
  }
}

/** Text printed as the canonical form of every unsatisfiable selector. */
export const UNSATISFIABLE_CANONICAL = '<nothing>';

/**
 * The normalised canonical form (docs/selector.md, "Kubernetes selector strings", "The algebra"): per key merged, keys sorted. Two selectors are
 * equivalent exactly when their canonical forms are equal; every unsatisfiable selector (and
 * Nothing) prints as `<nothing>`, Everything as `""`.
 */
export function canonicalForm(selector: Selector): string {
  const form = normalize(selector);
  if (!form.satisfiable) return UNSATISFIABLE_CANONICAL;
  return [...form.keys].map(([key, state]) => formatState(key, state)).join(',');
}
