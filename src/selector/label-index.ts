/**
 * One selector, many label sets: "which hosts / containers / pods does this select?" (docs/selector.md, "Indexes").
 * An inverted index key → value → ids. A query intersects the postings of its positive
 * requirements smallest first, then filters the survivors with the compiled predicate (which
 * also applies the negative requirements). A selector with no positive requirement falls back to
 * filtering every label set.
 *
 * Results come back in insertion order, exactly what a linear scan over the entries returns.
 * HOT PATH: `select` — measure with `npm run bench -- selector` before changing.
 */
import { compile } from './compile.js';
import type { Predicate } from './compile.js';
import type { Labels } from './labels.js';
import { matches } from './match.js';
import type { Selector } from './model.js';

/** Candidate counts above which `select` compiles the selector instead of interpreting it. */
const COMPILE_THRESHOLD = 512;

interface Entry<Id> {
  readonly id: Id;
  readonly seq: number;
  readonly labels: Labels;
}

export class LabelIndex<Id> {
  private readonly entries = new Map<Id, Entry<Id>>();
  private readonly byValue = new Map<string, Map<string, Set<Entry<Id>>>>();
  private readonly byKey = new Map<string, Set<Entry<Id>>>();
  private nextSeq = 0;

  get size(): number {
    return this.entries.size;
  }

  /** Adds (or replaces) the label set of `id`. The label set is copied. */
  add(id: Id, labels: Labels): void {
    this.remove(id);
    const copy: Record<string, string> = Object.create(null);
    for (const key of Object.keys(labels)) {
      const value = labels[key];
      if (typeof value === 'string') copy[key] = value;
    }
    const entry: Entry<Id> = { id, seq: this.nextSeq++, labels: copy };
    this.entries.set(id, entry);
    for (const key of Object.keys(copy)) {
      const value = copy[key] as string;
      let keySet = this.byKey.get(key);
      if (keySet === undefined) this.byKey.set(key, (keySet = new Set()));
      keySet.add(entry);
      let values = this.byValue.get(key);
      if (values === undefined) this.byValue.set(key, (values = new Map()));
      let valueSet = values.get(value);
      if (valueSet === undefined) values.set(value, (valueSet = new Set()));
      valueSet.add(entry);
    }
  }

  /** Removes `id`. Returns whether it was present. */
  remove(id: Id): boolean {
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    this.entries.delete(id);
    for (const key of Object.keys(entry.labels)) {
      const value = entry.labels[key] as string;
      const keySet = this.byKey.get(key);
      keySet?.delete(entry);
      if (keySet?.size === 0) this.byKey.delete(key);
      const values = this.byValue.get(key);
      const valueSet = values?.get(value);
      valueSet?.delete(entry);
      if (valueSet?.size === 0) values?.delete(value);
      if (values?.size === 0) this.byValue.delete(key);
    }
    return true;
  }

  /** The label set stored for `id`. */
  get(id: Id): Labels | undefined {
    return this.entries.get(id)?.labels;
  }

  /** Every id, in insertion order. */
  ids(): Id[] {
    return [...this.entries.keys()];
  }

  /** The ids whose label sets `selector` matches, in insertion order. Never throws. */
  select(selector: Selector): Id[] {
    if (selector.kind === 'nothing') return [];
    // Each positive requirement narrows to a candidate group: one set (`Exists`, single `In`)
    // or the union of a few (`In` with several values).
    const groups: { size: number; sets: Set<Entry<Id>>[] }[] = [];
    for (const req of selector.requirements) {
      if (req.operator === 'Exists') {
        const set = this.byKey.get(req.key);
        if (set === undefined) return [];
        groups.push({ size: set.size, sets: [set] });
      } else if (req.operator === 'In') {
        const values = this.byValue.get(req.key);
        const sets: Set<Entry<Id>>[] = [];
        let size = 0;
        for (const value of req.values) {
          const set = values?.get(value);
          if (set !== undefined) {
            sets.push(set);
            size += set.size;
          }
        }
        if (size === 0) return [];
        groups.push({ size, sets });
      }
    }
    const found: Entry<Id>[] = [];
    if (groups.length === 0) {
      const predicate = compile(selector);
      for (const entry of this.entries.values()) if (predicate(entry.labels)) found.push(entry);
      return found.map((entry) => entry.id);
    }
    // The smallest group drives; the predicate re-checks every requirement, so the other
    // groups need no explicit intersection.
    groups.sort((a, b) => a.size - b.size);
    const smallest = groups[0] as { size: number; sets: Set<Entry<Id>>[] };
    // Compiling costs tens of microseconds (a `new Function`); for a few candidates the
    // interpreter is cheaper. Measured with `npm run bench -- selector` (LabelIndex rows).
    const predicate: Predicate =
      smallest.size > COMPILE_THRESHOLD
        ? compile(selector)
        : (labels: Labels) => matches(selector, labels);
    for (const set of smallest.sets)
      for (const entry of set) if (predicate(entry.labels)) found.push(entry);
    found.sort((a, b) => a.seq - b.seq);
    return found.map((entry) => entry.id);
  }
}
