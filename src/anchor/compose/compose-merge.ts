/**
 * How Compose combines trees: `!reset` and `!override`, and the merge of a later file (or an
 * extending service) over an earlier one. Pure; follows compose-go's `override` package and the
 * Compose specification ("Merge and override").
 *
 * Each file's services are in their long forms first (`compose-normalise.ts`), so a list in one
 * file and a mapping in the next meet as two mappings. Merge rules by path (others: mappings
 * merge per key, sequences append, scalars are replaced):
 * - `services.*.command`, `entrypoint`, `healthcheck.test`, `ulimits.*`: replaced;
 * - `services.*.environment`, `labels`, `sysctls`, `annotations`, `build.args`, …: merged per
 *   key, the later value winning;
 * - `services.*.networks`, `depends_on`: merged per name, the options merged;
 * - `services.*.ports`, `volumes`, `env_file`, `dns`, `profiles`, `extra_hosts`, …: appended, a
 *   later item with the same key (port binding, mount target, path, value) replacing the
 *   earlier one in its place (compose-go's `EnforceUnicity`).
 */
import type { Entry, MapNode, SeqNode, TreeNode, Where } from './compose-tree.js';
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
/** Fields a later file replaces whole (`services.*.<field>`, `services.*.ulimits.*`). */
const REPLACED = new Set(['command', 'entrypoint']);
/** Mappings merged per key whatever their form, after {@link normaliseService}. */
const NAMED = new Set(['networks', 'depends_on']);

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

type ItemKey = (item: TreeNode) => string | undefined;

const field = (node: TreeNode, name: string): string | undefined =>
  node.kind === 'map' ? scalarString(node.entries.get(name)?.value) : undefined;
const valueKey: ItemKey = (item) => {
  const text = scalarString(item);
  return text === undefined ? undefined : text.split('=')[0];
};
const whole: ItemKey = (item) => scalarString(item);
/** compose-go's `portIndexer`: the address, published and target ports and the protocol. */
const portKey: ItemKey = (item) =>
  item.kind === 'scalar'
    ? scalarString(item)
    : `${field(item, 'host_ip') ?? '0.0.0.0'}:${field(item, 'published') ?? ''}:${field(item, 'target') ?? ''}/${field(item, 'protocol') ?? 'tcp'}`;

/**
 * Lists in which a later item replaces an earlier one with the same key, in the earlier one's
 * place (compose-go's `EnforceUnicity`); other lists append.
 */
const UNIQUE = new Map<string, ItemKey>([
  ['ports', portKey],
  ['volumes', (item) => field(item, 'target') ?? scalarString(item)],
  ['env_file', (item) => field(item, 'path') ?? scalarString(item)],
  ['dns', valueKey],
  ['dns_opt', valueKey],
  ['dns_search', valueKey],
  ['tmpfs', valueKey],
  ['profiles', valueKey],
  ['cap_add', valueKey],
  ['cap_drop', valueKey],
  ['expose', whole],
  ['links', valueKey],
  ['extra_hosts', whole],
]);

/**
 * Appends `over`'s items to `base`'s, a later item with a known key replacing the earlier (or,
 * with `merge`, merged over it).
 */
function appendUnique(
  base: SeqNode,
  over: SeqNode,
  key: ItemKey | undefined,
  merge?: (a: TreeNode, b: TreeNode) => TreeNode,
): SeqNode {
  const items = base.items;
  if (key === undefined) {
    for (const item of over.items) items.push(cloneNode(item));
    return base;
  }
  const at = new Map<string, number>();
  items.forEach((item, i) => {
    const k = key(item);
    if (k !== undefined) at.set(k, i);
  });
  for (const item of over.items) {
    const k = key(item);
    const i = k === undefined ? undefined : at.get(k);
    if (i !== undefined)
      items[i] = merge === undefined ? cloneNode(item) : merge(items[i] as TreeNode, item);
    else {
      if (k !== undefined) at.set(k, items.length);
      items.push(cloneNode(item));
    }
  }
  return base;
}

/**
 * The list at `path` with its repeated keys folded, a later item replacing an earlier one in its
 * place, as compose-go's `EnforceUnicity` leaves one file. Other lists are returned as they are.
 */
export function foldRepeats(node: SeqNode, path: TreePath): SeqNode {
  const key = uniqueKeyAt(path);
  if (key === undefined) return node;
  return appendUnique({ ...node, items: [] }, node, key);
}

/** How the value at `path` merges, when a rule of its own applies. */
function ruleAt(path: TreePath): 'replace' | 'keyed' | 'named' | 'entry' | undefined {
  // Top-level networks' and volumes' labels merge per key, whatever their form.
  if ((path[0] === 'networks' || path[0] === 'volumes') && path[2] === 'labels')
    return path.length === 3 ? 'keyed' : path.length === 4 ? 'entry' : undefined;
  if (path[0] !== 'services' || path.length < 3) return undefined;
  const name = path[2] as string;
  if (path.length === 3) {
    if (REPLACED.has(name)) return 'replace';
    if (KEYED.has(name)) return 'keyed';
    if (NAMED.has(name)) return 'named';
    return undefined;
  }
  if (path.length === 4) {
    if (name === 'healthcheck' && path[3] === 'test') return 'replace';
    if (name === 'ulimits') return 'replace';
    // A value under a per-key field is replaced, even by `KEY:` (passed through from the shell).
    if (KEYED.has(name)) return 'entry';
  }
  if (path.length === 5 && (name === 'build' || name === 'deploy') && path[3] !== undefined) {
    if (['args', 'labels', 'additional_contexts'].includes(path[3])) return 'entry';
  }
  return undefined;
}

/** The key rule of a list at `path` (a service field, or a service network's aliases). */
function uniqueKeyAt(path: TreePath): ItemKey | undefined {
  if (path[0] !== 'services') return undefined;
  if (path.length === 3) return UNIQUE.get(path[2] as string);
  if (path.length === 4 && path[2] === 'build')
    return path[3] === 'extra_hosts'
      ? whole
      : ['platform', 'platforms', 'tags'].includes(path[3] as string)
        ? valueKey
        : undefined;
  if (path.length === 5 && path[2] === 'networks') return whole;
  return undefined;
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
  const rule = ruleAt(path);
  if (rule === 'replace') return cloneNode(over);
  if (rule === 'keyed' || rule === 'named') {
    const convert = rule === 'keyed' ? keyedMapping : networksMapping;
    const a = convert(base);
    const b = convert(over);
    if (a !== undefined && b !== undefined)
      return mergeMaps(cloneNode(a) as MapNode, b, path, problems);
  }
  if (rule === 'entry') return cloneNode(over);
  // An empty value (`key:`) leaves the earlier one, as compose-go's merge skips nil.
  if (over.kind === 'scalar' && over.value === null) return base;
  if (base.kind === 'map' && over.kind === 'map') return mergeMaps(base, over, path, problems);
  if (base.kind === 'seq' && over.kind === 'seq') {
    // IPAM pools merge by subnet (compose-go's `mergeIPAMConfig`).
    if (path.length === 4 && path[0] === 'networks' && path[2] === 'ipam' && path[3] === 'config')
      return appendUnique(
        base,
        over,
        (item) => field(item, 'subnet'),
        (a, b) => mergeNodes(a, b, [...path, '*'], problems),
      );
    return appendUnique(base, over, uniqueKeyAt(path));
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
