/**
 * Where the anchor check finds Compose files, and the repository reader it reads them through.
 * All reading goes through the shared `RepoReader`: a Compose file, `.env`, `env_file:` or
 * `extends:` file outside the repository, or a link leaving it, is skipped with a warning.
 */
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { posix } from 'node:path';
import { RepoReader, compareText, isWithin } from '../../base/index.js';

/** `compose.yaml`, `docker-compose.yml`, `compose.override.yaml`, `compose-prod.yml`, … */
const COMPOSE_FILE = /^(docker-)?compose([.-][A-Za-z0-9_.-]+)?\.ya?ml$/;
const BASE_FILE = /^(docker-)?compose\.ya?ml$/;
const SKIP = new Set(['.git', 'node_modules']);

/** The Compose files of one folder: the base file first, then the others by name. */
function inFolder(paths: readonly string[]): string[] {
  const name = (p: string): string => posix.basename(p);
  return [...paths].sort(
    (a, b) =>
      Number(BASE_FILE.test(name(b))) - Number(BASE_FILE.test(name(a))) ||
      compareText(name(a), name(b)),
  );
}

/**
 * Finds Compose projects under the repository folder `dir` for `labelwise build`:
 * `dir/compose*.yaml` (one project) and every folder under `dir/compose/` holding Compose files
 * (one project per folder), as `docker compose` with no `-f` would read `compose.yaml` +
 * `compose.override.yaml`. Paths are repository-relative.
 */
export function findComposeProjects(reader: RepoReader, dir: string): string[][] {
  const projects: string[][] = [];
  const top = reader
    .list(dir, { recursive: false })
    .map((e) => e.path)
    .filter((p) => COMPOSE_FILE.test(posix.basename(p)));
  if (top.length > 0) projects.push(inFolder(top));
  const composeDir = dir === '' || dir === '.' ? 'compose' : `${dir}/compose`;
  if (reader.kind(composeDir) !== 'dir') return projects;
  const byFolder = new Map<string, string[]>();
  for (const entry of reader.list(composeDir, { skipDirs: SKIP })) {
    if (!COMPOSE_FILE.test(posix.basename(entry.path))) continue;
    const folder = posix.dirname(entry.path);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), entry.path]);
  }
  for (const folder of [...byFolder.keys()].sort(compareText))
    projects.push(inFolder(byFolder.get(folder) as string[]));
  return projects;
}

/** What `labelwise anchor check FILE…` reads through. */
export interface CheckInput {
  readonly reader: RepoReader;
  /** The files, relative to the reader's root. */
  readonly files: string[];
  /** The project directory's own name. */
  readonly directoryName: string;
}

/**
 * Opens the reader for files named on the command line. The repository is the current
 * directory when the first file lies inside it, else the first file's directory: files and
 * `.env`/`env_file`/`extends` references outside it are skipped with a warning. Throws an
 * `unavailable` error when the root cannot be opened.
 */
export function openCheckInput(paths: readonly string[], cwd: string): CheckInput {
  const absolute = paths.map((p) => (isAbsolute(p) ? p : resolve(cwd, p)));
  const first = absolute[0] ?? resolve(cwd, 'compose.yaml');
  const root = isWithin(first, resolve(cwd)) ? resolve(cwd) : dirname(first);
  const reader = RepoReader.open(root);
  const files = absolute.map((p) => reader.inside(p, cwd) ?? p);
  const projectDir = dirname(first);
  return { reader, files, directoryName: basename(projectDir) };
}

/** The name of a repository folder (the root's own name for `.`). */
export function folderName(reader: RepoReader, folder: string): string {
  return folder === '.' || folder === '' ? basename(reader.root) : posix.basename(folder);
}
