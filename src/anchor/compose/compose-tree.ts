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
import type { Document, Node as YamlNode } from 'yaml';

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
  let budget = MAX_NODES;
  const where = (node: unknown): Where => {
    const range = (node as YamlNode | null | undefined)?.range;
    const offset = Array.isArray(range) ? range[0] : 0;
    return { file, ...position(offset) };
  };
  const resolving = new Set<unknown>();
  const tagOf = (node: YamlNode): Tag | undefined =>
    node.tag === '!reset' ? 'reset' : node.tag === '!override' ? 'override' : undefined;

  const build = (node: unknown, at: Where): TreeNode => {
    if (--budget < 0)
      throw new TreeError({
        message: `aliases expand this document past ${MAX_NODES} nodes (a YAML "billion laughs"?)`,
        where: at,
      });
    if (isAlias(node)) {
      const target = node.resolve(doc);
      if (target === undefined)
        throw new TreeError({ message: `unknown alias *${node.source}`, where: where(node) });
      if (resolving.has(target))
        throw new TreeError({
          message: `alias *${node.source} refers to the collection that holds it`,
          where: where(node),
        });
      resolving.add(target);
      try {
        return build(target, where(target));
      } finally {
        resolving.delete(target);
      }
    }
    if (isMap(node)) {
      const out: MapNode = { kind: 'map', where: where(node), entries: new Map() };
      const tag = tagOf(node);
      if (tag !== undefined) out.tag = tag;
      const sources: TreeNode[] = [];
      for (const pair of node.items) {
        const keyNode = pair.key;
        if (!isScalar(keyNode) || keyNode.value === null || typeof keyNode.value === 'object')
          throw new TreeError({
            message: 'a mapping key must be a string',
            where: keyNode === null ? out.where : where(keyNode),
          });
        const key = String(keyNode.value);
        const value: TreeNode =
          pair.value === null
            ? { kind: 'scalar', where: where(keyNode), value: null }
            : build(pair.value, where(pair.value));
        if (key === '<<' && keyNode.type === 'PLAIN') {
          const list = value.kind === 'seq' && !isAlias(pair.value) ? value.items : [value];
          for (const source of list) {
            if (source.kind !== 'map')
              throw new TreeError({
                message: 'a merge key (<<) takes a mapping or a list of mappings',
                where: source.where,
              });
            sources.push(source);
          }
          continue;
        }
        out.entries.set(key, { key: where(keyNode), value });
      }
      // Own keys win, then earlier merge sources over later ones.
      for (const source of sources) {
        if (source.kind !== 'map') continue;
        for (const [key, entry] of source.entries)
          if (!out.entries.has(key)) out.entries.set(key, entry);
      }
      return out;
    }
    if (isSeq(node)) {
      const out: SeqNode = {
        kind: 'seq',
        where: where(node),
        items: node.items.map((item) => build(item, where(item))),
      };
      const tag = tagOf(node);
      if (tag !== undefined) out.tag = tag;
      return out;
    }
    if (isScalar(node)) {
      const raw: unknown = node.value;
      const value =
        raw === null ||
        typeof raw === 'string' ||
        typeof raw === 'number' ||
        typeof raw === 'boolean'
          ? raw
          : String(raw);
      const out: ScalarNode = {
        kind: 'scalar',
        where: at,
        // Numbers are passed on as parsed (`1.50` is 1.5), as both docker-compose and compose-go do.
        value: tagOf(node) === 'reset' && value === '' ? null : value,
      };
      const tag = tagOf(node);
      if (tag !== undefined) out.tag = tag;
      return out;
    }
    return { kind: 'scalar', where: at, value: null };
  };

  if (doc.contents === null) return { problems: [] };
  try {
    return { tree: build(doc.contents, where(doc.contents)), problems: [] };
  } catch (error) {
    if (error instanceof TreeError) return { problems: [error.problem] };
    if (error instanceof RangeError)
      return {
        problems: [
          { message: 'the document nests too deeply to read', where: where(doc.contents) },
        ],
      };
    throw error;
  }
}
