/**
 * `extends:` as the Compose specification defines it: a service starts from another service of
 * the same file (`extends: base` or `{service: base}`) or of another file
 * (`{file: common.yaml, service: base}`), which may extend further; the extending service is
 * merged over it with the usual merge rules, after the `!reset`/`!override` paths of its own
 * file are dropped from the base. A cycle, an unknown service or a bad shape is an error, and
 * the service is then kept without its base. Relative `env_file:` paths of a service from
 * another file are rebased onto the project directory, as Compose resolves them against the
 * file that declares them.
 */
import { posix } from 'node:path';
import { applyResets, mergeNodes } from './compose-merge.js';
import type { MergeProblem } from './compose-merge.js';
import type { MapNode, TreeNode } from './compose-tree.js';
import { cloneNode, scalarString } from './compose-tree.js';
import type { LoadContext, PreparedTree } from './compose-file.js';
import { interpolateTree, readTrees } from './compose-file.js';
import { normaliseServices } from './compose-normalise.js';
import { isRemoteReference } from './compose-text.js';

function services(tree: MapNode): MapNode | undefined {
  const node = tree.entries.get('services')?.value;
  return node?.kind === 'map' ? node : undefined;
}

/** Resolves every `extends:` of the prepared file in place. */
export function followExtends(prepared: PreparedTree, context: LoadContext): void {
  const list = services(prepared.tree);
  if (list === undefined) return;
  const done = new Set<string>();
  for (const name of [...list.entries.keys()]) resolve(prepared, name, context, [], done);
}

/** The other file's trees, read and interpolated once (their own `extends` resolved lazily). */
function otherFile(path: string, context: LoadContext): PreparedTree[] | undefined {
  if (context.others.has(path)) return context.others.get(path);
  context.others.set(path, undefined);
  const trees = readTrees(path, context);
  for (const t of trees) {
    interpolateTree(t.tree, context);
    normaliseServices(t.tree);
  }
  const result = trees.length > 0 ? trees : undefined;
  context.others.set(path, result);
  return result;
}

function findService(trees: readonly PreparedTree[], name: string): PreparedTree | undefined {
  for (let i = trees.length - 1; i >= 0; i--) {
    const t = trees[i] as PreparedTree;
    if (services(t.tree)?.entries.has(name)) return t;
  }
  return undefined;
}

/** Resolves `name` in `prepared` (memoised per file through `done`); returns its node. */
function resolve(
  prepared: PreparedTree,
  name: string,
  context: LoadContext,
  stack: readonly string[],
  done: Set<string>,
): MapNode | undefined {
  const list = services(prepared.tree);
  const entry = list?.entries.get(name);
  if (entry === undefined || entry.value.kind !== 'map') return undefined;
  const node = entry.value;
  const key = `${prepared.file}\u0000${name}`;
  if (done.has(key)) return node;
  const extendsEntry = node.entries.get('extends');
  if (extendsEntry === undefined) {
    done.add(key);
    return node;
  }
  const fail = (
    message: string,
    at = extendsEntry.key,
    code: 'ANCHOR_COMPOSE_EXTENDS' | 'ANCHOR_COMPOSE_UNSUPPORTED' = 'ANCHOR_COMPOSE_EXTENDS',
  ): MapNode => {
    context.report('error', code, message, at, name);
    node.entries.delete('extends');
    done.add(key);
    return node;
  };
  if (stack.includes(key))
    return fail(
      `circular "extends": ${[...stack, key].map((k) => k.split('\u0000').reverse().join(' in ')).join(' → ')}`,
    );
  const spec = extendsEntry.value;
  let baseName: string | undefined;
  let baseFile: string | undefined;
  if (spec.kind === 'map') {
    baseName = scalarString(spec.entries.get('service')?.value);
    baseFile = scalarString(spec.entries.get('file')?.value);
  } else baseName = scalarString(spec);
  if (baseName === undefined || baseName === '')
    return fail(
      '"extends" needs a service name: extends: NAME or extends: {service: NAME, file: FILE}',
    );

  let baseTree: PreparedTree | undefined = prepared;
  let rebase: string | undefined;
  if (baseFile !== undefined) {
    if (isRemoteReference(baseFile))
      return fail(
        `remote extends ${JSON.stringify(baseFile)} is not fetched: the check reads only files of the repository`,
        spec.where,
        'ANCHOR_COMPOSE_UNSUPPORTED',
      );
    const dir =
      context.extendsDir !== undefined && !context.others.has(prepared.file)
        ? context.extendsDir
        : posix.dirname(prepared.file);
    const path = posix.isAbsolute(baseFile) ? baseFile : posix.normalize(posix.join(dir, baseFile));
    const trees = otherFile(path, context);
    if (trees === undefined) {
      // The reader has said why (missing, outside the repository, a link leaving it).
      node.entries.delete('extends');
      done.add(key);
      return node;
    }
    baseTree = findService(trees, baseName);
    if (path !== prepared.file) rebase = posix.dirname(path);
    if (baseTree === undefined)
      return fail(`cannot extend service ${JSON.stringify(baseName)}: it is not in ${path}`);
  }
  const base = resolve(baseTree, baseName, context, [...stack, key], done);
  if (base === undefined)
    return fail(
      `cannot extend service ${JSON.stringify(baseName)}: no such service in ${baseTree.file}`,
    );
  const merged = mergeOverBase(prepared, name, base, node, rebase, context);
  (list as MapNode).entries.set(name, { key: entry.key, value: merged });
  done.add(key);
  return merged;
}

/**
 * The service `name` of `prepared` merged over a copy of its resolved base, after the paths its
 * file's `!reset`/`!override` name are dropped from the base; `rebase` is the base file's
 * directory when it is another file.
 */
function mergeOverBase(
  prepared: PreparedTree,
  name: string,
  base: MapNode,
  node: MapNode,
  rebase: string | undefined,
  context: LoadContext,
): MapNode {
  const start = cloneNode(base) as MapNode;
  start.entries.delete('extends');
  if (rebase !== undefined) rebaseEnvFiles(start, rebase, context.projectDir);
  applyResets(
    start,
    prepared.resets
      .filter((p) => p[0] === 'services' && p[1] === name && p.length > 2)
      .map((p) => p.slice(2)),
  );
  const own = cloneNode(node) as MapNode;
  own.entries.delete('extends');
  const problems: MergeProblem[] = [];
  const merged = mergeNodes(start, own, ['services', name], problems) as MapNode;
  for (const p of problems)
    context.report('error', 'ANCHOR_COMPOSE_SHAPE', p.message, p.where, name);
  return merged;
}

/** Rebases relative `env_file:` paths written against `fromDir` onto the project directory. */
export function rebaseEnvFiles(service: MapNode, fromDir: string, projectDir: string): void {
  const node = service.entries.get('env_file')?.value;
  if (node === undefined) return;
  const fix = (item: TreeNode): void => {
    const target = item.kind === 'map' ? item.entries.get('path')?.value : item;
    if (target?.kind !== 'scalar' || typeof target.value !== 'string') return;
    if (posix.isAbsolute(target.value)) return;
    const full = posix.normalize(posix.join(fromDir, target.value));
    target.value = posix.relative(posix.join('/', projectDir), posix.join('/', full)) || '.';
  };
  if (node.kind === 'seq') node.items.forEach(fix);
  else fix(node);
}
