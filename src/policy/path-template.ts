/**
 * Path templates of the extension's `HttpRouteGroup` (docs/policy.md, "The extension"):
 *
 * ```
 * template  = "/" [ segment *( "/" segment ) ] [ "/" ]
 * segment   = static | ":" name | "*" name        ; "*" only as the last segment
 * name      = ALPHA *( ALPHA / DIGIT / "_" / "-" )
 * static    = 1*( unreserved / pct-encoded / sub-delims / ":" / "@" ), not starting with ":" or "*"
 * ```
 *
 * 1. Matching is segment-wise on the raw path (no decoding, no regular expressions).
 * 2. A trailing slash matches the same route: `/books/` is `/books`, on either side.
 * 3. `:name` matches one non-empty segment; `*name` the rest of the path, possibly empty.
 * 4. When several templates match, the most specific wins, segment by segment from the left:
 *    static beats `:param` beats `*rest` (httprouter's rule, so no two matches tie unless their
 *    shapes are equal).
 */

export type Segment =
  | { readonly kind: 'static'; readonly text: string }
  | { readonly kind: 'param'; readonly name: string }
  | { readonly kind: 'rest'; readonly name: string };

export interface Template {
  readonly text: string;
  readonly segments: readonly Segment[];
  /** The template with parameter names erased (`/books/:/edit`): equal shapes conflict. */
  readonly shape: string;
  readonly params: readonly string[];
}

const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
const STATIC = /^[A-Za-z0-9\-._~!$&'()+,;=:@%]+$/;

/** Parses a template; returns the reason on failure. Never throws. */
export function parseTemplate(text: string): Template | { error: string } {
  if (!text.startsWith('/')) return { error: `template ${JSON.stringify(text)} must start with /` };
  const body = text.length > 1 && text.endsWith('/') ? text.slice(1, -1) : text.slice(1);
  const parts = body === '' ? [] : body.split('/');
  const segments: Segment[] = [];
  const params: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (part === '') return { error: `template ${JSON.stringify(text)} has an empty segment` };
    if (part.startsWith(':') || part.startsWith('*')) {
      const name = part.slice(1);
      if (!NAME.test(name))
        return {
          error: `parameter ${JSON.stringify(part)} needs a name of letters, digits, "_" or "-", starting with a letter`,
        };
      if (params.includes(name))
        return {
          error: `parameter ${JSON.stringify(name)} appears twice in ${JSON.stringify(text)}`,
        };
      if (part.startsWith('*') && i !== parts.length - 1)
        return { error: `catch-all ${JSON.stringify(part)} must be the last segment` };
      params.push(name);
      segments.push(part.startsWith(':') ? { kind: 'param', name } : { kind: 'rest', name });
    } else {
      if (!STATIC.test(part))
        return {
          error: `segment ${JSON.stringify(part)} has characters a path may not hold unescaped`,
        };
      segments.push({ kind: 'static', text: part });
    }
  }
  const shape =
    '/' +
    segments.map((s) => (s.kind === 'static' ? s.text : s.kind === 'param' ? ':' : '*')).join('/');
  return { text, segments, shape, params };
}

/** Splits a request path into segments after dropping one trailing slash. */
function requestSegments(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(1, -1) : path.slice(1);
  return trimmed === '' ? [] : trimmed.split('/');
}

/**
 * The reference matcher: does `template` match `path`, and with which parameters? Obviously
 * right and slow; the router is tested against it.
 */
export function matchTemplate(
  template: Template,
  path: string,
): Record<string, string> | undefined {
  if (!path.startsWith('/')) return undefined;
  const parts = requestSegments(path);
  const params: Record<string, string> = Object.create(null);
  for (let i = 0; i < template.segments.length; i++) {
    const segment = template.segments[i] as Segment;
    if (segment.kind === 'rest') {
      params[segment.name] = parts.slice(i).join('/');
      return params;
    }
    const part = parts[i];
    if (part === undefined) return undefined;
    if (segment.kind === 'static' ? part !== segment.text : part === '') return undefined;
    if (segment.kind === 'param') params[segment.name] = part;
  }
  return parts.length === template.segments.length ? params : undefined;
}

const RANK = { static: 0, param: 1, rest: 2 } as const;

/** Negative when `a` is more specific than `b` (static < param < rest, left to right). */
export function compareSpecificity(a: Template, b: Template): number {
  const n = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < n; i++) {
    const sa = a.segments[i];
    const sb = b.segments[i];
    // A template that ends earlier is more specific than one continuing with a catch-all.
    if (sa === undefined || sb === undefined) return sa === undefined ? -1 : 1;
    const d = RANK[sa.kind] - RANK[sb.kind];
    if (d !== 0) return d;
  }
  return 0;
}

interface LeafEntry<T> {
  readonly value: T;
  /** Templates of one leaf share a shape but may name their parameters differently. */
  readonly template: Template;
}

/**
 * The routes ending at one node. `methods[i]` is a method (`*` for routes without a method
 * list) and `entries[i]` the first route added for it: values added first win ties, so later
 * routes of the same shape and method are never returned. Parallel arrays scanned with `===`
 * (a handful of methods) replace a Map keyed by strings.
 */
class Leaf<T> {
  readonly methods: string[] = [];
  readonly entries: LeafEntry<T>[] = [];

  add(method: string, entry: LeafEntry<T>): void {
    if (!this.methods.includes(method)) {
      this.methods.push(method);
      this.entries.push(entry);
    }
  }

  /** A route naming the method beats one without a method list (Linkerd's method score). */
  lookup(method: string): LeafEntry<T> | undefined {
    const methods = this.methods;
    let any: LeafEntry<T> | undefined;
    for (let i = 0; i < methods.length; i++) {
      const m = methods[i] as string;
      if (m === method) return this.entries[i];
      if (m === '*') any = this.entries[i];
    }
    return any;
  }
}

/**
 * A hash of `text[start, end)`, computed in place: no substring to allocate and hash. The
 * router computes the char sum while it scans for the segment end, then calls {@link finishHash}.
 */
function segmentHash(text: string, start: number, end: number): number {
  let h = 0;
  for (let i = start; i < end; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return finishHash(h, end - start);
}

function finishHash(sum: number, length: number): number {
  const h = (sum + Math.imul(length, 0x9e3779b1)) | 0;
  return h ^ (h >>> 15);
}

/** Whether `path[start, start + text.length)` is `text`: a char loop the compiler inlines. */
function sameAt(text: string, path: string, start: number): boolean {
  for (let k = 0; k < text.length; k++)
    if (text.charCodeAt(k) !== path.charCodeAt(start + k)) return false;
  return true;
}

const NO_SLOTS = new Int32Array(1);

/** Static children above this many are found through the node's hash table instead of a scan. */
const SCAN_LIMIT = 8;

class Node<T> {
  /** Static children: texts and nodes in insertion order (parallel arrays). */
  readonly texts: string[] = [];
  readonly children: Node<T>[] = [];
  /**
   * Open-addressing table over the static children, kept for nodes with many: `slots[i]` is a
   * child index + 1 (0: empty), `hashes[i]` its {@link segmentHash}. Load stays at most a half.
   */
  slots: Int32Array = NO_SLOTS;
  hashes: Int32Array = NO_SLOTS;
  mask = 0;
  param: Node<T> | undefined;
  rest: Leaf<T> | undefined;
  leaf: Leaf<T> | undefined;

  /** The static child for `text`, created when missing. */
  staticChild(text: string): Node<T> {
    const index = this.texts.indexOf(text);
    if (index >= 0) return this.children[index] as Node<T>;
    const node = new Node<T>();
    this.texts.push(text);
    this.children.push(node);
    if (this.texts.length > SCAN_LIMIT) {
      if (this.texts.length * 2 > this.mask + 1) this.rehash();
      else this.place(this.texts.length - 1);
    }
    return node;
  }

  private rehash(): void {
    let size = 16;
    while (size < this.texts.length * 2) size *= 2;
    this.slots = new Int32Array(size);
    this.hashes = new Int32Array(size);
    this.mask = size - 1;
    for (let i = 0; i < this.texts.length; i++) this.place(i);
  }

  private place(index: number): void {
    const text = this.texts[index] as string;
    const h = segmentHash(text, 0, text.length);
    let slot = h & this.mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
    this.slots[slot] = index + 1;
    this.hashes[slot] = h;
  }

  /**
   * The static child equal to `path[start, end)`, or undefined; `sum` is the segment's char sum
   * from {@link segmentHash}'s loop, computed by the caller while it looked for the segment end.
   * Allocates nothing.
   */
  find(path: string, start: number, end: number, sum: number): Node<T> | undefined {
    const texts = this.texts;
    const length = end - start;
    if (texts.length <= SCAN_LIMIT) {
      for (let i = 0; i < texts.length; i++) {
        const text = texts[i] as string;
        if (text.length === length && sameAt(text, path, start)) return this.children[i];
      }
      return undefined;
    }
    const h = finishHash(sum, length);
    const slots = this.slots;
    const mask = this.mask;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const index = slots[slot] as number;
      if (index === 0) return undefined;
      if (this.hashes[slot] === h) {
        const text = texts[index - 1] as string;
        if (text.length === length && sameAt(text, path, start)) return this.children[index - 1];
      }
    }
  }
}

/** The result of a router lookup. */
export interface TemplateHit<T> {
  readonly value: T;
  readonly template: Template;
  /** Prototype-free: parameter names come from user files. */
  readonly params: Readonly<Record<string, string>>;
}

/**
 * Parameter objects without a prototype that V8 keeps as fast objects: `new Params()` has a
 * prototype that itself has none, so no key (`__proto__`, `constructor`) is inherited, while
 * `Object.create(null)` objects start in slow dictionary mode.
 */
const Params = function Params() {} as unknown as new () => Record<string, string>;
Params.prototype = Object.create(null) as object;
/** The parameters of a template without any: shared, frozen. */
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze(new Params());

/**
 * A segment trie over templates: many templates, one request. Built once (`add`), queried per
 * request (`find`).
 *
 * HOT PATH: `find` — measure with `npm run bench -- policy` before changing. It walks the path
 * with `indexOf` instead of splitting it, compares static children in place with a char loop
 * (a scan for few, an open-addressing hash table for many: no substring, no Map), and allocates
 * only the parameter stack and the result.
 */
export class TemplateRouter<T> {
  private readonly root = new Node<T>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds `value` for `template` and methods (empty: any method). Values added first win ties. */
  add(template: Template, methods: readonly string[], value: T): void {
    let node = this.root;
    let leaf: Leaf<T> | undefined;
    for (const segment of template.segments) {
      if (segment.kind === 'static') node = node.staticChild(segment.text);
      else if (segment.kind === 'param') {
        node.param ??= new Node<T>();
        node = node.param;
      } else {
        node.rest ??= new Leaf<T>();
        leaf = node.rest;
      }
    }
    if (leaf === undefined) {
      node.leaf ??= new Leaf<T>();
      leaf = node.leaf;
    }
    for (const method of methods.length === 0 ? ['*'] : methods)
      leaf.add(method, { value, template });
    this.count++;
  }

  /** The most specific template matching `method` and `path`, or null. Never throws. */
  find(method: string, path: string): TemplateHit<T> | null {
    if (path.charCodeAt(0) !== 47) return null;
    let end = path.length;
    if (end > 1 && path.charCodeAt(end - 1) === 47) end--;
    // Segments are the pieces between slashes up to `end`; `start > end` means none are left,
    // so the bare `/` starts past its end and `/a//` keeps its empty last segment.
    // No parameter array until a parameter matches: most lookups of static routes need none.
    return this.walk(this.root, path, end === 1 ? 2 : 1, end, method, null);
  }

  private walk(
    from: Node<T>,
    path: string,
    from0: number,
    end: number,
    method: string,
    values0: string[] | null,
  ): TemplateHit<T> | null {
    let node = from;
    let start = from0;
    let values = values0;
    // The walk descends in a loop wherever the next step is the last thing left to try at this
    // node (a static child with no parameter or catch-all sibling, a parameter with no
    // catch-all sibling) and recurses only where it may backtrack. A failed recursion may leave
    // values pushed by those loops, so each caller cuts the stack back to its own depth.
    for (;;) {
      if (start > end) {
        const hit = node.leaf === undefined ? null : pick(node.leaf, method, values, undefined);
        if (hit !== null) return hit;
        return node.rest === undefined ? null : pick(node.rest, method, values, '');
      }
      // One pass finds the segment's end and its hash (for nodes with many static children).
      let slash = start;
      let h = 0;
      for (; slash < end; slash++) {
        const c = path.charCodeAt(slash);
        if (c === 47) break;
        h = (Math.imul(h, 31) + c) | 0;
      }
      const child = node.find(path, start, slash, h);
      if (node.param === undefined && node.rest === undefined) {
        if (child === undefined) return null;
        node = child;
        start = slash + 1;
        continue;
      }
      if (child !== undefined) {
        const depth = values === null ? 0 : values.length;
        const hit = this.walk(child, path, slash + 1, end, method, values);
        if (hit !== null) return hit;
        if (values !== null) while (values.length > depth) values.pop();
      }
      if (node.param !== undefined && slash > start) {
        const stack = values ?? [];
        const depth = stack.length;
        stack.push(path.slice(start, slash));
        if (node.rest === undefined) {
          node = node.param;
          start = slash + 1;
          values = stack;
          continue;
        }
        const hit = this.walk(node.param, path, slash + 1, end, method, stack);
        if (hit !== null) return hit;
        while (stack.length > depth) stack.pop();
      }
      if (node.rest !== undefined) return pick(node.rest, method, values, path.slice(start, end));
      return null;
    }
  }
}

function pick<T>(
  leaf: Leaf<T>,
  method: string,
  values: readonly string[] | null,
  rest: string | undefined,
): TemplateHit<T> | null {
  const entry = leaf.lookup(method);
  if (entry === undefined) return null;
  const names = entry.template.params;
  if (names.length === 0)
    return { value: entry.value, template: entry.template, params: NO_PARAMS };
  const params = new Params();
  if (values !== null)
    for (let i = 0; i < values.length; i++) params[names[i] as string] = values[i] as string;
  if (rest !== undefined) params[names[names.length - 1] as string] = rest;
  return { value: entry.value, template: entry.template, params };
}
