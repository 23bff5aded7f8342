/**
 * PathPrefix entries by segment, for the route table's lookups. HOT PATH: measure before
 * changing (bench `outbound_over_findmyway`).
 *
 * A prefix `/a/b` (trailing slashes trimmed) sits at the node reached by its segments `a`, `b`;
 * a request visits the node of each of its own leading segment runs, which are exactly the
 * prefixes that match it segment-wise. Probing a `Map<string, …>` with `path.slice(0, i)` for
 * each `/` made V8 flatten and hash a fresh string per probe (about 1.5 µs a request at 1,000
 * routes); here a segment is hashed from its char codes in place, the number looks up the
 * children, and `startsWith` at the offset confirms: no string is built per request.
 */

interface Child<T> {
  readonly segment: string;
  readonly node: TrieNode<T>;
}

interface TrieNode<T> {
  entries: T[] | undefined;
  readonly children: Map<number, Child<T>[]>;
}

/** FNV-1a over `text[start, end)`, as a 30-bit integer. */
function hashRange(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  // Kept within the small-integer range, so the Map key is never a heap number.
  return h & 0x3fffffff;
}

function newNode<T>(): TrieNode<T> {
  return { entries: undefined, children: new Map() };
}

export class PrefixTrie<T> {
  private readonly root: TrieNode<T> = newNode();

  /** Adds `value` under a trimmed prefix that starts with `/` (not `/` itself). */
  add(prefix: string, value: T): void {
    let node = this.root;
    let start = 1;
    for (;;) {
      let end = prefix.indexOf('/', start);
      if (end < 0) end = prefix.length;
      const segment = prefix.slice(start, end);
      const hash = hashRange(prefix, start, end);
      let bucket = node.children.get(hash);
      if (bucket === undefined) {
        bucket = [];
        node.children.set(hash, bucket);
      }
      let child = bucket.find((c) => c.segment === segment);
      if (child === undefined) {
        child = { segment, node: newNode() };
        bucket.push(child);
      }
      node = child.node;
      if (end >= prefix.length) break;
      start = end + 1;
    }
    (node.entries ??= []).push(value);
  }

  /**
   * Calls `visit(state, entries, length)` for every prefix that matches `trimmed` (a path with
   * its trailing slashes removed), shortest first; `length` is the prefix's (what Linkerd
   * scores). Allocates nothing (the state spares a closure).
   */
  forEachMatch<S>(
    trimmed: string,
    state: S,
    visit: (state: S, entries: readonly T[], length: number) => void,
  ): void {
    if (trimmed.charCodeAt(0) !== 47 /* / */) return;
    let node: TrieNode<T> | undefined = this.root;
    let start = 1;
    while (start <= trimmed.length) {
      let end = trimmed.indexOf('/', start);
      if (end < 0) end = trimmed.length;
      const bucket: Child<T>[] | undefined = node.children.get(hashRange(trimmed, start, end));
      node = undefined;
      if (bucket !== undefined) {
        const length = end - start;
        for (let i = 0; i < bucket.length; i++) {
          const c = bucket[i] as Child<T>;
          if (c.segment.length === length && trimmed.startsWith(c.segment, start)) {
            node = c.node;
            break;
          }
        }
      }
      if (node === undefined) return;
      if (node.entries !== undefined) visit(state, node.entries, end);
      start = end + 1;
    }
  }
}
