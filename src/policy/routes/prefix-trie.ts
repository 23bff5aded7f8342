/**
 * PathPrefix entries by path, for the route table's lookups. HOT PATH: measure before changing
 * (bench `outbound_over_findmyway`).
 *
 * A radix tree over the characters of the prefixes (trailing slashes trimmed): each node holds
 * the text its edge adds and its children by their first character. A request walks it once,
 * comparing each character of its path at most once, and a node with entries matches when the
 * path ends there or goes on with `/` (prefixes match whole segments). Earlier designs paid
 * more per request: probing a `Map<string, …>` with `path.slice(0, i)` made V8 flatten and hash
 * a fresh string per probe (about 1.5 µs a request at 1,000 routes); a trie of segments hashed
 * every character, then paid a map lookup and a `startsWith` per segment. Here no string is
 * built and no builtin called per request: character comparisons and small-array scans only.
 */

interface RadixNode<T> {
  /** The characters this node adds to its parent's. */
  label: string;
  entries: T[] | undefined;
  /** Exact paths ending here: they match a path that ends here (with no trailing slash). */
  exact: T[] | undefined;
  /** The first character of each child's label, beside `children`. */
  firsts: number[];
  children: RadixNode<T>[];
  /** Past a few children: the children by first character below 128 (what paths use). */
  ascii: (RadixNode<T> | undefined)[] | undefined;
}

/** Children up to this many are scanned; more get an `ascii` table. */
const SCANNED = 4;

const SLASH = 47;

function newNode<T>(label: string, entries: T[] | undefined): RadixNode<T> {
  return { label, entries, exact: undefined, firsts: [], children: [], ascii: undefined };
}

function addChild<T>(node: RadixNode<T>, code: number, child: RadixNode<T>): void {
  node.firsts.push(code);
  node.children.push(child);
  if (node.firsts.length <= SCANNED || node.firsts.some((c) => c >= 128)) {
    node.ascii = undefined;
    return;
  }
  const ascii = new Array<RadixNode<T> | undefined>(128).fill(undefined);
  node.firsts.forEach((c, i) => (ascii[c] = node.children[i]));
  node.ascii = ascii;
}

function childAt<T>(node: RadixNode<T>, code: number): RadixNode<T> | undefined {
  const ascii = node.ascii;
  if (ascii !== undefined) return code < 128 ? ascii[code] : undefined;
  const firsts = node.firsts;
  for (let i = 0; i < firsts.length; i++) if (firsts[i] === code) return node.children[i];
  return undefined;
}

export class PrefixTrie<T> {
  private readonly root: RadixNode<T> = newNode('', undefined);

  /** Adds `value` under a trimmed prefix that starts with `/` (not `/` itself). */
  add(prefix: string, value: T): void {
    (this.nodeOf(prefix).entries ??= []).push(value);
  }

  /** Adds `value` under an Exact path that starts with `/` and does not end with one. */
  addExact(path: string, value: T): void {
    (this.nodeOf(path).exact ??= []).push(value);
  }

  private nodeOf(prefix: string): RadixNode<T> {
    let node = this.root;
    let pos = 0;
    while (pos < prefix.length) {
      const child = childAt(node, prefix.charCodeAt(pos));
      if (child === undefined) {
        const leaf = newNode<T>(prefix.slice(pos), undefined);
        addChild(node, prefix.charCodeAt(pos), leaf);
        return leaf;
      }
      const label = child.label;
      let common = 1;
      while (
        common < label.length &&
        pos + common < prefix.length &&
        label.charCodeAt(common) === prefix.charCodeAt(pos + common)
      )
        common++;
      if (common < label.length) {
        // Split: the child keeps the shared head, a new node takes its tail and what it held.
        const tail = newNode<T>(label.slice(common), child.entries);
        tail.exact = child.exact;
        tail.firsts = child.firsts;
        tail.children = child.children;
        tail.ascii = child.ascii;
        child.label = label.slice(0, common);
        child.entries = undefined;
        child.exact = undefined;
        child.firsts = [];
        child.children = [];
        child.ascii = undefined;
        addChild(child, label.charCodeAt(common), tail);
      }
      node = child;
      pos += common;
    }
    return node;
  }

  /**
   * Calls `visit(state, entries, length)` for every prefix that matches `trimmed` (a path with
   * its trailing slashes removed), shortest first; `length` is the prefix's (what Linkerd
   * scores). With `whole` (`trimmed` is the path itself: it had no trailing slash), the Exact
   * paths equal to it too, last. Allocates nothing (the state spares a closure).
   */
  forEachMatch<S>(
    trimmed: string,
    whole: boolean,
    state: S,
    visit: (state: S, entries: readonly T[], length: number) => void,
  ): void {
    const length = trimmed.length;
    let node: RadixNode<T> | undefined = this.root;
    let pos = 0;
    while (pos < length) {
      node = childAt(node, trimmed.charCodeAt(pos));
      if (node === undefined) return;
      const label = node.label;
      // The first character chose the child.
      for (let k = 1; k < label.length; k++)
        if (trimmed.charCodeAt(pos + k) !== label.charCodeAt(k)) return;
      pos += label.length;
      if (pos > length) return;
      if (node.entries !== undefined && (pos === length || trimmed.charCodeAt(pos) === SLASH))
        visit(state, node.entries, pos);
    }
    if (whole && node.exact !== undefined && pos === length) visit(state, node.exact, pos);
  }
}
