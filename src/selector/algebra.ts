/**
 * Selector algebra (docs/selector.md, "The algebra"): satisfiability with a witness, overlap with a witness or a proof
 * of disjointness, subsumption with a counterexample, and equivalence. All of it runs per key
 * over the normal form of `normalize.ts`, which is what keeps it exact and linear.
 *
 * Absent keys are the trap: `tier!=frontend` and `!tier` overlap (witness `{}`), and
 * `env notin (x)` does not subsume `env` only the other way round.
 */
import type { Labels } from './labels.js';
import { labelsFrom, sortStrings } from './labels.js';
import type { Requirement, Selector } from './model.js';
import { ANY, canonicalForm, intersectStates, normalize } from './normalize.js';
import type { KeyState, NormalForm } from './normalize.js';
import { hasSorted } from './sorted-sets.js';
import { formatRequirement } from './syntax/k8s-print.js';

/** Why no label set can satisfy a selector (or two selectors at once). */
export interface DisjointnessProof {
  /** The key whose requirements cannot all hold; undefined when a Nothing selector is involved. */
  readonly key: string | undefined;
  /** The requirements on that key from the first (or only) selector. */
  readonly a: readonly Requirement[];
  /** The requirements on that key from the second selector (empty for satisfiability). */
  readonly b: readonly Requirement[];
  /** One sentence for people, naming the key and the terms. */
  readonly reason: string;
}

export type SatisfiableResult =
  | { readonly satisfiable: true; readonly witness: Labels }
  | { readonly satisfiable: false; readonly proof: DisjointnessProof };

export type OverlapResult =
  | { readonly overlap: true; readonly witness: Labels }
  | { readonly overlap: false; readonly proof: DisjointnessProof };

export type SubsumesResult =
  { readonly subsumes: true } | { readonly subsumes: false; readonly counterexample: Labels };

/**
 * A value for a key that must be present but avoid `excluded`: `v`, then `v1`, `v2`, …
 * Valid under every profile (letters and digits only, never empty).
 */
export function freshValue(excluded: readonly string[]): string {
  // `excluded` is sorted (every state keeps its values so): a binary search per candidate keeps
  // this O(n log n) where a hash set of many thousand values would cost more to build.
  if (!hasSorted(excluded, 'v')) return 'v';
  for (let i = 1; ; i++) {
    const candidate = `v${i}`;
    if (!hasSorted(excluded, candidate)) return candidate;
  }
}

/** A deterministic value for a state, or undefined when the key is best left absent. */
function witnessValue(state: KeyState): string | undefined {
  switch (state.kind) {
    case 'in':
      return state.values[0]; // values are kept sorted: the smallest
    case 'present-not-in':
      return freshValue(state.excluded);
    case 'absent-or-not-in':
    case 'absent':
      return undefined;
    case 'never':
      throw new Error('witnessValue: unsatisfiable state');
  }
}

function witnessOf(keys: ReadonlyMap<string, KeyState>): Labels {
  const entries: [string, string][] = [];
  for (const [key, state] of keys) {
    const value = witnessValue(state);
    if (value !== undefined) entries.push([key, value]);
  }
  return labelsFrom(entries);
}

function terms(reqs: readonly Requirement[]): string {
  return reqs.map(formatRequirement).join(', ');
}

function nothingProof(which: string): DisjointnessProof {
  return {
    key: undefined,
    a: [],
    b: [],
    reason: `${which} is the Nothing selector (a null LabelSelector), which matches no label set`,
  };
}

/** Is there a label set the selector matches? Gives the deterministic smallest witness or a proof. */
export function satisfiable(selector: Selector): SatisfiableResult {
  const form = normalize(selector);
  if (form.nothing) return { satisfiable: false, proof: nothingProof('the selector') };
  for (const [key, state] of form.keys) {
    if (state.kind === 'never') {
      const a = form.sourcesOf(key);
      return {
        satisfiable: false,
        proof: {
          key,
          a,
          b: [],
          reason: `no value of ${JSON.stringify(key)} satisfies ${terms(a)}`,
        },
      };
    }
  }
  return { satisfiable: true, witness: witnessOf(form.keys) };
}

function mergeForms(a: NormalForm, b: NormalForm): Map<string, KeyState> {
  const merged = new Map<string, KeyState>();
  const keys = sortStrings([...new Set([...a.keys.keys(), ...b.keys.keys()])]);
  for (const key of keys) {
    merged.set(key, intersectStates(a.keys.get(key) ?? ANY, b.keys.get(key) ?? ANY));
  }
  return merged;
}

/**
 * Can one label set match both selectors? Returns a witness both match, or a proof naming the
 * key and the requirements (with their origins) whose intersection is empty.
 */
export function overlap(a: Selector, b: Selector): OverlapResult {
  const formA = normalize(a);
  const formB = normalize(b);
  if (formA.nothing) return { overlap: false, proof: nothingProof('the first selector') };
  if (formB.nothing) return { overlap: false, proof: nothingProof('the second selector') };
  const merged = mergeForms(formA, formB);
  for (const [key, state] of merged) {
    if (state.kind !== 'never') continue;
    const reqsA = formA.sourcesOf(key);
    const reqsB = formB.sourcesOf(key);
    const aAlone = formA.keys.get(key)?.kind === 'never';
    const bAlone = formB.keys.get(key)?.kind === 'never';
    let reason: string;
    if (aAlone)
      reason = `the first selector can never match: no value of ${JSON.stringify(key)} satisfies ${terms(reqsA)}`;
    else if (bAlone)
      reason = `the second selector can never match: no value of ${JSON.stringify(key)} satisfies ${terms(reqsB)}`;
    else
      reason = `key ${JSON.stringify(key)}: ${terms(reqsA)} and ${terms(reqsB)} cannot both hold`;
    return { overlap: false, proof: { key, a: reqsA, b: reqsB, reason } };
  }
  return { overlap: true, witness: witnessOf(merged) };
}

/** The complement of one key state, as a union of states. */
function complement(state: KeyState): KeyState[] {
  switch (state.kind) {
    case 'never':
      return [ANY];
    case 'in':
      return [{ kind: 'absent-or-not-in', excluded: state.values }];
    case 'present-not-in':
      return state.excluded.length === 0
        ? [{ kind: 'absent' }]
        : [{ kind: 'absent' }, { kind: 'in', values: state.excluded }];
    case 'absent-or-not-in':
      return state.excluded.length === 0 ? [] : [{ kind: 'in', values: state.excluded }];
    case 'absent':
      return [{ kind: 'present-not-in', excluded: [] }];
  }
}

/**
 * Does `a` subsume `b` — does every label set `b` matches also match `a`? When not, returns a
 * counterexample: a label set `b` matches and `a` does not. Nothing is subsumed by everything.
 */
export function subsumes(a: Selector, b: Selector): SubsumesResult {
  const formB = normalize(b);
  if (!formB.satisfiable) return { subsumes: true };
  const formA = normalize(a);
  if (formA.nothing) return { subsumes: false, counterexample: witnessOf(formB.keys) };
  // b ∧ ¬a is a union over a's keys of b with that key's state replaced by b_k ∧ ¬a_k.
  for (const [key, stateA] of formA.keys) {
    const stateB = formB.keys.get(key) ?? ANY;
    for (const part of complement(stateA)) {
      const both = intersectStates(stateB, part);
      if (both.kind === 'never') continue;
      const keys = new Map(formB.keys);
      keys.set(key, both);
      return { subsumes: false, counterexample: witnessOf(keys) };
    }
  }
  return { subsumes: true };
}

/**
 * Do the two selectors match exactly the same label sets? Compares normalised canonical forms,
 * which are unique per meaning (see `normalize.ts`).
 */
export function equivalent(a: Selector, b: Selector): boolean {
  return canonicalForm(a) === canonicalForm(b);
}
