/**
 * The long form of every service field that has a short one, taken on each file before it is
 * merged, so that a list in one file and a mapping in the next merge as Compose merges them
 * (compose-go converts each side in its `override` merge rules and `transform.Canonical`).
 * Pure; rewrites the tree in place and keeps every node's position.
 *
 * | field | short form | long form |
 * |---|---|---|
 * | `environment`, `labels`, `sysctls`, `annotations`, `build.args`, `build.labels`, `build.additional_contexts`, `deploy.labels` | `["K=V", "K"]` | `{K: V, K: null}` |
 * | `networks` | `[a, b]` | `{a: null, b: null}` |
 * | `depends_on` | `[db]` | `{db: {condition: service_started, required: true}}` (the mapping form gets the same defaults after the merge) |
 * | `env_file` | `a.env` or `[a.env]` | `[{path: a.env, required: true}]` |
 * | `build` | `./dir` | `{context: ./dir}` |
 * | `extra_hosts` | `{host: ip}` or `{host: [ip, ip]}` | `["host=ip", …]`, sorted as compose-go sorts |
 * | `ports` | `"[ip:][published:]target[/proto]"`, a number, ranges | `[{target, published?, host_ip?, protocol, mode}]` |
 * | `volumes` | `"source:target[:mode]"`, `"target"` | `[{type, source?, target, read_only?, bind?}]` |
 * | `dns`, `dns_opt`, `dns_search`, `tmpfs`, `profiles`, `label_file` | `x` | `[x]` |
 *
 * A short form this module cannot read (a port string that is not a port) is left as written:
 * the anchor check reads none of these fields but environment, labels, networks and env_file,
 * and the merge then appends it as Compose would before its own validation refuses it.
 */
import { compareText } from '../../base/index.js';
import { foldRepeats, keyedMapping } from './compose-merge.js';
import type { MapNode, ScalarNode, SeqNode, TreeNode, Where } from './compose-tree.js';
import { scalarString } from './compose-tree.js';

/** Service fields (and nested paths) merged per key whatever their form. */
const KEYED_FIELDS: readonly (readonly string[])[] = [
  ['environment'],
  ['labels'],
  ['sysctls'],
  ['annotations'],
  ['build', 'args'],
  ['build', 'labels'],
  ['build', 'additional_contexts'],
  ['deploy', 'labels'],
];
const STRING_OR_LIST = ['dns', 'dns_opt', 'dns_search', 'tmpfs', 'profiles', 'label_file'];

const scalar = (where: Where, value: ScalarNode['value']): ScalarNode => ({
  kind: 'scalar',
  where,
  value,
});
const seq = (where: Where, items: TreeNode[]): SeqNode => ({ kind: 'seq', where, items });
function mapOf(where: Where, pairs: readonly (readonly [string, TreeNode])[]): MapNode {
  const entries = new Map(pairs.map(([k, v]) => [k, { key: where, value: v }] as const));
  return { kind: 'map', where, entries };
}

/**
 * Rewrites every service of a file's tree into the long forms above, folds repeated items of
 * the lists Compose keeps unique, and gives top-level networks' and volumes' labels their
 * mapping form.
 */
export function normaliseServices(tree: MapNode): void {
  for (const top of ['networks', 'volumes']) {
    const list = tree.entries.get(top)?.value;
    if (list?.kind !== 'map') continue;
    for (const entry of list.entries.values())
      if (entry.value.kind === 'map') rewrite(entry.value, ['labels'], keyedStrings);
  }
  const services = tree.entries.get('services')?.value;
  if (services?.kind !== 'map') return;
  for (const [name, entry] of services.entries) {
    if (entry.value.kind !== 'map') continue;
    normaliseService(entry.value);
    for (const [field, value] of entry.value.entries)
      if (value.value.kind === 'seq')
        value.value = foldRepeats(value.value, ['services', name, field]);
  }
}

/**
 * The mapping form of a per-key field, values as the strings Compose passes on (`FOO: 3` is
 * `FOO=3` in compose-go's merged list).
 */
function keyedStrings(node: TreeNode): TreeNode | undefined {
  const map = keyedMapping(node);
  if (map === undefined) return undefined;
  for (const entry of map.entries.values()) {
    const v = entry.value;
    if (v.kind === 'scalar' && v.value !== null && typeof v.value !== 'string')
      entry.value = { ...v, value: String(v.value) };
  }
  return map;
}

/** One service, field by field (a field in an unexpected shape is left for the model to report). */
export function normaliseService(service: MapNode): void {
  if (service.entries.get('build')?.value.kind === 'scalar') {
    const entry = service.entries.get('build');
    if (entry !== undefined && scalarString(entry.value) !== undefined)
      entry.value = mapOf(entry.value.where, [['context', entry.value]]);
  }
  for (const path of KEYED_FIELDS) rewrite(service, path, keyedStrings);
  rewrite(service, ['networks'], namesMapping);
  rewrite(service, ['depends_on'], dependsOnMapping);
  rewrite(service, ['env_file'], envFileList);
  rewrite(service, ['extra_hosts'], extraHostsList);
  rewrite(service, ['ports'], portsList);
  rewrite(service, ['volumes'], volumesList);
  for (const field of STRING_OR_LIST) rewrite(service, [field], stringOrList);
}

/** Replaces the node at `path` under `service` with `convert(node)` when that is defined. */
function rewrite(
  service: MapNode,
  path: readonly string[],
  convert: (node: TreeNode) => TreeNode | undefined,
): void {
  let parent: MapNode = service;
  for (let i = 0; i < path.length - 1; i++) {
    const next = parent.entries.get(path[i] as string)?.value;
    if (next?.kind !== 'map') return;
    parent = next;
  }
  const entry = parent.entries.get(path[path.length - 1] as string);
  if (entry === undefined || (entry.value.kind === 'scalar' && entry.value.value === null)) return;
  const converted = convert(entry.value);
  if (converted === undefined) return;
  // `!override` on the short form still overrides once it is in its long form.
  if (entry.value.tag !== undefined) converted.tag = entry.value.tag;
  entry.value = converted;
}

function stringOrList(node: TreeNode): TreeNode | undefined {
  return node.kind === 'scalar' ? seq(node.where, [node]) : undefined;
}

function namesMapping(node: TreeNode): TreeNode | undefined {
  if (node.kind !== 'seq') return undefined;
  const pairs: [string, TreeNode][] = [];
  for (const item of node.items) {
    const name = scalarString(item);
    if (name === undefined) return undefined;
    pairs.push([name, scalar(item.where, null)]);
  }
  return mapOf(node.where, pairs);
}

const dependencyDefaults = (where: Where): [string, TreeNode][] => [
  ['condition', scalar(where, 'service_started')],
  ['required', scalar(where, true)],
];

function dependsOnMapping(node: TreeNode): TreeNode | undefined {
  if (node.kind !== 'seq') return undefined;
  const names = namesMapping(node);
  if (names?.kind !== 'map') return undefined;
  for (const entry of names.entries.values())
    entry.value = mapOf(entry.value.where, dependencyDefaults(entry.value.where));
  return names;
}

/**
 * Fills `condition` and `required` into every `depends_on` entry of the merged tree. Only after
 * the merge: a later `{db: {required: false}}` keeps an earlier `condition` (compose-go merges
 * the mapping as written and fills the defaults in its canonical pass).
 */
export function fillDependencyDefaults(tree: MapNode): void {
  const services = tree.entries.get('services')?.value;
  if (services?.kind !== 'map') return;
  for (const service of services.entries.values()) {
    const deps = service.value.kind === 'map' ? service.value.entries.get('depends_on') : undefined;
    if (deps?.value.kind !== 'map') continue;
    for (const entry of deps.value.entries.values()) {
      const dep = entry.value;
      if (dep.kind === 'scalar' && dep.value === null) {
        entry.value = mapOf(dep.where, dependencyDefaults(dep.where));
        continue;
      }
      if (dep.kind !== 'map') continue;
      for (const [key, value] of dependencyDefaults(dep.where))
        if (!dep.entries.has(key)) dep.entries.set(key, { key: dep.where, value });
    }
  }
}

function envFileList(node: TreeNode): TreeNode | undefined {
  const items = node.kind === 'seq' ? node.items : node.kind === 'scalar' ? [node] : undefined;
  if (items === undefined) return undefined;
  const out = items.map((item): TreeNode => {
    if (item.kind === 'scalar' && scalarString(item) !== undefined)
      return mapOf(item.where, [
        ['path', item],
        ['required', scalar(item.where, true)],
      ]);
    if (item.kind === 'map' && !item.entries.has('required'))
      item.entries.set('required', { key: item.where, value: scalar(item.where, true) });
    return item;
  });
  return seq(node.where, out);
}

function extraHostsList(node: TreeNode): TreeNode | undefined {
  if (node.kind === 'scalar') return stringOrList(node);
  if (node.kind !== 'map') return undefined;
  const items: ScalarNode[] = [];
  for (const [host, entry] of node.entries) {
    const values = entry.value.kind === 'seq' ? entry.value.items : [entry.value];
    for (const value of values) {
      const text = scalarString(value);
      items.push(scalar(value.where, text === undefined ? host : `${host}=${text}`));
    }
  }
  items.sort((a, b) => compareText(String(a.value), String(b.value)));
  return seq(node.where, items);
}

function portsList(node: TreeNode): TreeNode | undefined {
  if (node.kind !== 'seq') return undefined;
  const out: TreeNode[] = [];
  for (const item of node.items) {
    const text = item.kind === 'scalar' ? scalarString(item) : undefined;
    const parsed = text === undefined ? undefined : parsePort(text);
    if (parsed === undefined) {
      if (item.kind === 'map') portDefaults(item);
      out.push(item);
      continue;
    }
    for (const port of parsed) out.push(portNode(port, item.where));
  }
  return seq(node.where, out);
}

function portDefaults(item: MapNode): void {
  // compose-go reads `published` as a string (it may be a range).
  const published = item.entries.get('published');
  if (published?.value.kind === 'scalar' && typeof published.value.value === 'number')
    published.value = { ...published.value, value: String(published.value.value) };
  if (!item.entries.has('protocol'))
    item.entries.set('protocol', { key: item.where, value: scalar(item.where, 'tcp') });
  if (!item.entries.has('mode'))
    item.entries.set('mode', { key: item.where, value: scalar(item.where, 'ingress') });
}

/** One published port of the short syntax. */
export interface ShortPort {
  readonly target: number;
  readonly published?: string;
  readonly hostIp?: string;
  readonly protocol: string;
}

function portNode(port: ShortPort, where: Where): MapNode {
  const pairs: [string, TreeNode][] = [['mode', scalar(where, 'ingress')]];
  if (port.hostIp !== undefined) pairs.push(['host_ip', scalar(where, port.hostIp)]);
  pairs.push(['target', scalar(where, port.target)]);
  if (port.published !== undefined) pairs.push(['published', scalar(where, port.published)]);
  pairs.push(['protocol', scalar(where, port.protocol)]);
  return mapOf(where, pairs);
}

const RANGE = /^(\d+)(?:-(\d+))?$/;

function range(text: string): [number, number] | undefined {
  const m = RANGE.exec(text);
  if (m === null) return undefined;
  const lo = Number(m[1]);
  const hi = m[2] === undefined ? lo : Number(m[2]);
  return hi >= lo && hi <= 65535 ? [lo, hi] : undefined;
}

/**
 * `[host_ip:][published[-end]:]target[-end][/protocol]`, as compose-go's `ParsePortConfig`
 * reads it: a target range pairs with a published range of the same length; a published range
 * over one target stays a range (the engine picks one). Undefined when it is not a port.
 */
export function parsePort(text: string): ShortPort[] | undefined {
  const slash = text.lastIndexOf('/');
  const protocol = slash < 0 ? 'tcp' : text.slice(slash + 1).toLowerCase();
  let rest = slash < 0 ? text : text.slice(0, slash);
  let hostIp: string | undefined;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']:');
    if (close < 0) return undefined;
    hostIp = rest.slice(1, close);
    rest = rest.slice(close + 2);
  }
  const parts = rest.split(':');
  if (hostIp === undefined && parts.length > 2)
    hostIp = parts.splice(0, parts.length - 2).join(':');
  if (parts.length > 2 || protocol === '') return undefined;
  const target = range(parts[parts.length - 1] as string);
  const publishedText = parts.length === 2 ? (parts[0] as string) : '';
  const published = publishedText === '' ? undefined : range(publishedText);
  if (target === undefined || (publishedText !== '' && published === undefined)) return undefined;
  const base = { protocol, ...(hostIp !== undefined && hostIp !== '' ? { hostIp } : {}) };
  const count = target[1] - target[0] + 1;
  if (published === undefined)
    return Array.from({ length: count }, (_, i) => ({ ...base, target: target[0] + i }));
  const pubCount = published[1] - published[0] + 1;
  if (count === 1 && pubCount > 1)
    return [{ ...base, target: target[0], published: publishedText }];
  if (pubCount !== count) return undefined;
  return Array.from({ length: count }, (_, i) => ({
    ...base,
    target: target[0] + i,
    published: String(published[0] + i),
  }));
}

function volumesList(node: TreeNode): TreeNode | undefined {
  if (node.kind !== 'seq') return undefined;
  return seq(
    node.where,
    node.items.map((item) => {
      const text = item.kind === 'scalar' ? scalarString(item) : undefined;
      return text === undefined ? item : (volumeNode(text, item.where) ?? item);
    }),
  );
}

/** `source:target[:mode]` or `target`, as compose-go's `ParseVolume` reads the common cases. */
function volumeNode(text: string, where: Where): MapNode | undefined {
  const parts = text.split(':');
  // A Windows drive letter (`C:\x:/y`) is not split; such a path is left as written.
  if (parts.length > 3 || parts.some((p) => p === '')) return undefined;
  if (parts.length === 1)
    return mapOf(where, [
      ['type', scalar(where, 'volume')],
      ['target', scalar(where, cleanPath(text))],
    ]);
  const [source, target, mode] = parts as [string, string, string | undefined];
  const bind = /^[./~]/.test(source);
  const options = mode === undefined ? [] : mode.split(',');
  const pairs: [string, TreeNode][] = [
    ['type', scalar(where, bind ? 'bind' : 'volume')],
    ['source', scalar(where, source)],
    ['target', scalar(where, cleanPath(target))],
  ];
  if (options.includes('ro')) pairs.push(['read_only', scalar(where, true)]);
  if (bind) pairs.push(['bind', mapOf(where, [['create_host_path', scalar(where, true)]])]);
  return mapOf(where, pairs);
}

/** Go's `path.Clean` for the absolute targets Compose accepts. */
function cleanPath(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return (path.startsWith('/') ? '/' : '') + out.join('/') || '.';
}
