/**
 * How Compose combines trees: `!reset` and `!override`, and the merge of a later file (or an
 * extending service) over an earlier one. Pure; follows compose-go's `override` package and the
 * Compose specification ("Merge and override").
 *
 * Merge rules by path (others: mappings merge per key, sequences append, scalars are replaced):
 * - `services.*.command`, `entrypoint`, `healthcheck.test`: replaced;
 * - `services.*.environment`, `labels`, `sysctls`, `annotations` (list or mapping form): merged
 *   per key, the later value winning;
 * - `services.*.networks` (list or mapping form): merged per network name;
 * - `services.*.env_file`, `profiles`, `dns`, …: appended.
 */
import type { Entry, MapNode, TreeNode, Where } from './compose-tree.js';
import { cloneNode, scalarString } from './compose-tree.js';

/** A path in the tree: mapping keys. Sequence items are never reset individually. */
export type TreePath = readonly string[];

/**
 * Removes `!reset` nodes from `tree` (they are not part of the file's value) and returns the
 * paths of `!reset` and `!override` nodes: the earlier value at each path is dropped before
 * this tree is merged over it.
 */
export function takeResets(tree: TreeNode): TreePath[] {
  const paths: TreePath[] = [];
  const walk = (node: TreeNode, path: string[]): void => {
    if (node.kind === 'map') {
      for (const [key, entry] of [...node.entries]) {
        const next = [...path, key];
        if (entry.value.tag === 'reset') {
          paths.push(next);
          node.entries.delete(key);
          continue;
        }
        if (entry.value.tag === 'override') paths.push(next);
        walk(entry.value, next);
      }
    } else if (node.kind === 'seq') {
      node.items = node.items.filter((item) => item.tag !== 'reset');
      for (const item of node.items) walk(item, path);
    }
  };
  walk(tree, []);
  return paths;
}

/** Deletes the value at each path from `tree` (a no-op where there is none). */
export function applyResets(tree: TreeNode, paths: readonly TreePath[]): void {
  for (const path of paths) {
    let node: TreeNode | undefined = tree;
    for (let i = 0; i < path.length - 1 && node !== undefined; i++)
      node = node.kind === 'map' ? node.entries.get(path[i] as string)?.value : undefined;
    if (node?.kind === 'map') node.entries.delete(path[path.length - 1] as string);
  }
}

/** The per-key fields that merge whatever their form (list of `K=V` or mapping). */
const KEYED = new Set(['environment', 'labels', 'sysctls', 'annotations']);
const REPLACED = new Set(['command', 'entrypoint']);
const NETWORKS = new Set(['networks']);

/**
 * A list (`["K=V", "K"]`) or mapping form of a per-key field as a mapping node; a `K` without a
 * value becomes a null scalar. Undefined when the node is neither.
 */
export function keyedMapping(node: TreeNode): MapNode | undefined {
  if (node.kind === 'map') return node;
  if (node.kind !== 'seq') return undefined;
  const out: MapNode = { kind: 'map', where: node.where, entries: new Map() };
  for (const item of node.items) {
    const text = scalarString(item);
    if (text === undefined) return undefined;
    const at = text.indexOf('=');
    const key = at < 0 ? text : text.slice(0, at);
    const value = at < 0 ? null : text.slice(at + 1);
    out.entries.set(key, { key: item.where, value: { kind: 'scalar', where: item.where, value } });
  }
  return out;
}

/** A service's networks (list or mapping form) as a mapping of network name → options. */
function networksMapping(node: TreeNode): MapNode | undefined {
  if (node.kind === 'map') return node;
  if (node.kind !== 'seq') return undefined;
  const out: MapNode = { kind: 'map', where: node.where, entries: new Map() };
  for (const item of node.items) {
    const name = scalarString(item);
    if (name === undefined) return undefined;
    out.entries.set(name, {
      key: item.where,
      value: { kind: 'scalar', where: item.where, value: null },
    });
  }
  return out;
}

function isServiceField(path: TreePath, names: ReadonlySet<string>): boolean {
  return path.length === 3 && path[0] === 'services' && names.has(path[2] as string);
}

export interface MergeProblem {
  readonly message: string;
  readonly where: Where;
}

/**
 * Merges `over` onto `base` at `path` and returns the merged node (`base` may be modified;
 * `over` is copied). A type clash (a mapping over a list) is a problem, and `over` wins.
 */
export function mergeNodes(
  base: TreeNode,
  over: TreeNode,
  path: TreePath,
  problems: MergeProblem[],
): TreeNode {
  if (isServiceField(path, REPLACED)) return cloneNode(over);
  if (
    path.length === 4 &&
    path[0] === 'services' &&
    path[2] === 'healthcheck' &&
    path[3] === 'test'
  )
    return cloneNode(over);
  if (isServiceField(path, KEYED)) {
    const a = keyedMapping(base);
    const b = keyedMapping(over);
    if (a !== undefined && b !== undefined)
      return mergeMaps(cloneNode(a) as MapNode, b, path, problems);
  }
  if (isServiceField(path, NETWORKS)) {
    const a = networksMapping(base);
    const b = networksMapping(over);
    if (a !== undefined && b !== undefined)
      return mergeMaps(cloneNode(a) as MapNode, b, path, problems);
  }
  // A value under a per-key field is replaced, even by `KEY:` (passed through from the shell).
  if (path.length === 4 && path[0] === 'services' && KEYED.has(path[2] as string))
    return cloneNode(over);
  // An empty value (`key:`) leaves the earlier one, as compose-go's merge skips nil.
  if (over.kind === 'scalar' && over.value === null) return base;
  if (base.kind === 'map' && over.kind === 'map') return mergeMaps(base, over, path, problems);
  if (base.kind === 'seq' && over.kind === 'seq') {
    base.items = [...base.items, ...over.items.map(cloneNode)];
    return base;
  }
  if (base.kind !== over.kind && base.kind !== 'scalar' && over.kind !== 'scalar')
    problems.push({
      message: `cannot merge a ${over.kind === 'map' ? 'mapping' : 'list'} over a ${base.kind === 'map' ? 'mapping' : 'list'} at ${path.join('.')}`,
      where: over.where,
    });
  return cloneNode(over);
}

function mergeMaps(
  base: MapNode,
  over: MapNode,
  path: TreePath,
  problems: MergeProblem[],
): MapNode {
  for (const [key, entry] of over.entries) {
    const existing = base.entries.get(key);
    if (existing === undefined) {
      base.entries.set(key, { key: entry.key, value: cloneNode(entry.value) });
      continue;
    }
    const merged: Entry = {
      key: entry.key,
      value: mergeNodes(existing.value, entry.value, [...path, key], problems),
    };
    base.entries.set(key, merged);
  }
  return base;
}
