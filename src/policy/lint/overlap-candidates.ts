/**
 * Which pairs of selectors might overlap, without trying every pair. Two selectors that both
 * restrict a key K to value sets with nothing in common (`app=a` and `app=b`) are disjoint for
 * certain, so selectors are bucketed by the values they allow for the key most of them pin, and
 * only pairs that share a bucket (or involve a selector that leaves K free) are candidates. The
 * buckets are split again on the next key while they are large. The exact answer still comes
 * from the selector algebra, on the candidates only: 6,000 Servers selecting one app each take
 * one pass instead of 18 million overlap proofs.
 */
import type { Selector } from '../../selector/index.js';

/** Below this many selectors, every pair is a candidate (splitting costs more than it saves). */
const SMALL = 8;

/** The values a selector allows for each key it pins with `In` (intersected when repeated). */
function pinned(selector: Selector): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const r of selector.requirements) {
    if (r.operator !== 'In') continue;
    const before = out.get(r.key);
    out.set(r.key, before === undefined ? r.values : before.filter((v) => r.values.includes(v)));
  }
  return out;
}

/**
 * Index pairs `[i, j]` (i < j, sorted) of `selectors` that are not disjoint by a pinned key.
 * Every overlapping pair is among them; `nothing` selectors are in none.
 */
export function overlapCandidates(selectors: readonly Selector[]): [number, number][] {
  const pins = selectors.map(pinned);
  const pairs = new Set<number>();
  const n = selectors.length;
  const all = (list: readonly number[], other: readonly number[] = list): void => {
    for (const i of list)
      for (const j of other) if (i !== j) pairs.add(i < j ? i * n + j : j * n + i);
  };
  const split = (list: readonly number[], used: ReadonlySet<string>): void => {
    if (list.length < 2) return;
    if (list.length <= SMALL) return all(list);
    const counts = new Map<string, number>();
    for (const i of list)
      for (const key of (pins[i] as Map<string, readonly string[]>).keys())
        if (!used.has(key)) counts.set(key, (counts.get(key) ?? 0) + 1);
    let best: string | undefined;
    let bestCount = 0;
    for (const [key, count] of counts)
      if (count > bestCount || (count === bestCount && best !== undefined && key < best)) {
        best = key;
        bestCount = count;
      }
    if (best === undefined) return all(list);
    const buckets = new Map<string, number[]>();
    const free: number[] = [];
    for (const i of list) {
      const values = (pins[i] as Map<string, readonly string[]>).get(best);
      if (values === undefined) free.push(i);
      else
        for (const v of values) {
          const bucket = buckets.get(v);
          if (bucket === undefined) buckets.set(v, [i]);
          else bucket.push(i);
        }
    }
    const next = new Set(used).add(best);
    for (const bucket of buckets.values()) split(bucket, next);
    split(free, next);
    // A selector that leaves the key free can meet any other.
    if (free.length > 0) {
      const pinnedOnes = list.filter((i) => (pins[i] as Map<string, readonly string[]>).has(best));
      all(free, pinnedOnes);
    }
  };
  const live: number[] = [];
  selectors.forEach((s, i) => {
    if (s.kind !== 'nothing') live.push(i);
  });
  split(live, new Set());
  return [...pairs]
    .sort((a, b) => a - b)
    .map((p) => [Math.floor(p / n), p % n] as [number, number]);
}
