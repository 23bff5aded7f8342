/**
 * Many selectors, one label set: "which layers / policies / anchors apply to this object?"
 * (docs/selector.md, "Indexes"). Each selector is posted once, under the one positive
 * requirement (`In` or `Exists`) that the fewest label sets are expected to meet:
 *
 * - an `In` is posted under each of its `key=value` pairs, an `Exists` under its key; a label set
 *   holds one value per key, so a query reaches a selector through at most one posting;
 * - a selector reached whose posting requirement is its only requirement matches outright; any
 *   other is checked by its compiled predicate (its remaining positives and its vetoes);
 * - selectors with no positive requirement sit on a side list checked against every query;
 * - unsatisfiable selectors are flagged at insert and never returned.
 *
 * "Fewest label sets" is estimated from the selectors themselves: an `In` on a key for which the
 * index holds many distinct values is narrow (`role=web` among a hundred roles), an `Exists` is
 * as broad as a requirement gets. The estimate changes as selectors arrive, so postings are
 * re-planned when the index has doubled since the last plan (amortized constant per `add`).
 * Counting hits under every requirement instead made a query walk every selector sharing one
 * broad term (`environment=production`), which is most of them.
 *
 * Results come back in insertion order, exactly what a linear scan over the entries returns.
 * HOT PATH: `match` — measure with `npm run bench -- selector` and `-- fleet` before changing.
 */
import { satisfiable } from './algebra.js';
import type { Labels } from './labels.js';
import type { Requirement, Selector } from './model.js';

/** Posting keys up to which a query reads them from the label set rather than walk its keys. */
const FEW_KEYS = 32;

interface Entry<Id> {
  readonly id: Id;
  readonly seq: number;
  readonly requirements: readonly Requirement[];
  /** Per requirement, its check (the side list tests them all on each query). */
  readonly checks: readonly Check[];
  /** The positive requirements, in selector order; empty for side-list entries. */
  readonly positives: readonly Requirement[];
  /** The checks other than the posting requirement's, to test once the posting is reached. */
  rest: readonly Check[];
  /** The requirement the entry is posted under, while it is posted. */
  posted: Requirement | undefined;
}

/**
 * One requirement, ready to test: `In` and `NotIn` (`negated`) test membership in `values` (a
 * `Set` past a few values), `Exists` and `DoesNotExist` (`negated`) presence. A label counts as
 * present when it is a string, as in the compiled predicates (docs/selector.md, "The model").
 */
interface Check {
  readonly key: string;
  readonly negated: boolean;
  /** Undefined for `Exists` and `DoesNotExist`. */
  readonly values: readonly string[] | undefined;
  readonly set: ReadonlySet<string> | undefined;
}

/** Postings of one label key: `Exists` entries, and `In` entries by value. */
interface KeyPostings<Id> {
  readonly key: string;
  readonly exists: Entry<Id>[];
  readonly values: Map<string, Entry<Id>[]>;
}

export class SelectorIndex<Id> {
  private readonly entries = new Map<Id, Entry<Id>>();
  private readonly postings = new Map<string, KeyPostings<Id>>();
  private readonly unconstrained = new Set<Entry<Id>>();
  /** The side list as an array (faster to walk per query), rebuilt after it changes. */
  private side: Entry<Id>[] | undefined = [];
  private readonly unsatisfiableIds = new Set<Id>();
  /** key → value → number of held `In` requirements naming it: the planner's statistics. */
  private readonly valueCounts = new Map<string, Map<string, number>>();
  /** Entries added since the last plan, not yet posted. */
  private pending: Entry<Id>[] = [];
  /** Entries held when postings were last planned. */
  private planned = 0;
  private nextSeq = 0;
  /**
   * The postings as a list, when there are few keys: a query then reads those keys from the
   * label set, which is cheaper than walking the label set's own keys (a prototype-free label
   * set is a dictionary, whose `for…in` allocates). Undefined when there are many keys, or after
   * the postings changed (rebuilt by the next query).
   */
  private postingKeys: KeyPostings<Id>[] | undefined;
  private keysStale = true;
  /** Query scratch, reused so that a query allocates only the array it returns. */
  private readonly found: Entry<Id>[] = [];

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
    const positives = selector.requirements.filter(
      (r) => r.operator === 'In' || r.operator === 'Exists',
    );
    const entry: Entry<Id> = {
      id,
      seq: this.nextSeq++,
      requirements: selector.requirements,
      checks: selector.requirements.map(checkOf),
      positives,
      rest: [],
      posted: undefined,
    };
    this.entries.set(id, entry);
    if (positives.length === 0) {
      this.unconstrained.add(entry);
      this.side = undefined;
    } else {
      this.count(positives, 1);
      this.pending.push(entry);
    }
    return true;
  }

  /** Removes `id`. Returns whether it was present. */
  remove(id: Id): boolean {
    if (this.unsatisfiableIds.delete(id)) return true;
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    this.entries.delete(id);
    if (entry.positives.length === 0) {
      this.unconstrained.delete(entry);
      this.side = undefined;
      return true;
    }
    this.count(entry.positives, -1);
    // A pending entry is dropped when the pending list is posted (it is no longer held).
    if (entry.posted !== undefined) this.unpost(entry);
    return true;
  }

  /** The ids whose selectors match `labels`, in insertion order. Never throws. */
  match(labels: Labels): Id[] {
    if (this.pending.length > 0) this.settle();
    if (this.keysStale) {
      this.keysStale = false;
      this.postingKeys = this.postings.size <= FEW_KEYS ? [...this.postings.values()] : undefined;
    }
    const found = this.found;
    const keys = this.postingKeys;
    if (keys !== undefined)
      for (let k = 0; k < keys.length; k++) {
        const byKey = keys[k] as KeyPostings<Id>;
        const value = labels[byKey.key];
        if (typeof value === 'string') reachKey(byKey, value, labels, found);
      }
    else
      for (const key in labels) {
        const value = labels[key];
        if (typeof value !== 'string') continue;
        const byKey = this.postings.get(key);
        if (byKey !== undefined) reachKey(byKey, value, labels, found);
      }
    const side = (this.side ??= [...this.unconstrained]);
    for (let i = 0; i < side.length; i++) {
      const entry = side[i] as Entry<Id>;
      if (holds(entry.checks, labels)) found.push(entry);
    }
    sortBySeq(found);
    const ids: Id[] = new Array<Id>(found.length);
    for (let i = 0; i < found.length; i++) ids[i] = (found[i] as Entry<Id>).id;
    found.length = 0;
    return ids;
  }

  /** Every id, in insertion order (unsatisfiable ones excluded). */
  ids(): Id[] {
    return [...this.entries.keys()];
  }

  /**
   * Posts the pending entries. When the index has more than doubled since the last plan, every
   * entry is re-planned with the statistics as they are now.
   */
  private settle(): void {
    let batch = this.pending;
    this.pending = [];
    if (this.entries.size > 2 * this.planned) {
      this.postings.clear();
      this.keysStale = true;
      batch = [];
      for (const entry of this.entries.values()) {
        entry.posted = undefined;
        if (entry.positives.length > 0) batch.push(entry);
      }
      this.planned = this.entries.size;
    }
    for (const entry of batch) if (this.entries.get(entry.id) === entry) this.post(entry);
  }

  private post(entry: Entry<Id>): void {
    const req = this.narrowest(entry.positives);
    entry.posted = req;
    // A reached entry holds its posting requirement (a second copy of it too, if any).
    entry.rest = entry.checks.filter((_, i) => entry.requirements[i] !== req);
    let byKey = this.postings.get(req.key);
    if (byKey === undefined) {
      this.postings.set(req.key, (byKey = { key: req.key, exists: [], values: new Map() }));
      this.keysStale = true;
    }
    if (req.operator === 'Exists') byKey.exists.push(entry);
    else
      for (const value of req.values) {
        const list = byKey.values.get(value);
        if (list === undefined) byKey.values.set(value, [entry]);
        else list.push(entry);
      }
  }

  private unpost(entry: Entry<Id>): void {
    const req = entry.posted as Requirement;
    entry.posted = undefined;
    const byKey = this.postings.get(req.key);
    if (byKey === undefined) return;
    if (req.operator === 'Exists') pull(byKey.exists, entry);
    else
      for (const value of req.values) {
        const list = byKey.values.get(value);
        if (list === undefined) continue;
        pull(list, entry);
        if (list.length === 0) byKey.values.delete(value);
      }
    if (byKey.exists.length === 0 && byKey.values.size === 0) {
      this.postings.delete(req.key);
      this.keysStale = true;
    }
  }

  /**
   * The requirement expected to hold for the smallest share of label sets: an `In` meets about
   * its number of values over the key's distinct values (plus one, for label sets with another
   * value or none); an `Exists` meets about all. The first of equals wins, so plans are stable.
   */
  private narrowest(positives: readonly Requirement[]): Requirement {
    let best = positives[0] as Requirement;
    let bestShare = Infinity;
    for (const req of positives) {
      const share =
        req.operator === 'Exists'
          ? 1
          : req.values.length / ((this.valueCounts.get(req.key)?.size ?? 0) + 1);
      if (share < bestShare) {
        best = req;
        bestShare = share;
      }
    }
    return best;
  }

  /** Adds `delta` to the statistics for every value the `In` requirements name. */
  private count(positives: readonly Requirement[], delta: 1 | -1): void {
    for (const req of positives) {
      if (req.operator !== 'In') continue;
      let counts = this.valueCounts.get(req.key);
      if (counts === undefined) this.valueCounts.set(req.key, (counts = new Map()));
      for (const value of req.values) {
        const n = (counts.get(value) ?? 0) + delta;
        if (n > 0) counts.set(value, n);
        else counts.delete(value);
      }
      if (counts.size === 0) this.valueCounts.delete(req.key);
    }
  }
}

/** Reaches the entries posted under `byKey`'s key for a label set where it has `value`. */
function reachKey<Id>(
  byKey: KeyPostings<Id>,
  value: string,
  labels: Labels,
  found: Entry<Id>[],
): void {
  if (byKey.exists.length > 0) reach(byKey.exists, labels, found);
  const list = byKey.values.get(value);
  if (list !== undefined) reach(list, labels, found);
}

/** The entries of one posting list that match: those whose other checks hold. */
function reach<Id>(list: readonly Entry<Id>[], labels: Labels, found: Entry<Id>[]): void {
  for (let i = 0; i < list.length; i++) {
    const entry = list[i] as Entry<Id>;
    if (entry.rest.length === 0 || holds(entry.rest, labels)) found.push(entry);
  }
}

/** Values up to which a check compares with `===` rather than look up a `Set`. */
const INLINE_VALUES = 4;

function checkOf(req: Requirement): Check {
  const listed = req.operator === 'In' || req.operator === 'NotIn';
  return {
    key: internalized(req.key),
    negated: req.operator === 'NotIn' || req.operator === 'DoesNotExist',
    values: listed ? req.values.map(internalized) : undefined,
    set: listed && req.values.length > INLINE_VALUES ? new Set(req.values) : undefined,
  };
}

/**
 * The same text as the engine's one shared copy (a property key is always that copy). A keyed
 * load with a key text that is not shared first looks the text up in the engine's table, and
 * comparing two shared copies is one pointer compare; keys and values parsed from documents are
 * mostly fresh copies. Halved the time of {@link holds} in `npm run bench -- fleet`.
 */
function internalized(text: string): string {
  const holder: Record<string, true> = { [text]: true };
  for (const key in holder) return key;
  return text;
}

/**
 * Whether every check holds for `labels`. One function for every selector: it stays hot and
 * optimized, where a compiled predicate per selector reached now and then runs cold (about
 * 3× the time per reach in `npm run bench -- fleet`).
 */
function holds(checks: readonly Check[], labels: Labels): boolean {
  for (let i = 0; i < checks.length; i++) {
    const check = checks[i] as Check;
    const value = labels[check.key];
    let held = typeof value === 'string';
    const values = check.values;
    if (held && values !== undefined) {
      const set = check.set;
      if (set !== undefined)
        held = set.has(value as string); // held: a string;
      else {
        held = false;
        for (let v = 0; v < values.length; v++)
          if (values[v] === value) {
            held = true;
            break;
          }
      }
    }
    if (held === check.negated) return false;
  }
  return true;
}

/**
 * Insertion order by sequence number. Matches are few (a handful of layers or policies per
 * object), where an insertion sort beats the comparator-calling library sort; past a few dozen
 * the library sort takes over.
 */
function sortBySeq<Id>(found: Entry<Id>[]): void {
  if (found.length > 32) {
    found.sort((a, b) => a.seq - b.seq);
    return;
  }
  for (let i = 1; i < found.length; i++) {
    const entry = found[i] as Entry<Id>;
    let j = i - 1;
    while (j >= 0 && (found[j] as Entry<Id>).seq > entry.seq) {
      found[j + 1] = found[j] as Entry<Id>;
      j--;
    }
    found[j + 1] = entry;
  }
}

function pull<V>(list: V[], value: V): void {
  const at = list.indexOf(value);
  if (at >= 0) list.splice(at, 1);
}
