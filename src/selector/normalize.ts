/**
 * Per-key normal form of a selector (spec §5). Every conjunction of requirements on one key is
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
import { compareStrings } from './labels.js';
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
  /** The requirements that constrain each key, for proofs. */
  readonly sources: ReadonlyMap<string, readonly Requirement[]>;
  /** For Nothing: no key is to blame. */
  readonly nothing: boolean;
}

function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(compareStrings);
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
      case 'in': {
        const keep = new Set(other.values);
        values = set.values.filter((v) => keep.has(v));
        break;
      }
      case 'present-not-in':
      case 'absent-or-not-in': {
        const drop = new Set(other.excluded);
        values = set.values.filter((v) => !drop.has(v));
        break;
      }
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
  // Both are "not in" states: union the exclusions; presence is required if either requires it.
  const excluded = sortedUnique([
    ...(a as { excluded: readonly string[] }).excluded,
    ...(b as { excluded: readonly string[] }).excluded,
  ]);
  const present = a.kind === 'present-not-in' || b.kind === 'present-not-in';
  return { kind: present ? 'present-not-in' : 'absent-or-not-in', excluded };
}

/** Normalises a selector key by key. Pure; leaves the selector untouched. */
export function normalize(selector: Selector): NormalForm {
  const states = new Map<string, KeyState>();
  const sources = new Map<string, Requirement[]>();
  for (const req of selector.requirements) {
    const state = stateOf(req);
    const previous = states.get(req.key) ?? ANY;
    states.set(req.key, intersectStates(previous, state));
    const list = sources.get(req.key);
    if (list === undefined) sources.set(req.key, [req]);
    else list.push(req);
  }
  const keys = new Map<string, KeyState>();
  for (const key of [...states.keys()].sort(compareStrings)) {
    const state = states.get(key) as KeyState;
    if (!isAny(state)) keys.set(key, state);
  }
  const nothing = selector.kind === 'nothing';
  const satisfiable = !nothing && [...keys.values()].every((s) => s.kind !== 'never');
  return { satisfiable, keys, sources, nothing };
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
 * The normalised canonical form (spec §2.1, §5): per key merged, keys sorted. Two selectors are
 * equivalent exactly when their canonical forms are equal; every unsatisfiable selector (and
 * Nothing) prints as `<nothing>`, Everything as `""`.
 */
export function canonicalForm(selector: Selector): string {
  const form = normalize(selector);
  if (!form.satisfiable) return UNSATISFIABLE_CANONICAL;
  return [...form.keys].map(([key, state]) => formatState(key, state)).join(',');
}
