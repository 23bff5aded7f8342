/**
 * Reading a catalog directory and an apps directory through the shared repository reader: links
 * out of the repository, special files and oversized files are skipped with a diagnostic (never
 * followed, never printed), and every path is repository-relative with `/`.
 */
import { MANIFEST, LabelwiseError } from '../../base/index.js';
import type { Diagnostic, RepoReader } from '../../base/index.js';
import type { CatalogInput } from '../definition/load-catalog.js';

/** No catalog file or rendered object is anywhere near this. */
export const MAX_CATALOG_FILE_BYTES = 1 << 20;

const PLATFORM_FILE = 'platform.yaml';
/** Read as neither settings nor a definition: the missing-platform error names it. */
const MISNAMED_PLATFORM = 'platform.yml';

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function requireDir(reader: RepoReader, dir: string): void {
  if (reader.kind(dir) !== 'dir') {
    throw new LabelwiseError(
      'CATALOG_UNREADABLE',
      `cannot read directory ${dir}: ${reader.exists(dir) ? 'not a readable directory' : 'no such directory'}`,
      { source: { file: dir }, kind: 'unavailable' },
    );
  }
}

/**
 * Reads the repository directory `dir`: `platform.yaml` plus every other `*.yaml`/`*.yml` file as
 * a definition. Throws an `unavailable` error when `dir` is not a readable directory; everything
 * the reader skipped or could not read is in `reader.diagnostics`.
 */
export function readCatalogDir(reader: RepoReader, dir: string): CatalogInput {
  requireDir(reader, dir);
  let platform: CatalogInput['platform'];
  let misnamed: string | undefined;
  const definitions: { file: string; text: string }[] = [];
  for (const entry of reader.list(dir, { extensions: ['.yaml', '.yml'], recursive: false })) {
    const name = baseName(entry.path);
    if (name.startsWith('.')) continue;
    const text = reader.readText(entry.path);
    if (text === undefined) continue;
    if (name === PLATFORM_FILE) platform = { file: entry.path, text };
    else if (name === MISNAMED_PLATFORM) misnamed = entry.path;
    else definitions.push({ file: entry.path, text });
  }
  return {
    platform,
    definitions,
    dir,
    ...(misnamed !== undefined ? { misnamedPlatform: misnamed } : {}),
  };
}

/** The service directories an output manifest lists (`<service>/<file>` entries). */
function manifestServices(reader: RepoReader, prefix: string): string[] {
  if (!reader.exists(`${prefix}${MANIFEST}`)) return [];
  const text = reader.readText(`${prefix}${MANIFEST}`);
  if (text === undefined) return [];
  try {
    const files = (JSON.parse(text) as { files?: unknown }).files;
    if (typeof files !== 'object' || files === null) return [];
    return Object.keys(files)
      .map((path) => path.split('/'))
      .filter((parts) => parts.length === 2 && parts[0] !== '' && !parts[0]!.startsWith('.'))
      .map((parts) => parts[0] as string);
  } catch {
    return [];
  }
}

/**
 * Reads the rendered part of the repository directory `dir`: the directories of `services` and
 * of every service the output manifest lists (so a service removed from the catalog still shows
 * as removed), each read one level deep (a file added to a service directory by hand shows as
 * an extra). Nothing else is listed: an apps directory named wrongly (`--out /`) is never
 * walked. The manifest itself is not part of the comparison. Returns `<service>/<file>` → text;
 * a missing directory reads as empty.
 */
export function readAppsDir(
  reader: RepoReader,
  dir: string,
  services: readonly string[],
): Record<string, string> {
  const files: Record<string, string> = {};
  if (!reader.exists(dir)) return files;
  requireDir(reader, dir);
  const prefix = dir === '.' || dir === '' ? '' : `${dir}/`;
  const candidates = [...new Set([...services, ...manifestServices(reader, prefix)])].sort();
  for (const service of candidates) {
    const serviceDir = `${prefix}${service}`;
    if (!reader.exists(serviceDir) || reader.kind(serviceDir) !== 'dir') continue;
    for (const entry of reader.list(serviceDir, { recursive: false })) {
      const name = baseName(entry.path);
      if (name.startsWith('.')) continue;
      const text = reader.readText(entry.path);
      if (text !== undefined) files[`${service}/${name}`] = text;
    }
  }
  return files;
}

/**
 * The diagnostics the reader recorded since `mark` (its `diagnostics.length` before the reads),
 * tagged with the catalog module: a reader shared by several stages keeps everyone's.
 */
export function readerDiagnostics(reader: RepoReader, mark: number): Diagnostic[] {
  return reader.diagnostics.slice(mark).map((d) => ({ ...d, module: 'catalog' }));
}
