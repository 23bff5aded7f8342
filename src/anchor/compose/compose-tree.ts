/**
 * A Compose file as a tree of plain nodes that remember where they were written, built from the
 * shared YAML reader's document the way Compose reads YAML. Pure.
 *
 * - An alias (`*name`) stands for a copy of its anchor's node, wherever it appears: a whole
 *   value (`environment: *env`), a list item, a scalar, a whole service (`db: *defaults`).
 * - `<<: *a` and `<<: [*a, *b]` merge mappings (YAML 1.1 merge keys): the mapping's own keys
 *   win, then earlier sources over later ones. A merge source that is not a mapping is an error.
 * - `!reset` and `!override` tags are kept on the node for the merge step.
 * - Expansion is bounded: a document whose aliases expand to more than {@link MAX_NODES} nodes,
 *   or an alias inside its own anchor, is refused instead of exhausting memory.
 */
import { isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { Alias, Document, Scalar, YAMLMap, YAMLSeq, Node as YamlNode } from 'yaml';
import { pushAll } from '../../base/arrays.js';

/** Where a node was written (1-based). */
export interface Where {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

export type Tag = 'reset' | 'override';

export interface MapNode {
  readonly kind: 'map';
  readonly where: Where;
  tag?: Tag;
  /** Insertion order is the file's order. */
  readonly entries: Map<string, Entry>;
}
export interface Entry {
  readonly key: Where;
  value: TreeNode;
}
export interface SeqNode {
  readonly kind: 'seq';
  readonly where: Where;
  tag?: Tag;
  items: TreeNode[];
}
export interface ScalarNode {
  readonly kind: 'scalar';
  readonly where: Where;
  tag?: Tag;
  value: string | number | boolean | null;
}
export type TreeNode = MapNode | SeqNode | ScalarNode;

/** A problem in the tree, at a position. */
export interface TreeProblem {
  readonly message: string;
  readonly where: Where;
}

/** Most nodes one document may expand to through aliases (compose-go allows 100,000 visits). */
export const MAX_NODES = 200_000;

class TreeError extends Error {
  constructor(readonly problem: TreeProblem) {
    super(problem.message);
  }
}

/** The scalar as the text Compose sees (`null` → undefined; numbers and booleans as written). */
export function scalarString(node: TreeNode | undefined): string | undefined {
  if (node === undefined || node.kind !== 'scalar' || node.value === null) return undefined;
  return String(node.value);
}

/** A deep copy (merges mutate the tree they merge into). */
export function cloneNode(node: TreeNode): TreeNode {
  switch (node.kind) {
    case 'scalar':
      return { ...node };
    case 'seq':
      return { ...node, items: node.items.map(cloneNode) };
    case 'map': {
      const entries = new Map<string, Entry>();
      for (const [k, e] of node.entries) entries.set(k, { key: e.key, value: cloneNode(e.value) });
      return { ...node, entries };
    }
  }
}

/** The tree as plain data (mappings as objects without a prototype), for comparisons. */
export function plainTree(node: TreeNode): unknown {
  if (node.kind === 'scalar') return node.value;
  if (node.kind === 'seq') return node.items.map(plainTree);
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, e] of node.entries) out[k] = plainTree(e.value);
  return out;
}

function tagOf(node: YamlNode): Tag | undefined {
  return node.tag === '!reset' ? 'reset' : node.tag === '!override' ? 'override' : undefined;
}

/** One document's conversion: the node budget and the aliases being expanded live here. */
class TreeBuilder {
  private budget = MAX_NODES;
  private readonly resolving = new Set<unknown>();

  constructor(
    private readonly doc: Document,
    private readonly file: string,
    private readonly position: (offset: number) => { line: number; column: number },
  ) {}

  where(node: unknown): Where {
    const range = (node as YamlNode | null | undefined)?.range;
    const offset = Array.isArray(range) ? range[0] : 0;
    return { file: this.file, ...this.position(offset) };
  }

  build(node: unknown, at: Where): TreeNode {
    if (--this.budget < 0)
      throw new TreeError({
        message: `aliases expand this document past ${MAX_NODES} nodes (a YAML "billion laughs"?)`,
        where: at,
      });
    if (isAlias(node)) return this.alias(node);
    if (isMap(node)) return this.map(node);
    if (isSeq(node)) return this.seq(node);
    if (isScalar(node)) return this.scalar(node, at);
    return { kind: 'scalar', where: at, value: null };
  }

  /** A copy of the anchor's node; an alias inside its own anchor is refused. */
  private alias(node: Alias): TreeNode {
    const target = node.resolve(this.doc);
    if (target === undefined)
      throw new TreeError({ message: `unknown alias *${node.source}`, where: this.where(node) });
    if (this.resolving.has(target))
      throw new TreeError({
        message: `alias *${node.source} refers to the collection that holds it`,
        where: this.where(node),
      });
    this.resolving.add(target);
    try {
      return this.build(target, this.where(target));
    } finally {
      this.resolving.delete(target);
    }
  }

  private map(node: YAMLMap): MapNode {
    const out: MapNode = { kind: 'map', where: this.where(node), entries: new Map() };
    const tag = tagOf(node);
    if (tag !== undefined) out.tag = tag;
    const sources: MapNode[] = [];
    for (const pair of node.items) {
      const keyNode = pair.key;
      if (!isScalar(keyNode) || keyNode.value === null || typeof keyNode.value === 'object')
        throw new TreeError({
          message: 'a mapping key must be a string',
          where: keyNode === null ? out.where : this.where(keyNode),
        });
      const key = String(keyNode.value);
      const value: TreeNode =
        pair.value === null
          ? { kind: 'scalar', where: this.where(keyNode), value: null }
          : this.build(pair.value, this.where(pair.value));
      if (key === '<<' && keyNode.type === 'PLAIN') {
        pushAll(sources, mergeSources(value, isAlias(pair.value)));
        continue;
      }
      out.entries.set(key, { key: this.where(keyNode), value });
    }
    // Own keys win, then earlier merge sources over later ones.
    for (const source of sources) {
      for (const [key, entry] of source.entries)
        if (!out.entries.has(key)) out.entries.set(key, entry);
    }
    return out;
  }

  private seq(node: YAMLSeq): SeqNode {
    const out: SeqNode = {
      kind: 'seq',
      where: this.where(node),
      items: node.items.map((item) => this.build(item, this.where(item))),
    };
    const tag = tagOf(node);
    if (tag !== undefined) out.tag = tag;
    return out;
  }

  private scalar(node: Scalar, at: Where): ScalarNode {
    const raw: unknown = node.value;
    const value =
      raw === null || typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean'
        ? raw
        : String(raw);
    const tag = tagOf(node);
    const out: ScalarNode = {
      kind: 'scalar',
      where: at,
      // Numbers are passed on as parsed (`1.50` is 1.5), as both docker-compose and compose-go do.
      value: tag === 'reset' && value === '' ? null : value,
    };
    if (tag !== undefined) out.tag = tag;
    return out;
  }
}

/** The mappings a merge key (`<<`) names: one, or a list of them (not an aliased list). */
function mergeSources(value: TreeNode, aliased: boolean): MapNode[] {
  const list = value.kind === 'seq' && !aliased ? value.items : [value];
  return list.map((source) => {
    if (source.kind !== 'map')
      throw new TreeError({
        message: 'a merge key (<<) takes a mapping or a list of mappings',
        where: source.where,
      });
    return source;
  });
}

/**
 * Builds the tree of one parsed document. Returns undefined for an empty document, and the
 * problems that made the document unusable (a bad merge source, an alias cycle, an expansion
 * past the limit, a key that is not a scalar).
 */
export function buildTree(
  doc: Document,
  file: string,
  position: (offset: number) => { line: number; column: number },
): { tree?: TreeNode; problems: TreeProblem[] } {
  if (doc.contents === null) return { problems: [] };
  const builder = new TreeBuilder(doc, file, position);
  const top = builder.where(doc.contents);
  try {
    return { tree: builder.build(doc.contents, top), problems: [] };
  } catch (error) {
    if (error instanceof TreeError) return { problems: [error.problem] };
    if (error instanceof RangeError)
      return { problems: [{ message: 'the document nests too deeply to read', where: top }] };
    throw error;
  }
}
