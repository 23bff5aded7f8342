/**
 * `include:` (Compose 2.20+) as compose-go's `ApplyInclude` does it. Each item (`PATH`, or
 * `{path: PATH | [PATH…], project_directory, env_file}`) is loaded as a project of its own:
 *
 * - its project directory is `project_directory` (relative to the including project's), else
 *   the directory of its first file; later paths are override files of it;
 * - its variables are the including project's, then those of its `env_file:` files (relative to
 *   the including project; a missing one is an error), else of `.env` in its project directory
 *   when there is one; a variable already set wins, as compose-go's `Mapping.Merge` keeps it;
 * - relative `env_file:` paths of its services are resolved against its project directory.
 *
 * Its services, networks, volumes, secrets and configs are then imported into the including
 * file; one that the including file also defines is merged, the including file's definition
 * over the imported one. An include cycle, a bad shape and a remote reference (git, OCI, a URL)
 * are located errors; nothing is fetched.
 */
import { posix } from 'node:path';
import { applyResets, mergeNodes } from './compose-merge.js';
import type { MergeProblem } from './compose-merge.js';
import type { MapNode, TreeNode, Where } from './compose-tree.js';
import { scalarString } from './compose-tree.js';
import { readTrees } from './compose-file.js';
import type { LoadContext, PreparedTree } from './compose-file.js';
import { parseDotEnv } from './dotenv.js';
import { rebaseEnvFiles } from './extends.js';
import { isRemoteReference } from './compose-text.js';

/** How included files are merged (passed in, so that the two steps need not import each other). */
export type MergeFiles = (
  trees: readonly PreparedTree[],
  context: LoadContext,
  included: readonly string[],
) => MapNode;

interface IncludeItem {
  readonly paths: string[];
  readonly projectDirectory: string | undefined;
  readonly envFiles: string[] | undefined;
  readonly where: Where;
}

const IMPORTED = ['services', 'networks', 'volumes', 'secrets', 'configs'];

/** Imports every `include:` item of `prepared` into its tree and removes the `include` key. */
export function applyInclude(
  prepared: PreparedTree,
  context: LoadContext,
  included: readonly string[],
  merge: MergeFiles,
): void {
  const entry = prepared.tree.entries.get('include');
  if (entry === undefined) return;
  prepared.tree.entries.delete('include');
  const items = includeItems(entry.value, context);
  for (const item of items) {
    const imported = loadIncluded(item, context, included, merge);
    if (imported !== undefined) importResources(imported, prepared, context);
  }
}

function stringList(node: TreeNode | undefined): string[] | undefined {
  if (node === undefined) return undefined;
  if (node.kind === 'seq') {
    const out = node.items.map(scalarString);
    return out.every((s): s is string => s !== undefined && s !== '') ? out : undefined;
  }
  const one = scalarString(node);
  return one === undefined || one === '' ? undefined : [one];
}

function includeItems(node: TreeNode, context: LoadContext): IncludeItem[] {
  const shape = (where: Where): void =>
    context.report(
      'error',
      'ANCHOR_COMPOSE_SHAPE',
      '"include" takes a list of paths or of {path, project_directory, env_file}',
      where,
    );
  if (node.kind !== 'seq') {
    if (!(node.kind === 'scalar' && node.value === null)) shape(node.where);
    return [];
  }
  const out: IncludeItem[] = [];
  for (const item of node.items) {
    const map = item.kind === 'map' ? item : undefined;
    const paths = stringList(map === undefined ? item : map.entries.get('path')?.value);
    const envNode = map?.entries.get('env_file')?.value;
    const envFiles = envNode === undefined ? undefined : stringList(envNode);
    const projectNode = map?.entries.get('project_directory')?.value;
    const projectDirectory = projectNode === undefined ? undefined : scalarString(projectNode);
    if (
      paths === undefined ||
      (envNode !== undefined && envFiles === undefined) ||
      (projectNode !== undefined && projectDirectory === undefined)
    ) {
      shape(item.where);
      continue;
    }
    const remote = paths.find(isRemoteReference);
    if (remote !== undefined) {
      context.report(
        'error',
        'ANCHOR_COMPOSE_UNSUPPORTED',
        `remote include ${JSON.stringify(remote)} is not fetched: the check reads only files of the repository`,
        item.where,
      );
      continue;
    }
    out.push({ paths, projectDirectory, envFiles, where: item.where });
  }
  return out;
}

const resolveIn = (dir: string, path: string): string =>
  posix.isAbsolute(path) ? path : posix.normalize(posix.join(dir, path));

function loadIncluded(
  item: IncludeItem,
  context: LoadContext,
  included: readonly string[],
  merge: MergeFiles,
): MapNode | undefined {
  const paths = item.paths.map((p) => resolveIn(context.projectDir, p));
  const first = paths[0] as string;
  if (included.includes(first)) {
    context.report(
      'error',
      'ANCHOR_COMPOSE_SHAPE',
      `include cycle: ${[...included, first].join(' includes ')}`,
      item.where,
    );
    return undefined;
  }
  const projectDir =
    item.projectDirectory === undefined
      ? posix.dirname(first)
      : resolveIn(context.projectDir, item.projectDirectory);
  const variables = includeVariables(item, projectDir, context);
  const sub: LoadContext = {
    ...context,
    projectDir,
    lookup: (name) => context.lookup(name) ?? variables.get(name),
    others: new Map(),
    extendsDir: projectDir,
  };
  const trees = paths.flatMap((p) => readTrees(p, sub));
  if (trees.length === 0) return undefined;
  const merged = merge(trees, sub, included);
  const services = merged.entries.get('services')?.value;
  if (services?.kind === 'map')
    for (const svc of services.entries.values())
      if (svc.value.kind === 'map') {
        rebaseEnvFiles(svc.value, projectDir, context.projectDir);
        passThrough(svc.value, sub.lookup);
      }
  return merged;
}

/**
 * `KEY` without a value in an included service's `environment:` takes its value from the
 * included project's variables (compose-go resolves the included model's environment with them);
 * unset there, it is left for the including project's.
 */
function passThrough(service: MapNode, lookup: LoadContext['lookup']): void {
  const env = service.entries.get('environment')?.value;
  if (env?.kind !== 'map') return;
  for (const [key, entry] of env.entries) {
    if (entry.value.kind !== 'scalar' || entry.value.value !== null) continue;
    const value = lookup(key);
    if (value !== undefined) entry.value = { ...entry.value, value };
  }
}

/** The included project's own variables: its env files, else its `.env`. */
function includeVariables(
  item: IncludeItem,
  projectDir: string,
  context: LoadContext,
): Map<string, string> {
  const files =
    item.envFiles?.filter((f) => f !== '/dev/null').map((f) => resolveIn(context.projectDir, f)) ??
    [posix.join(projectDir, '.env')].filter((f) => context.fs.exists(f));
  const out = new Map<string, string>();
  for (const file of files) {
    if (!context.fs.exists(file)) {
      context.report(
        'error',
        'ANCHOR_COMPOSE_ENV_FILE',
        `env_file ${JSON.stringify(file)} of this include does not exist`,
        item.where,
      );
      continue;
    }
    const text = context.fs.readText(file);
    if (text === undefined) continue;
    const parsed = parseDotEnv(text, (name) => context.lookup(name) ?? out.get(name));
    for (const p of parsed.problems)
      context.report(p.severity, 'ANCHOR_COMPOSE_ENV_FILE', p.message, {
        file,
        line: p.line,
        column: 1,
      });
    for (const [k, v] of parsed.values) if (!out.has(k)) out.set(k, v);
  }
  return out;
}

/** compose-go's `importResources`: the including file's definition merged over the imported. */
function importResources(imported: MapNode, prepared: PreparedTree, context: LoadContext): void {
  const target = prepared.tree;
  const problems: MergeProblem[] = [];
  for (const key of IMPORTED) {
    const from = imported.entries.get(key)?.value;
    if (from?.kind !== 'map') continue;
    let to = target.entries.get(key)?.value;
    if (to?.kind !== 'map') {
      to = { kind: 'map', where: from.where, entries: new Map() };
      target.entries.set(key, { key: from.where, value: to });
    }
    for (const [name, entry] of from.entries) {
      const own = to.entries.get(name);
      if (own === undefined) {
        to.entries.set(name, entry);
        continue;
      }
      // What the including file's `!reset`/`!override` name is dropped from the imported one.
      applyResets(
        entry.value,
        prepared.resets
          .filter((p) => p[0] === key && p[1] === name && p.length > 2)
          .map((p) => p.slice(2)),
      );
      to.entries.set(name, {
        key: own.key,
        value: mergeNodes(entry.value, own.value, [key, name], problems),
      });
    }
  }
  for (const p of problems) context.report('error', 'ANCHOR_COMPOSE_SHAPE', p.message, p.where);
}
