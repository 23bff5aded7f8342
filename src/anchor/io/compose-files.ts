/**
 * Where the anchor check finds Compose files, and the repository reader it reads them through.
 * All reading goes through the shared `RepoReader`: a Compose file, `.env`, `env_file:` or
 * `extends:` file outside the repository, or a link leaving it, is skipped with a warning.
 */
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { posix } from 'node:path';
import { RepoReader, compareText, isWithin } from '../../base/index.js';

/** Any file Compose users name with `-f`: `compose.yaml`, `docker-compose.test.yml`, … */
const COMPOSE_FILE = /^(docker-)?compose([.-][A-Za-z0-9_.-]+)?\.ya?ml$/;
/**
 * What `docker compose` with no `-f` reads in a folder, in its order of preference: the first
 * base file present, then the first override file present (compose-go `cli/options.go`,
 * `DefaultFileNames` and `DefaultOverrideFileNames`).
 */
export const DEFAULT_COMPOSE_FILES = [
  'compose.yaml',
  'compose.yml',
  'docker-compose.yml',
  'docker-compose.yaml',
] as const;
export const DEFAULT_OVERRIDE_FILES = [
  'compose.override.yml',
  'compose.override.yaml',
  'docker-compose.override.yml',
  'docker-compose.override.yaml',
] as const;
const SKIP = new Set(['.git', 'node_modules']);

/** Compose projects found in a repository, and Compose-named files no project reads. */
export interface ComposeDiscovery {
  /** Each project's files, repository-relative, in merge order. */
  readonly projects: readonly (readonly string[])[];
  /** Files that look like Compose files but that `docker compose` with no `-f` ignores. */
  readonly notRead: readonly { readonly file: string; readonly project: readonly string[] }[];
}

/**
 * The projects of one folder. With a default file, the project is what `docker compose` with no
 * `-f` reads (base + override); other Compose-named files there (`docker-compose.test.yml`) are
 * alternatives or fragments meant for `-f`, so they are not read. Without a default file, every
 * Compose-named file but an override is a stack of its own, as users run it with
 * `docker compose -f FILE` (compose-go itself would look in the parent folder instead).
 */
export function projectsInFolder(
  paths: readonly string[],
): Pick<ComposeDiscovery, 'projects' | 'notRead'> {
  const byName = new Map(paths.map((p) => [posix.basename(p), p]));
  const pick = (names: readonly string[]): string | undefined =>
    names.map((n) => byName.get(n)).find((p) => p !== undefined);
  const base = pick(DEFAULT_COMPOSE_FILES);
  const sorted = [...paths].sort(compareText);
  if (base === undefined) {
    // An override file only ever amends a base file; alone it is no stack.
    const isOverride = (p: string): boolean =>
      (DEFAULT_OVERRIDE_FILES as readonly string[]).includes(posix.basename(p));
    return {
      projects: sorted.filter((p) => !isOverride(p)).map((p) => [p]),
      notRead: sorted.filter(isOverride).map((file) => ({ file, project: [] })),
    };
  }
  const override = pick(DEFAULT_OVERRIDE_FILES);
  const project = override === undefined ? [base] : [base, override];
  const notRead = sorted.filter((p) => !project.includes(p)).map((file) => ({ file, project }));
  return { projects: [project], notRead };
}

/**
 * Finds Compose projects for `labelwise build`, one folder at a time as
 * {@link projectsInFolder} reads it: at the repository root, the root itself and every folder
 * under `compose/`; in a Compose part folder (`compose/`, or the one labelwise.yaml names), every
 * folder under it. Paths are repository-relative; folders come in code point order.
 */
export function findComposeProjects(reader: RepoReader, dir: string): ComposeDiscovery {
  const folders = new Map<string, string[]>();
  const add = (path: string): void => {
    if (!COMPOSE_FILE.test(posix.basename(path))) return;
    const folder = posix.dirname(path);
    folders.set(folder, [...(folders.get(folder) ?? []), path]);
  };
  const atRoot = dir === '' || dir === '.';
  if (atRoot) {
    for (const entry of reader.list('', { recursive: false })) add(entry.path);
    if (reader.kind('compose') === 'dir')
      for (const entry of reader.list('compose', { skipDirs: SKIP })) add(entry.path);
  } else for (const entry of reader.list(dir, { skipDirs: SKIP })) add(entry.path);
  const projects: (readonly string[])[] = [];
  const notRead: ComposeDiscovery['notRead'][number][] = [];
  for (const folder of [...folders.keys()].sort(compareText)) {
    const found = projectsInFolder(folders.get(folder) as string[]);
    for (const project of found.projects) projects.push(project);
    for (const file of found.notRead) notRead.push(file);
  }
  return { projects, notRead };
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

/**
 * The name of a repository folder (the root's own name for `.`). `rootName` stands for the
 * root's name when the reader reads a copy of the repository (a revision in a temporary folder),
 * so a project without `name:` is named as `build` names it in the repository itself.
 */
export function folderName(reader: RepoReader, folder: string, rootName?: string): string {
  if (folder !== '.' && folder !== '') return posix.basename(folder);
  return rootName ?? basename(reader.root);
}
