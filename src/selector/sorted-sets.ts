/**
 * Set operations on sorted, duplicate-free string arrays (code-point order, as every value list of
 * the model is kept). A merge walk is linear and allocates one array; hash sets of many thousand
 * strings cost several times more per element as they grow, which made the algebra's growth with
 * the number of values visibly worse than linear.
 */
import { compareText } from '../base/text.js';

/** Values in both `a` and `b`. */
export function intersectSorted(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const order = compareText(a[i] as string, b[j] as string);
    if (order === 0) {
      out.push(a[i] as string);
      i++;
      j++;
    } else if (order < 0) i++;
    else j++;
  }
  return out;
}

/** Values of `a` not in `b`. */
export function subtractSorted(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let j = 0;
  for (const value of a) {
    while (j < b.length && compareText(b[j] as string, value) < 0) j++;
    if (j < b.length && b[j] === value) continue;
    out.push(value);
  }
  return out;
}

/** Values in `a` or `b`, once each. */
export function uniteSorted(a: readonly string[], b: readonly string[]): string[] {
  if (a.length === 0) return [...b];
  if (b.length === 0) return [...a];
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length) out.push(a[i++] as string);
    else if (i >= a.length) out.push(b[j++] as string);
    else {
      const order = compareText(a[i] as string, b[j] as string);
      if (order === 0) {
        out.push(a[i] as string);
        i++;
        j++;
      } else if (order < 0) out.push(a[i++] as string);
      else out.push(b[j++] as string);
    }
  }
  return out;
}

/** Whether the sorted array `values` holds `value` (binary search). */
export function hasSorted(values: readonly string[], value: string): boolean {
  let low = 0;
  let high = values.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const order = compareText(values[middle] as string, value);
    if (order === 0) return true;
    if (order < 0) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}
