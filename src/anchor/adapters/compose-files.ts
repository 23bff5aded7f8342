/**
 * Reads Compose files from disk for the anchor check: the files, the `.env` beside the first
 * one, and the directory name (the fallback project name). Unreadable files are `unavailable`
 * errors (exit 3).
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { LabelwiseError, quote } from '../../base/errors.js';
import { compareStrings } from '../../selector/index.js';
import { parseDotEnv } from '../compose/compose-text.js';
import type { ComposeFile } from '../compose/compose-model.js';

export interface ComposeInput {
  readonly files: ComposeFile[];
  readonly directoryName: string;
  /** Variables from the project's `.env` (the caller lays the shell environment over them). */
  readonly dotEnv: Record<string, string>;
}

/** Reads the given files; paths in messages are shown relative to `displayRoot`. */
export async function readComposeFiles(
  paths: readonly string[],
  cwd: string,
  displayRoot = cwd,
): Promise<ComposeInput> {
  const files: ComposeFile[] = [];
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    let text: string;
    try {
      text = await readFile(absolute, 'utf8');
    } catch (error) {
      throw new LabelwiseError(
        'ANCHOR_COMPOSE_UNREADABLE',
        `cannot read ${quote(path)}: ${(error as Error).message}`,
        { file: path },
        undefined,
        'unavailable',
      );
    }
    files.push({ path: relative(displayRoot, absolute) || basename(absolute), text });
  }
  const first = resolve(cwd, paths[0] ?? '.');
  let dotEnv: Record<string, string> = Object.create(null);
  try {
    dotEnv = parseDotEnv(await readFile(join(dirname(first), '.env'), 'utf8'));
  } catch {
    // No .env: nothing to interpolate from it.
  }
  return { files, directoryName: basename(dirname(first)), dotEnv };
}

const COMPOSE_FILE = /^(docker-)?compose([.-][A-Za-z0-9_.-]+)?\.ya?ml$/;

/**
 * Finds Compose projects under `dir` for `labelwise build`: `dir/compose*.yaml` (one project) and
 * every folder under `dir/compose/` holding compose files (one project per folder). Within a
 * project the base file (`compose.yaml`, `docker-compose.yml`, …) comes first, then overrides
 * in name order, as `docker compose` with no `-f` would read `compose.yaml` + `compose.override.yaml`.
 */
export async function findComposeProjects(dir: string): Promise<string[][]> {
  const projects: string[][] = [];
  const inFolder = async (folder: string): Promise<string[]> => {
    let names: string[];
    try {
      names = await readdir(folder);
    } catch {
      return [];
    }
    const files = names.filter((n) => COMPOSE_FILE.test(n));
    const base = (n: string): boolean => /^(docker-)?compose\.ya?ml$/.test(n);
    files.sort((a, b) => Number(base(b)) - Number(base(a)) || compareStrings(a, b));
    return files.map((n) => join(folder, n));
  };
  const top = await inFolder(dir);
  if (top.length > 0) projects.push(top);
  const walk = async (folder: string, depth: number): Promise<void> => {
    if (depth > 4) return;
    const here = await inFolder(folder);
    if (here.length > 0) projects.push(here);
    let names: string[];
    try {
      names = (await readdir(folder)).sort(compareStrings);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(folder, name);
      if (!name.startsWith('.') && (await stat(path).catch(() => undefined))?.isDirectory())
        await walk(path, depth + 1);
    }
  };
  await walk(join(dir, 'compose'), 0);
  return projects;
}
