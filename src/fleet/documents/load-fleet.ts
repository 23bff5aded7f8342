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

/** Loads a fleet from its files. Never throws; every problem is collected. */
export function loadFleet(files: readonly FleetFile[], options: LoadOptions = {}): Fleet {
  const problems: FleetProblem[] = [];
  const candidates = files
    .filter((f) => isCandidate(f.path))
    .sort((a, b) => compareText(a.path, b.path));
  const read = candidates.map((file) => ({
    path: file.path,
    yaml: readYaml(file.bytes, file.path),
  }));

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
  const empty = (root = ''): Fleet => ({
    root,
    fleet: undefined,
    hosts: [],
    layers: [],
    problems,
    invalidRefs: new Set(),
    invalidHosts: new Map(),
  });
  if (fleetFiles.length === 0) {
    problems.push({
      severity: 'error',
      code: 'FLEET_NO_FLEET',
      message: `no Fleet document found under ${options.label ?? '.'}`,
    });
    return empty();
  }
  if (fleetFiles.length > 1) {
    for (const found of fleetFiles)
      problems.push({
        severity: 'error',
        code: 'FLEET_SEVERAL_FLEETS',
        file: found.path,
        line: found.line,
        message: `found ${fleetFiles.length} Fleet documents, expected one`,
      });
    return empty();
  }
  const fleetFile = fleetFiles[0] as FleetCandidate;
  const root = dirOf(fleetFile.path);
  const prefix = root === '' ? '' : `${root}/`;

  // Parse the Fleet document first: its exclude list decides which other files count.
  const located: Located[] = [];
  const invalidRefs = new Set<string>();
  const invalidHosts = new Map<string, { file: string; line: number }>();
  let fleet: FleetDoc | undefined;
  const report = (
    file: string,
    list: readonly {
      code: Code;
      line: number;
      message: string;
      severity?: 'error' | 'warning';
    }[],
    object?: string,
  ): void => {
    for (const p of list)
      problems.push({
        severity: p.severity ?? 'error',
        code: p.code,
        file,
        line: p.line,
        ...(object === undefined ? {} : { object }),
        message: p.message,
      });
  };
  const rel = fleetFile.path.slice(prefix.length);
  const exclude = fleetExclude(fleetFile.doc);
  const parsedFleet = parseDocument(fleetFile.doc).doc;
  if (parsedFleet?.type === 'Fleet')
    fleet = { name: parsedFleet.name, file: rel, line: parsedFleet.line, exclude };
  const isExcluded = excludeMatcher(exclude);

  for (const file of read) {
    if (!file.path.startsWith(prefix)) continue;
    const path = file.path.slice(prefix.length);
    if (path !== rel && isExcluded(path)) continue;
    report(
      path,
      file.yaml.problems.map((p) => ({
        code: 'FLEET_INVALID_YAML',
        line: p.line,
        message: p.message,
      })),
    );
    for (const doc of file.yaml.documents) {
      const result = parseDocument(doc);
      report(path, result.problems, objectOf(result.type, result.name));
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

  for (const big of options.oversized ?? []) {
    if (!big.path.startsWith(prefix)) continue;
    const path = big.path.slice(prefix.length);
    if (isExcluded(path)) continue;
    problems.push({
      severity: 'error',
      code: 'FLEET_FILE_TOO_LARGE',
      file: path,
      message: `${path} is ${big.size} bytes; fleet files are limited to ${MAX_FILE_BYTES} (16 MiB) and it was not read`,
    });
  }
  for (const d of options.diagnostics ?? []) {
    if (d.file === undefined || !d.file.startsWith(prefix)) continue;
    const path = d.file.slice(prefix.length);
    if (isExcluded(path)) continue;
    problems.push({ ...d, file: path });
  }
  for (const link of options.links ?? []) {
    if (!link.startsWith(prefix) || !isCandidate(link)) continue;
    const path = link.slice(prefix.length);
    if (isExcluded(path)) continue;
    problems.push({
      severity: 'warning',
      code: 'FLEET_SYMLINK_SKIPPED',
      file: path,
      message: `${path} is a symbolic link and is not read; keep fleet documents in the repository as files`,
    });
  }

  // Names are unique per type (Datum forgets to check).
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

  const hosts: HostDoc[] = [];
  const layerByDir = new Map<
    string,
    { file: string; parsed: Extract<ParsedDoc, { type: 'Layer' }>; resources: ResourceDoc[] }
  >();
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
  for (const item of unique) {
    const parsed = item.parsed;
    if (parsed.type === 'Host' || parsed.type === 'Layer' || parsed.type === 'Fleet') continue;
    const ref = `${parsed.type}[${parsed.name}]`;
    let dir: string | undefined = dirOf(item.file);
    let layer = layerByDir.get(dir);
    while (layer === undefined && dir !== '') {
      dir = dirOf(dir);
      layer = layerByDir.get(dir);
    }
    if (layer === undefined) {
      problems.push({
        severity: 'error',
        code: 'FLEET_NO_LAYER',
        file: item.file,
        line: parsed.line,
        object: ref,
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
        file: item.file,
        line: parsed.line,
        object: ref,
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
  layers.sort(
    (a, b) => a.precedence - b.precedence || compareText(a.file, b.file) || a.line - b.line,
  );
  hosts.sort((a, b) => compareText(a.name, b.name));
  problems.sort(compareProblems);
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
    root,
    fleet,
    hosts,
    layers,
    problems,
    invalidRefs,
    invalidHosts,
    ...(listed === undefined ? {} : { files: listed }),
    ...(contents.size === 0 ? {} : { contents }),
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
