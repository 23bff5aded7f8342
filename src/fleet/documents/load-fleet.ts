/**
 * Discovery (spec: Repository and discovery): from the files of a directory to a {@link Fleet}.
 * Pure: the caller reads the files (from disk or a git revision) and passes them in.
 *
 * 1. The one `type: Fleet` document marks the root; only YAML under it counts.
 * 2. `Fleet.exclude` globs skip paths (a matched directory skips everything below); problems in
 *    excluded files are never reported.
 * 3. Every resource document belongs to the nearest Layer in its own directory or a parent.
 * 4. Order is deterministic: layers by precedence then file path; resources by type then name.
 */
import type { Code } from '../../base/codes.js';
import { createHash } from 'node:crypto';
import { compareDiagnostics, compareText } from '../../base/index.js';

import { RESOURCE_TYPES } from '../model.js';
import type {
  Fleet,
  FleetDoc,
  FleetProblem,
  HostDoc,
  LayerDoc,
  ResourceDoc,
  ResourceType,
} from '../model.js';
import { excludeMatcher } from './exclude-globs.js';
import { fleetExclude, parseDocument } from './parse-document.js';
import type { ParsedDoc } from './parse-document.js';
import { readYaml } from './yaml-values.js';
import type { YamlDocument } from './yaml-values.js';

/** One file of the directory being read; `path` is relative to it, with `/` separators. */
export interface FleetFile {
  readonly path: string;
  readonly bytes: Uint8Array | string;
}

/** Options for {@link loadFleet}. */
export interface LoadOptions {
  /** How to name the directory in the "no Fleet document" message. Default: `.`. */
  readonly label?: string;
  /**
   * Every file of the directory (any kind), relative with `/`. When given, File `source` and
   * `template` paths are checked to exist. Default: unknown, no check.
   */
  readonly paths?: Iterable<string>;
  /**
   * YAML files of the directory that are symbolic links (relative with `/`). They are never
   * read; each one under the root and not excluded gets a `FLEET_SYMLINK_SKIPPED` warning.
   * Default: none.
   */
  readonly links?: Iterable<string>;
  /**
   * YAML files of the directory too large to read (relative with `/`, size in bytes). Each one
   * under the root and not excluded is a `FLEET_FILE_TOO_LARGE` error. Default: none.
   */
  readonly oversized?: Iterable<{ readonly path: string; readonly size: number }>;
  /**
   * Other problems the reader met with YAML files of the directory (relative with `/`): kept
   * when the file is under the root and not excluded. Default: none.
   */
  readonly diagnostics?: Iterable<FleetProblem>;
}

/** YAML files larger than this are not read (the io readers skip them and report them). */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

/**
 * Directory names never descended into (below the directory read): Datum's list, so a fleet at
 * a repository root with CI workflows, a docs site or a virtualenv validates as Datum sees it.
 */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  '.git',
  '.github',
  'node_modules',
  'site',
  '.venv',
  '.cache',
  'bin',
]);

/** Whether a path (relative, `/`-separated) is a YAML file outside skipped directories. */
export function isCandidate(path: string): boolean {
  if (!/\.ya?ml$/i.test(path)) return false;
  const parts = path.split('/');
  return !parts.slice(0, -1).some((part) => SKIPPED_DIRS.has(part));
}

function dirOf(path: string): string {
  const at = path.lastIndexOf('/');
  return at < 0 ? '' : path.slice(0, at);
}

function isFleetDoc(doc: YamlDocument): boolean {
  if (doc.value.kind !== 'map') return false;
  const type = doc.value.entries.get('type');
  return type !== undefined && type.value.kind === 'scalar' && type.value.text === 'Fleet';
}

/**
 * The exclude predicate of the fleet whose Fleet document lies directly in the directory read,
 * from that directory's own YAML `files` (relative, no `/`): readers prune the walk with it, so
 * an excluded tree is never listed nor read. Undefined when no single Fleet document is there
 * (the root lies deeper, or two documents conflict: the loader reports that).
 */
export function topLevelExclude(
  files: readonly FleetFile[],
): ((path: string) => boolean) | undefined {
  const found: YamlDocument[] = [];
  for (const file of files) {
    if (file.path.includes('/') || !isCandidate(file.path)) continue;
    for (const doc of readYaml(file.bytes, file.path).documents)
      if (isFleetDoc(doc)) found.push(doc);
  }
  if (found.length !== 1) return undefined;
  const patterns = fleetExclude(found[0] as YamlDocument);
  return patterns.length === 0 ? undefined : excludeMatcher(patterns);
}

/** A `type: Fleet` document found while looking for the root. */
interface FleetCandidate {
  readonly path: string;
  readonly line: number;
  readonly doc: YamlDocument;
}

/** Whether every other Fleet document lies in a file below `root`'s directory that it excludes. */
function excludesAllOthers(root: FleetCandidate, all: readonly FleetCandidate[]): boolean {
  const dir = dirOf(root.path);
  const prefix = dir === '' ? '' : `${dir}/`;
  const isExcluded = excludeMatcher(fleetExclude(root.doc));
  return all.every(
    (other) =>
      other === root ||
      (other.path !== root.path &&
        other.path.startsWith(prefix) &&
        isExcluded(other.path.slice(prefix.length))),
  );
}

interface Located {
  readonly file: string;
  readonly parsed: ParsedDoc;
}

type ReadFile = { readonly path: string; readonly yaml: ReturnType<typeof readYaml> };

/** A problem as a document parser states it, before the file and object are added. */
interface StatedProblem {
  readonly code: Code;
  readonly line: number;
  readonly message: string;
  readonly severity?: 'error' | 'warning';
}

function pushStated(
  problems: FleetProblem[],
  file: string,
  list: readonly StatedProblem[],
  object?: string,
): void {
  for (const p of list)
    problems.push({
      severity: p.severity ?? 'error',
      code: p.code,
      file,
      line: p.line,
      ...(object === undefined ? {} : { object }),
      message: p.message,
    });
}

/**
 * The one Fleet document that marks the root, or undefined with `FLEET_NO_FLEET` or
 * `FLEET_SEVERAL_FLEETS` added to `problems`.
 */
function findRoot(
  read: readonly ReadFile[],
  label: string | undefined,
  problems: FleetProblem[],
): FleetCandidate | undefined {
  let fleetFiles: FleetCandidate[] = [];
  for (const file of read)
    for (const doc of file.yaml.documents)
      if (isFleetDoc(doc)) fleetFiles.push({ path: file.path, line: doc.line, doc });
  // A Fleet document in a file the real root excludes (an archived copy of a fleet, say) is
  // one of the excluded files whose problems are never reported.
  if (fleetFiles.length > 1) {
    const owners = fleetFiles.filter((root) => excludesAllOthers(root, fleetFiles));
    if (owners.length === 1) fleetFiles = owners;
  }
  if (fleetFiles.length === 0)
    problems.push({
      severity: 'error',
      code: 'FLEET_NO_FLEET',
      message: `no Fleet document found under ${label ?? '.'}`,
    });
  if (fleetFiles.length > 1)
    for (const found of fleetFiles)
      problems.push({
        severity: 'error',
        code: 'FLEET_SEVERAL_FLEETS',
        file: found.path,
        line: found.line,
        message: `found ${fleetFiles.length} Fleet documents, expected one`,
      });
  return fleetFiles.length === 1 ? fleetFiles[0] : undefined;
}

/** The root's place: its directory, the prefix of paths under it, and its exclude predicate. */
interface Root {
  readonly dir: string;
  readonly prefix: string;
  /** The Fleet document's path, relative to the root. */
  readonly rel: string;
  readonly fleet: FleetDoc | undefined;
  readonly isExcluded: (path: string) => boolean;
}

function rootOf(found: FleetCandidate): Root {
  const dir = dirOf(found.path);
  const prefix = dir === '' ? '' : `${dir}/`;
  const rel = found.path.slice(prefix.length);
  const exclude = fleetExclude(found.doc);
  const parsed = parseDocument(found.doc).doc;
  return {
    dir,
    prefix,
    rel,
    fleet:
      parsed?.type === 'Fleet'
        ? { name: parsed.name, file: rel, line: parsed.line, exclude }
        : undefined,
    isExcluded: excludeMatcher(exclude),
  };
}

/** Every document under the root that is not excluded, parsed; with what had errors. */
function parseUnderRoot(
  read: readonly ReadFile[],
  root: Root,
  problems: FleetProblem[],
): {
  located: Located[];
  invalidRefs: Set<string>;
  invalidHosts: Map<string, { file: string; line: number }>;
} {
  const located: Located[] = [];
  const invalidRefs = new Set<string>();
  const invalidHosts = new Map<string, { file: string; line: number }>();
  for (const file of read) {
    if (!file.path.startsWith(root.prefix)) continue;
    const path = file.path.slice(root.prefix.length);
    if (path !== root.rel && root.isExcluded(path)) continue;
    pushStated(
      problems,
      path,
      file.yaml.problems.map((p) => ({
        code: 'FLEET_INVALID_YAML',
        line: p.line,
        message: p.message,
      })),
    );
    for (const doc of file.yaml.documents) {
      const result = parseDocument(doc);
      pushStated(problems, path, result.problems, objectOf(result.type, result.name));
      if (result.doc !== undefined && result.doc.type !== 'Fleet')
        located.push({ file: path, parsed: result.doc });
      else if (
        result.doc === undefined &&
        result.name !== undefined &&
        (RESOURCE_TYPES as readonly string[]).includes(result.type ?? '')
      )
        invalidRefs.add(`${result.type}[${result.name}]`);
      else if (result.doc === undefined && result.type === 'Host' && result.name !== undefined)
        invalidHosts.set(result.name, { file: path, line: doc.line });
    }
  }
  return { located, invalidRefs, invalidHosts };
}

/** What the reader saw but did not read, under the root and not excluded: sizes, links, errors. */
function readerProblems(options: LoadOptions, root: Root, problems: FleetProblem[]): void {
  const under = (path: string): string | undefined => {
    if (!path.startsWith(root.prefix)) return undefined;
    const rel = path.slice(root.prefix.length);
    return root.isExcluded(rel) ? undefined : rel;
  };
  for (const big of options.oversized ?? []) {
    const path = under(big.path);
    if (path === undefined) continue;
    problems.push({
      severity: 'error',
      code: 'FLEET_FILE_TOO_LARGE',
      file: path,
      message: `${path} is ${big.size} bytes; fleet files are limited to ${MAX_FILE_BYTES} (16 MiB) and it was not read`,
    });
  }
  for (const d of options.diagnostics ?? []) {
    const path = d.file === undefined ? undefined : under(d.file);
    if (path !== undefined) problems.push({ ...d, file: path });
  }
  for (const link of options.links ?? []) {
    const path = isCandidate(link) ? under(link) : undefined;
    if (path === undefined) continue;
    problems.push({
      severity: 'warning',
      code: 'FLEET_SYMLINK_SKIPPED',
      file: path,
      message: `${path} is a symbolic link and is not read; keep fleet documents in the repository as files`,
    });
  }
}

/** The documents without a second Host or Layer of one name (Datum forgets to check). */
function uniqueNames(located: readonly Located[], problems: FleetProblem[]): Located[] {
  const seen = new Map<string, { file: string; line: number }>();
  const unique: Located[] = [];
  for (const item of located) {
    const { type, name, line } = item.parsed;
    if (type !== 'Host' && type !== 'Layer') {
      unique.push(item);
      continue;
    }
    const key = `${type}\u0000${name}`;
    const first = seen.get(key);
    if (first !== undefined) {
      problems.push({
        severity: 'error',
        code: 'FLEET_DUPLICATE_NAME',
        file: item.file,
        line,
        object: `${type} ${name}`,
        message: `duplicate ${type} ${JSON.stringify(name)}, first declared at ${first.file}:${first.line}`,
      });
      continue;
    }
    seen.set(key, { file: item.file, line });
    unique.push(item);
  }
  return unique;
}

/** A Layer document with the resource documents gathered under it so far. */
interface OpenLayer {
  readonly file: string;
  readonly parsed: Extract<ParsedDoc, { type: 'Layer' }>;
  readonly resources: ResourceDoc[];
}

/** The Host documents, and the one Layer of each directory (a second is `FLEET_TWO_LAYERS`). */
function hostsAndLayers(
  unique: readonly Located[],
  problems: FleetProblem[],
): { hosts: HostDoc[]; layerByDir: Map<string, OpenLayer> } {
  const hosts: HostDoc[] = [];
  const layerByDir = new Map<string, OpenLayer>();
  for (const item of unique) {
    if (item.parsed.type === 'Host')
      hosts.push({
        name: item.parsed.name,
        labels: item.parsed.labels,
        file: item.file,
        line: item.parsed.line,
      });
    else if (item.parsed.type === 'Layer') {
      const dir = dirOf(item.file);
      const other = layerByDir.get(dir);
      if (other !== undefined) {
        problems.push({
          severity: 'error',
          code: 'FLEET_TWO_LAYERS',
          file: item.file,
          line: item.parsed.line,
          object: `Layer ${item.parsed.name}`,
          message: `two Layer documents in directory ${dir === '' ? '.' : dir}: ${other.parsed.name} (${other.file}:${other.parsed.line}) and ${item.parsed.name}`,
        });
        continue;
      }
      layerByDir.set(dir, { file: item.file, parsed: item.parsed, resources: [] });
    }
  }
  return { hosts, layerByDir };
}

/** The Layer in a file's own directory or the nearest parent. */
function layerAbove(
  layerByDir: ReadonlyMap<string, OpenLayer>,
  file: string,
): OpenLayer | undefined {
  let dir = dirOf(file);
  let layer = layerByDir.get(dir);
  while (layer === undefined && dir !== '') {
    dir = dirOf(dir);
    layer = layerByDir.get(dir);
  }
  return layer;
}

/** Gives every resource document to its layer; one without a layer, or twice in one, is an error. */
function attachResources(
  unique: readonly Located[],
  layerByDir: ReadonlyMap<string, OpenLayer>,
  invalidRefs: Set<string>,
  problems: FleetProblem[],
): void {
  for (const item of unique) {
    const parsed = item.parsed;
    if (parsed.type === 'Host' || parsed.type === 'Layer' || parsed.type === 'Fleet') continue;
    const ref = `${parsed.type}[${parsed.name}]`;
    const at = { file: item.file, line: parsed.line, object: ref };
    const layer = layerAbove(layerByDir, item.file);
    if (layer === undefined) {
      problems.push({
        severity: 'error',
        code: 'FLEET_NO_LAYER',
        ...at,
        message: `${ref} has no Layer document above it`,
      });
      // Left out like a document with errors: edges to it are not reported again.
      invalidRefs.add(ref);
      continue;
    }
    const duplicate = layer.resources.find((r) => r.ref === ref);
    if (duplicate !== undefined) {
      problems.push({
        severity: 'error',
        code: 'FLEET_DUPLICATE_REFERENCE',
        ...at,
        message: `${ref} is declared twice in layer ${layer.parsed.name} (first at ${duplicate.file}:${duplicate.line})`,
      });
      continue;
    }
    layer.resources.push({
      type: parsed.type as ResourceType,
      name: parsed.name,
      ref,
      file: item.file,
      line: parsed.line,
      desired: parsed.desired,
      edges: parsed.edges,
      templated: parsed.templated,
    });
  }
}

/** The layers in discovery order, each with its resources ordered by type then name. */
function finishedLayers(layerByDir: ReadonlyMap<string, OpenLayer>): LayerDoc[] {
  const layers: LayerDoc[] = [...layerByDir.entries()].map(
    ([dir, { file, parsed, resources }]) => ({
      name: parsed.name,
      precedence: parsed.precedence,
      selector: parsed.selector,
      matchLines: parsed.matchLines,
      ...(parsed.invalid === true ? { invalid: true } : {}),
      dir,
      file,
      line: parsed.line,
      resources: resources.sort(
        (a, b) => compareText(a.type, b.type) || compareText(a.name, b.name),
      ),
    }),
  );
  return layers.sort(
    (a, b) => a.precedence - b.precedence || compareText(a.file, b.file) || a.line - b.line,
  );
}

/** Every path under the root the reader listed, and the content hash of each non-YAML file given. */
function filesUnderRoot(
  files: readonly FleetFile[],
  options: LoadOptions,
  prefix: string,
): Pick<Fleet, 'files' | 'contents'> {
  let listed: Set<string> | undefined;
  if (options.paths !== undefined) {
    listed = new Set();
    for (const path of options.paths)
      if (path.startsWith(prefix)) listed.add(path.slice(prefix.length));
  }
  const contents = new Map<string, string>();
  for (const file of files) {
    if (isCandidate(file.path) || !file.path.startsWith(prefix)) continue;
    contents.set(
      file.path.slice(prefix.length),
      `sha256:${createHash('sha256').update(file.bytes).digest('hex')}`,
    );
  }
  return {
    ...(listed === undefined ? {} : { files: listed }),
    ...(contents.size === 0 ? {} : { contents }),
  };
}

/** Loads a fleet from its files. Never throws; every problem is collected. */
export function loadFleet(files: readonly FleetFile[], options: LoadOptions = {}): Fleet {
  const problems: FleetProblem[] = [];
  const read = files
    .filter((f) => isCandidate(f.path))
    .sort((a, b) => compareText(a.path, b.path))
    .map((file) => ({ path: file.path, yaml: readYaml(file.bytes, file.path) }));
  const found = findRoot(read, options.label, problems);
  if (found === undefined)
    return {
      root: '',
      fleet: undefined,
      hosts: [],
      layers: [],
      problems,
      invalidRefs: new Set(),
      invalidHosts: new Map(),
    };
  // The Fleet document first: its exclude list decides which other files count.
  const root = rootOf(found);
  const { located, invalidRefs, invalidHosts } = parseUnderRoot(read, root, problems);
  readerProblems(options, root, problems);
  const unique = uniqueNames(located, problems);
  const { hosts, layerByDir } = hostsAndLayers(unique, problems);
  attachResources(unique, layerByDir, invalidRefs, problems);
  const layers = finishedLayers(layerByDir);
  hosts.sort((a, b) => compareText(a.name, b.name));
  problems.sort(compareProblems);
  return {
    root: root.dir,
    fleet: root.fleet,
    hosts,
    layers,
    problems,
    invalidRefs,
    invalidHosts,
    ...filesUnderRoot(files, options, root.prefix),
  };
}

/** What a document problem is about, as far as the header could be read: `File[x]`, `Host h`. */
function objectOf(type: string | undefined, name: string | undefined): string | undefined {
  if (type === undefined || name === undefined) return undefined;
  return (RESOURCE_TYPES as readonly string[]).includes(type)
    ? `${type}[${name}]`
    : `${type} ${name}`;
}

/** The one diagnostic order (file, line, column, code, object, message), then the host. */
export function compareProblems(a: FleetProblem, b: FleetProblem): number {
  return compareDiagnostics(a, b) || compareText(a.host ?? '', b.host ?? '');
}
