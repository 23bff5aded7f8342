/**
 * Reading a catalog directory and an apps directory. Missing or unreadable paths are
 * `unavailable` errors (exit 3); files are read as UTF-8 and size-capped, since they are input.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { LabelwiseError } from '../../base/errors.js';
import type { CatalogInput } from '../load-catalog.js';
import { RENDER_HEADER } from '../emit.js';

/** Larger files are refused: no catalog file or rendered object is anywhere near this. */
const MAX_FILE_BYTES = 1 << 20;

/** Path as shown in messages: relative to `root`, with forward slashes. */
export function displayPath(root: string, path: string): string {
  const rel = relative(root, path);
  return (rel === '' ? '.' : rel).split(sep).join('/');
}

function readText(path: string, shown: string): string {
  try {
    const size = statSync(path).size;
    if (size > MAX_FILE_BYTES) {
      throw new LabelwiseError(
        'CATALOG_FILE_TOO_LARGE',
        `${shown} is ${size} bytes; the limit is ${MAX_FILE_BYTES}`,
        { file: shown },
      );
    }
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof LabelwiseError) throw error;
    throw new LabelwiseError(
      'CATALOG_UNREADABLE',
      `cannot read ${shown}: ${(error as Error).message}`,
      { file: shown },
      undefined,
      'unavailable',
    );
  }
}

/** Whether `path` is a regular file / a directory; false for anything unreadable (a dangling or looping symlink). */
function kindOf(path: string): 'file' | 'dir' | undefined {
  try {
    const stat = statSync(path);
    return stat.isFile() ? 'file' : stat.isDirectory() ? 'dir' : undefined;
  } catch {
    return undefined;
  }
}

function listDir(dir: string, shown: string): string[] {
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    return readdirSync(dir).sort();
  } catch (error) {
    throw new LabelwiseError(
      'CATALOG_UNREADABLE',
      `cannot read directory ${shown}: ${(error as Error).message}`,
      { file: shown },
      undefined,
      'unavailable',
    );
  }
}

/** Reads `dir`: `platform.yaml` plus every other `*.yaml`/`*.yml` file as a definition. */
export function readCatalogDir(dir: string, root: string): CatalogInput {
  const shownDir = displayPath(root, dir);
  let platform: CatalogInput['platform'];
  const definitions: { file: string; text: string }[] = [];
  for (const entry of listDir(dir, shownDir)) {
    if (!/\.ya?ml$/.test(entry) || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (kindOf(path) !== 'file') continue;
    const file = displayPath(root, path);
    const text = readText(path, file);
    if (entry === 'platform.yaml' || entry === 'platform.yml') platform = { file, text };
    else definitions.push({ file, text });
  }
  return { platform, definitions, dir: shownDir };
}

/**
 * Reads the labelwise-managed part of an apps directory: every `<service>/` whose
 * `kustomization.yaml` carries the render header, plus the directories of `services` (so a
 * hand-edited or half-deleted one is still compared). Returns `<service>/<file>` → text; a
 * missing directory reads as empty.
 */
export function readAppsDir(
  dir: string,
  root: string,
  services: readonly string[],
): Record<string, string> {
  const files: Record<string, string> = {};
  if (!existsSync(dir)) return files;
  const shownDir = displayPath(root, dir);
  for (const entry of listDir(dir, shownDir)) {
    const serviceDir = join(dir, entry);
    if (entry.startsWith('.') || kindOf(serviceDir) !== 'dir') continue;
    const kustomization = join(serviceDir, 'kustomization.yaml');
    const managed =
      services.includes(entry) ||
      (kindOf(kustomization) === 'file' &&
        readText(kustomization, displayPath(root, kustomization)).startsWith(RENDER_HEADER));
    if (!managed) continue;
    for (const name of listDir(serviceDir, displayPath(root, serviceDir))) {
      const path = join(serviceDir, name);
      if (name.startsWith('.') || kindOf(path) !== 'file') continue;
      files[`${entry}/${name}`] = readText(path, displayPath(root, path));
    }
  }
  return files;
}
