/**
 * Many selectors, one label set: "which layers / policies / anchors apply to this object?"
 * (docs/selector.md, "Indexes"). A counting index over positive requirements:
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
  /** Whether a veto (a `NotIn` or `DoesNotExist`) must still be checked once all postings hit. */
  readonly vetoes: boolean;
  readonly postings: readonly (readonly [string, string | undefined])[];
  /** Query scratch: the query number `hits` belongs to (see {@link SelectorIndex.match}). */
  stamp: number;
  hits: number;
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
  /** Numbers queries, so hit counters left on entries by an earlier query read as zero. */
  private query = 0;

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
      vetoes: positives < selector.requirements.length,
      postings,
      stamp: -1,
      hits: 0,
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
    // Hit counters live on the entries, tagged with the query number: no Map and no clearing
    // per query (a Map<Entry, number> here cost about 3× in `npm run bench -- selector`).
    const query = ++this.query;
    const found: Entry<Id>[] = [];
    for (const key in labels) {
      const value = labels[key];
      if (typeof value !== 'string') continue;
      const exists = this.keyPostings.get(key);
      if (exists !== undefined) tally(exists, query, labels, found);
      const byValue = this.valuePostings.get(key);
      if (byValue !== undefined) {
        const hits = byValue.get(value);
        if (hits !== undefined) tally(hits, query, labels, found);
      }
    }
    for (const entry of this.unconstrained) if (entry.predicate(labels)) found.push(entry);
    if (found.length > 1) found.sort((a, b) => a.seq - b.seq);
    const ids: Id[] = new Array(found.length);
    for (let i = 0; i < found.length; i++) ids[i] = (found[i] as Entry<Id>).id;
    return ids;
  }

  /** Every id, in insertion order (unsatisfiable ones excluded). */
  ids(): Id[] {
    return [...this.entries.keys()];
  }
}

/**
 * Counts one posting list's hits for the current query. An entry whose every positive
 * requirement has hit is complete; it matches unless a veto fails, which only entries with
 * negative requirements need to check.
 */
function tally<Id>(
  list: readonly Entry<Id>[],
  query: number,
  labels: Labels,
  found: Entry<Id>[],
): void {
  for (let i = 0; i < list.length; i++) {
    const entry = list[i] as Entry<Id>;
    if (entry.stamp !== query) {
      entry.stamp = query;
      entry.hits = 0;
    }
    if (++entry.hits === entry.positives && (!entry.vetoes || entry.predicate(labels)))
      found.push(entry);
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
