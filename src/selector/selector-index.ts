/**
 * Many selectors, one label set: "which layers / policies / anchors apply to this object?"
 * (spec §6). A counting index over positive requirements:
 *
 * - every `In` requirement is posted under each of its `key=value` pairs, every `Exists` under
 *   its key; a label set hits at most one posting per requirement (one value per key), so a
 *   selector whose hit count reaches its number of positive requirements has them all;
 * - negative requirements (`NotIn`, `DoesNotExist`) are then checked as vetoes by the compiled
 *   predicate;
 * - selectors with no positive requirement sit on a side list checked against every query;
 * - unsatisfiable selectors are flagged at insert and never returned.
 *
 * Results come back in insertion order, exactly what a linear scan over the entries returns.
 * HOT PATH: `match` — measure with `npm run bench -- selector` before changing.
 */
import { satisfiable } from './algebra.js';
import { compile } from './compile.js';
import type { Predicate } from './compile.js';
import type { Labels } from './labels.js';
import type { Selector } from './model.js';

interface Entry<Id> {
  readonly id: Id;
  readonly seq: number;
  readonly predicate: Predicate;
  /** Number of positive requirements; 0 means the entry lives on the side list. */
  readonly positives: number;
  readonly postings: readonly (readonly [string, string | undefined])[];
}

export class SelectorIndex<Id> {
  private readonly entries = new Map<Id, Entry<Id>>();
  /** key → value → entries, for `In` requirements. */
  private readonly valuePostings = new Map<string, Map<string, Entry<Id>[]>>();
  /** key → entries, for `Exists` requirements. */
  private readonly keyPostings = new Map<string, Entry<Id>[]>();
  private readonly unconstrained = new Set<Entry<Id>>();
  private readonly unsatisfiableIds = new Set<Id>();
  private nextSeq = 0;
  // Scratch space reused across queries so `match` allocates only its result.
  private counts = new Map<Entry<Id>, number>();

  /** Number of selectors held (including unsatisfiable ones). */
  get size(): number {
    return this.entries.size + this.unsatisfiableIds.size;
  }

  /** Ids added with a selector that can never match; they are never returned by {@link match}. */
  get unsatisfiable(): ReadonlySet<Id> {
    return this.unsatisfiableIds;
  }

  /** Adds (or replaces) the selector for `id`. Returns false when it can never match. */
  add(id: Id, selector: Selector): boolean {
    this.remove(id);
    if (!satisfiable(selector).satisfiable) {
      this.unsatisfiableIds.add(id);
      return false;
    }
    const postings: [string, string | undefined][] = [];
    for (const req of selector.requirements) {
      if (req.operator === 'In') for (const value of req.values) postings.push([req.key, value]);
      else if (req.operator === 'Exists') postings.push([req.key, undefined]);
    }
    const positives = selector.requirements.filter(
      (r) => r.operator === 'In' || r.operator === 'Exists',
    ).length;
    const entry: Entry<Id> = {
      id,
      seq: this.nextSeq++,
      predicate: compile(selector),
      positives,
      postings,
    };
    this.entries.set(id, entry);
    if (positives === 0) {
      this.unconstrained.add(entry);
      return true;
    }
    for (const [key, value] of postings) {
      if (value === undefined) push(this.keyPostings, key, entry);
      else {
        let byValue = this.valuePostings.get(key);
        if (byValue === undefined) this.valuePostings.set(key, (byValue = new Map()));
        push(byValue, value, entry);
      }
    }
    return true;
  }

  /** Removes `id`. Returns whether it was present. */
  remove(id: Id): boolean {
    if (this.unsatisfiableIds.delete(id)) return true;
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    this.entries.delete(id);
    if (entry.positives === 0) {
      this.unconstrained.delete(entry);
      return true;
    }
    for (const [key, value] of entry.postings) {
      if (value === undefined) pull(this.keyPostings, key, entry);
      else {
        const byValue = this.valuePostings.get(key);
        if (byValue !== undefined) {
          pull(byValue, value, entry);
          if (byValue.size === 0) this.valuePostings.delete(key);
        }
      }
    }
    return true;
  }

  /** The ids whose selectors match `labels`, in insertion order. Never throws. */
  match(labels: Labels): Id[] {
    const counts = this.counts;
    const complete: Entry<Id>[] = [];
    for (const key in labels) {
      const value = labels[key];
      if (typeof value !== 'string') continue;
      const exists = this.keyPostings.get(key);
      if (exists !== undefined) this.tally(exists, counts, complete);
      const byValue = this.valuePostings.get(key);
      if (byValue !== undefined) {
        const hits = byValue.get(value);
        if (hits !== undefined) this.tally(hits, counts, complete);
      }
    }
    counts.clear();
    const found: Entry<Id>[] = [];
    for (const entry of complete) if (entry.predicate(labels)) found.push(entry);
    for (const entry of this.unconstrained) if (entry.predicate(labels)) found.push(entry);
    found.sort((a, b) => a.seq - b.seq);
    return found.map((entry) => entry.id);
  }

  private tally(
    list: readonly Entry<Id>[],
    counts: Map<Entry<Id>, number>,
    complete: Entry<Id>[],
  ): void {
    for (let i = 0; i < list.length; i++) {
      const entry = list[i] as Entry<Id>;
      const count = (counts.get(entry) ?? 0) + 1;
      counts.set(entry, count);
      if (count === entry.positives) complete.push(entry);
    }
  }

  /** Every id, in insertion order (unsatisfiable ones excluded). */
  ids(): Id[] {
    return [...this.entries.keys()];
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

function pull<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) return;
  const at = list.indexOf(value);
  if (at >= 0) list.splice(at, 1);
  if (list.length === 0) map.delete(key);
}
