/**
 * `labelwise.yaml` at a repository's root: where each part lives and which parts to build.
 * Optional; without it the defaults hold (`fleet/`, `catalog/`, `apps/`, `policy/`, `compose/`).
 *
 * ```yaml
 * parts:
 *   fleet: infra/fleet
 *   catalog: k8s/catalog
 *   apps: k8s/apps
 *   policy: k8s/linkerd
 *   compose: docker
 * skip: [anchor]
 * policy:               # see config-policy.ts
 *   namespace: booksapp
 * accept:
 *   - {code: POLICY_AUTHZ_BROADER_THAN_ROUTES, reason: namespace-wide on purpose}
 * compose:
 *   projects:            # what `docker compose -f … -f …` is run with; replaces discovery
 *     - files: [docker-compose.yml, docker-compose.prod.yml]
 *     - files: [stacks/media/compose.yaml]
 *       name: media      # `-p`, when the stack is run with one
 * ```
 */
import { formatYamlPath, parseYamlDocument } from '../base/index.js';
import type { AcceptRule, Diagnostic, ModuleName, RepoReader } from '../base/index.js';
import type { ListedProject } from '../anchor/index.js';
import { acceptRules, policyConfig } from './config-policy.js';
import type { PolicyConfig } from './config-policy.js';

export const CONFIG_FILE = 'labelwise.yaml';

export const BUILD_MODULES: readonly ModuleName[] = ['fleet', 'catalog', 'policy', 'anchor'];

export interface PartPaths {
  readonly fleet?: string;
  readonly catalog?: string;
  readonly apps?: string;
  readonly policy?: string;
  readonly compose?: string;
}

export interface RepoConfig {
  readonly parts: PartPaths;
  readonly only?: readonly ModuleName[];
  readonly skip: readonly ModuleName[];
  /** Compose projects listed under `compose.projects`. */
  readonly composeProjects?: readonly ListedProject[];
  /** `policy:`: what the policy stage is run with (see config-policy.ts). */
  readonly policy?: PolicyConfig;
  /** `accept:`: findings the repository marks intended (see base/accepted.ts). */
  readonly accept?: readonly AcceptRule[];
}

type Problem = (path: (string | number)[], message: string) => void;

const PROJECTS_SHAPE =
  '`compose.projects` is a list of `{files: [FILE, …], name?: NAME}`, files relative to the repository root';

/** One entry of `compose.projects`, or undefined (after reporting why) when it is malformed. */
function listedProject(entry: unknown, at: number, problem: Problem): ListedProject | undefined {
  const path = ['compose', 'projects', at];
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    problem(path, PROJECTS_SHAPE);
    return undefined;
  }
  const { files, name, ...rest } = entry as Record<string, unknown>;
  for (const key of Object.keys(rest))
    problem([...path, key], `unknown key ${JSON.stringify(key)}; expected files or name`);
  if (
    !Array.isArray(files) ||
    files.length === 0 ||
    !files.every((f) => typeof f === 'string' && isPlainRelative(f))
  ) {
    problem([...path, 'files'], PROJECTS_SHAPE);
    return undefined;
  }
  if (name !== undefined && typeof name !== 'string') {
    problem([...path, 'name'], 'a project name is a string');
    return undefined;
  }
  return { files: files as string[], ...(name !== undefined ? { name } : {}) };
}

/** `compose:` — only `projects:` so far. */
function composeProjects(entry: unknown, problem: Problem): ListedProject[] | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    problem(['compose'], '`compose` must be a mapping with `projects`');
    return undefined;
  }
  const { projects, ...rest } = entry as Record<string, unknown>;
  for (const key of Object.keys(rest))
    problem(['compose', key], `unknown key ${JSON.stringify(key)}; expected projects`);
  if (!Array.isArray(projects)) {
    problem(['compose', 'projects'], PROJECTS_SHAPE);
    return undefined;
  }
  const listed = projects.map((p, i) => listedProject(p, i, problem));
  return listed.every((p) => p !== undefined) ? (listed as ListedProject[]) : undefined;
}

const TOP_KEYS = 'parts, only, skip, compose, policy or accept';

export const PART_KEYS = ['fleet', 'catalog', 'apps', 'policy', 'compose'] as const;

/** A repository-relative path that stays inside the repository: no `..`, not absolute. */
function isPlainRelative(path: string): boolean {
  return path !== '' && !path.startsWith('/') && !path.split('/').some((s) => s === '..');
}

/** `parts:` into `out`: part name → folder, each checked. */
function readParts(entry: unknown, problem: Problem, out: Record<string, string>): void {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    problem(['parts'], '`parts` must map part names to directories');
    return;
  }
  for (const [part, path] of Object.entries(entry as Record<string, unknown>)) {
    if (!(PART_KEYS as readonly string[]).includes(part))
      problem(
        ['parts', part],
        `unknown part ${JSON.stringify(part)}; expected one of ${PART_KEYS.join(', ')}`,
      );
    else if (typeof path !== 'string' || !isPlainRelative(path))
      problem(['parts', part], 'a part is a directory inside the repository, relative to its root');
    else out[part] = path.replace(/\/+$/, '');
  }
}

/** Parses a module list (`fleet,policy`) as given to `--only`/`--skip`; unknown names are errors. */
export function parseModuleList(text: string, flag: string): ModuleName[] | Diagnostic {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(BUILD_MODULES as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0)
    return {
      severity: 'error',
      code: 'CLI_USAGE',
      message: `${flag} takes a comma-separated list of ${BUILD_MODULES.join(', ')}; got ${JSON.stringify(text)}`,
    };
  return names as ModuleName[];
}

/** Reads `labelwise.yaml` when present. Problems are diagnostics; the defaults then hold. */
export function readRepoConfig(reader: RepoReader): {
  config: RepoConfig;
  diagnostics: Diagnostic[];
} {
  const config: {
    parts: Record<string, string>;
    only?: ModuleName[];
    skip: ModuleName[];
    composeProjects?: ListedProject[];
    policy?: PolicyConfig;
    accept?: AcceptRule[];
  } = {
    parts: {},
    skip: [],
  };
  if (reader.kind(CONFIG_FILE) !== 'file') return { config, diagnostics: [] };
  const text = reader.readText(CONFIG_FILE);
  if (text === undefined) return { config, diagnostics: [] };
  const { document, diagnostics } = parseYamlDocument(text, {
    file: CONFIG_FILE,
    code: 'BUILD_CONFIG_INVALID',
  });
  if (document === undefined || document.value == null) return { config, diagnostics };
  const problem: Problem = (path, message) => {
    const at = document.locate(path);
    diagnostics.push({
      severity: 'error',
      code: 'BUILD_CONFIG_INVALID',
      file: CONFIG_FILE,
      line: at.line,
      column: at.column,
      path: formatYamlPath(path),
      message,
    });
  };
  const value = document.value;
  if (typeof value !== 'object' || Array.isArray(value)) {
    problem([], `labelwise.yaml must be a mapping with ${TOP_KEYS}`);
    return { config, diagnostics };
  }
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'parts') readParts(entry, problem, config.parts);
    else if (key === 'only' || key === 'skip') {
      const list = Array.isArray(entry) ? entry.join(',') : String(entry);
      const parsed = parseModuleList(list, key);
      if (Array.isArray(parsed)) config[key] = parsed;
      else problem([key], parsed.message);
    } else if (key === 'compose') {
      const listed = composeProjects(entry, problem);
      if (listed !== undefined) config.composeProjects = listed;
    } else if (key === 'policy') {
      const policy = policyConfig(entry, problem);
      if (policy !== undefined) config.policy = policy;
    } else if (key === 'accept') config.accept = acceptRules(entry, problem);
    else problem([key], `unknown key ${JSON.stringify(key)}; expected ${TOP_KEYS}`);
  }
  return { config, diagnostics };
}

/** Whether `module` is built under `--only`/`--skip` (flags win over labelwise.yaml). */
export function isSelected(module: ModuleName, config: Pick<RepoConfig, 'only' | 'skip'>): boolean {
  if (config.only !== undefined && !config.only.includes(module)) return false;
  return !config.skip.includes(module);
}
