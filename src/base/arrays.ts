/**
 * Array helpers for input-sized data. `target.push(...items)` and `Math.max(...items)` pass
 * every item as a function argument, on the stack: past about 100,000 items (130,000 YAML
 * documents, one per line) they throw a RangeError. These loop instead.
 */

/** Appends every item of `items` to `target`, in order. */
export function pushAll<T>(target: T[], items: Iterable<T>): void {
  for (const item of items) target.push(item);
}

/** The largest of `values`, or `floor` when that is larger or there are none. */
export function maxOf(values: Iterable<number>, floor = -Infinity): number {
  let best = floor;
  for (const value of values) if (value > best) best = value;
  return best;
}
