/**
 * One Compose file read and prepared for merging: parsed by the shared YAML reader, turned into
 * a located tree (aliases, merge keys), `!reset` values taken out, and every string
 * interpolated with the typed fields cast. Pure over a {@link ComposeFileSystem}.
 */
import { parseYamlDocuments } from '../../base/index.js';
import type { Diagnostic } from '../../base/index.js';
import { takeResets } from './compose-merge.js';
import type { TreePath } from './compose-merge.js';
import type { Report } from './compose-model.js';
import { buildTree } from './compose-tree.js';
import type { MapNode, TreeNode } from './compose-tree.js';
import { interpolate } from './interpolate.js';
import type { Lookup } from './interpolate.js';

/** What the loader reads files through: the shared `RepoReader` fits it. */
export interface ComposeFileSystem {
  /** The text of a repository-relative file, or undefined (the reason is in `diagnostics`). */
  readText(path: string): string | undefined;
  /** Whether something is at the path. */
  exists(path: string): boolean;
  /** Problems met while reading (a link out of the repository, a missing file, …). */
  readonly diagnostics: Diagnostic[];
}

/** A parsed and prepared file (or one document of it). */
export interface PreparedTree {
  readonly file: string;
  readonly tree: MapNode;
  readonly resets: TreePath[];
}

/** The booleans compose-go casts after interpolation (`interpolateTypeCastMapping`). */
const NETWORK_BOOLEANS = new Set([
  'external',
  'internal',
  'attachable',
  'enable_ipv4',
  'enable_ipv6',
]);

export interface LoadContext {
  readonly fs: ComposeFileSystem;
  readonly lookup: Lookup;
  readonly report: Report;
  readonly projectDir: string;
  /** Files read for `extends: {file}`, by path. */
  readonly others: Map<string, PreparedTree[] | undefined>;
  /**
   * What `extends: {file}` in an included project's own files is relative to: its project
   * directory (compose-go's resource loader for the include). Default: the declaring file's
   * directory.
   */
  readonly extendsDir?: string;
}

/** Parses one file into prepared trees (one per document), or [] when it cannot be read. */
export function readTrees(path: string, context: Omit<LoadContext, 'others'>): PreparedTree[] {
  const text = context.fs.readText(path);
  if (text === undefined) return [];
  const parsed = parseYamlDocuments(text, {
    file: path,
    code: 'ANCHOR_COMPOSE_YAML',
    // Merge keys are resolved on the tree below, where a bad source is a located error.
    merge: false,
    maxAliasCount: 10_000,
  });
  const out: PreparedTree[] = [];
  for (const d of parsed.diagnostics)
    context.report('error', d.code, d.message, {
      file: path,
      line: d.line ?? 1,
      column: d.column ?? 1,
    });
  const lines = lineStarts(text);
  for (const doc of parsed.documents) {
    const built = buildTree(doc.ast, path, (offset) => positionOf(lines, offset));
    for (const p of built.problems)
      context.report('error', 'ANCHOR_COMPOSE_YAML', p.message, p.where);
    if (built.tree === undefined) continue;
    if (built.tree.kind !== 'map') {
      context.report(
        'error',
        'ANCHOR_COMPOSE_SHAPE',
        'a Compose file must be a mapping',
        built.tree.where,
      );
      continue;
    }
    warnLegacyFormat(built.tree, context.report);
    const resets = takeResets(built.tree);
    out.push({ file: path, tree: built.tree, resets });
  }
  return out;
}

/** The top-level keys of the Compose Specification; `x-` keys are extensions. */
const TOP_LEVEL = new Set([
  'version',
  'name',
  'include',
  'services',
  'networks',
  'volumes',
  'secrets',
  'configs',
  'models',
]);

/**
 * A file in the legacy format (docker-compose 1.x's version 1: services written at the top
 * level, no `services:` key) holds services Compose v2 refuses and labelwise never reads: one
 * warning at the first such key, so the file is not passed over in silence.
 */
function warnLegacyFormat(tree: MapNode, report: LoadContext['report']): void {
  if (tree.entries.has('services')) return;
  for (const [key, entry] of tree.entries) {
    if (TOP_LEVEL.has(key) || key.startsWith('x-') || entry.value.kind !== 'map') continue;
    report(
      'warning',
      'ANCHOR_COMPOSE_LEGACY_FORMAT',
      `${JSON.stringify(key)} is a service in the legacy Compose format (version 1, no \`services:\` key), which Compose v2 refuses; no service of this file is read`,
      entry.key,
    );
    return;
  }
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

function positionOf(starts: readonly number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - (starts[lo] as number) + 1 };
}

/** Interpolates every string value of the tree in place, and casts the typed fields. */
export function interpolateTree(
  tree: TreeNode,
  context: Pick<LoadContext, 'lookup' | 'report'>,
): void {
  const warned = new Set<string>();
  const walk = (node: TreeNode, path: string[]): void => {
    if (node.kind === 'map') {
      for (const [key, entry] of node.entries) walk(entry.value, [...path, key]);
      return;
    }
    if (node.kind === 'seq') {
      for (const item of node.items) walk(item, path);
      return;
    }
    if (typeof node.value !== 'string') return;
    const result = interpolate(node.value, context.lookup);
    for (const p of result.problems) {
      // An unset variable warns once per file; an error once per place it is written (a
      // fragment used by forty services is one mistake, reported once).
      const key =
        p.kind === 'unset' ? p.message : `${node.where.line}:${node.where.column}:${p.message}`;
      if (warned.has(key)) continue;
      warned.add(key);
      context.report(p.severity, 'ANCHOR_COMPOSE_VARIABLE', p.message, node.where, serviceOf(path));
    }
    node.value = result.text;
    if (path.length === 3 && path[0] === 'networks' && NETWORK_BOOLEANS.has(path[2] as string)) {
      const cast = toBoolean(node.value);
      if (cast === undefined)
        context.report(
          'error',
          'ANCHOR_COMPOSE_SHAPE',
          `networks.${path[1]}.${path[2]} must be a boolean, not ${JSON.stringify(node.value)}`,
          node.where,
        );
      else node.value = cast;
    }
  };
  walk(tree, []);
}

function serviceOf(path: readonly string[]): string | undefined {
  return path[0] === 'services' ? path[1] : undefined;
}

/** compose-go's `toBoolean` (YAML 1.1 words accepted). */
function toBoolean(text: string): boolean | undefined {
  const lower = text.toLowerCase();
  if (['true', 'y', 'yes', 'on'].includes(lower)) return true;
  if (['false', 'n', 'no', 'off'].includes(lower)) return false;
  return undefined;
}
