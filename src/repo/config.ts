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
 * ```
 */
import { formatYamlPath, parseYamlDocument } from '../base/index.js';
import type { Diagnostic, ModuleName, RepoReader } from '../base/index.js';

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
}

export const PART_KEYS = ['fleet', 'catalog', 'apps', 'policy', 'compose'] as const;

/** A repository-relative path that stays inside the repository: no `..`, not absolute. */
function isPlainRelative(path: string): boolean {
  return path !== '' && !path.startsWith('/') && !path.split('/').some((s) => s === '..');
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
  const config: { parts: Record<string, string>; only?: ModuleName[]; skip: ModuleName[] } = {
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
  const problem = (path: (string | number)[], message: string): void => {
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
    problem([], 'labelwise.yaml must be a mapping with `parts`, `only` or `skip`');
    return { config, diagnostics };
  }
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'parts') {
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
        problem(['parts'], '`parts` must map part names to directories');
        continue;
      }
      for (const [part, path] of Object.entries(entry as Record<string, unknown>)) {
        if (!(PART_KEYS as readonly string[]).includes(part))
          problem(
            ['parts', part],
            `unknown part ${JSON.stringify(part)}; expected one of ${PART_KEYS.join(', ')}`,
          );
        else if (typeof path !== 'string' || !isPlainRelative(path))
          problem(
            ['parts', part],
            'a part is a directory inside the repository, relative to its root',
          );
        else config.parts[part] = path.replace(/\/+$/, '');
      }
    } else if (key === 'only' || key === 'skip') {
      const list = Array.isArray(entry) ? entry.join(',') : String(entry);
      const parsed = parseModuleList(list, key);
      if (Array.isArray(parsed)) config[key] = parsed;
      else problem([key], parsed.message);
    } else problem([key], `unknown key ${JSON.stringify(key)}; expected parts, only or skip`);
  }
  return { config, diagnostics };
}

/** Whether `module` is built under `--only`/`--skip` (flags win over labelwise.yaml). */
export function isSelected(module: ModuleName, config: Pick<RepoConfig, 'only' | 'skip'>): boolean {
  if (config.only !== undefined && !config.only.includes(module)) return false;
  return !config.skip.includes(module);
}
