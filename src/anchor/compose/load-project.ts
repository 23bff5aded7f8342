/**
 * Loads a Compose project the way the Compose specification and compose-go load it, for the
 * fields the anchor check needs. Pure over a {@link ComposeFileSystem} (the shared repository
 * reader, or files in memory). The order of the steps is Compose's:
 *
 * 1. `.env` in the project directory (the first file's), read with the shell environment for
 *    its own interpolation; the shell wins over it.
 * 2. The project name: `--project`, else `COMPOSE_PROJECT_NAME` (shell or `.env`), both refused
 *    when invalid; else the last `name:` (interpolated, normalised); else the directory name
 *    (normalised). `COMPOSE_PROJECT_NAME` is then set to it for interpolation.
 * 3. Per file, in order (and per document): YAML aliases and merge keys expanded, `!reset`
 *    values dropped, every string interpolated, typed fields cast (`enable_ipv6: "true"`),
 *    short forms rewritten into long ones, `include:` imported, `extends:` followed (same file
 *    or another file), then merged over the files before it (after dropping what
 *    `!reset`/`!override` name): `merge-files.ts`.
 * 4. Profiles (`--profile`, else `COMPOSE_PROFILES`): services with profiles none of which is
 *    active are left out.
 * 5. Per service, `env_file:` files (relative to the project directory) under `environment:`.
 */
import { posix } from 'node:path';
import { compareText, pushAll } from '../../base/index.js';
import type { Diagnostic } from '../../base/index.js';
import type { ComposeProject, ComposeService, Located, Report } from './compose-model.js';
import { serviceModel } from './compose-model.js';
import { scalarString } from './compose-tree.js';
import type { MapNode, TreeNode } from './compose-tree.js';
import { readTrees } from './compose-file.js';
import type { ComposeFileSystem, LoadContext } from './compose-file.js';
import { parseDotEnv } from './dotenv.js';
import type { Lookup } from './interpolate.js';
import { fillDependencyDefaults } from './compose-normalise.js';
import { mergeFiles } from './merge-files.js';
import { keyLines, projectName } from './project-name.js';

export type { ComposeFileSystem } from './compose-file.js';

export interface ComposeLoadOptions {
  /** Compose files, repository-relative, merged in order (`-f a -f b`). */
  readonly files: readonly string[];
  readonly fs: ComposeFileSystem;
  /** The project directory's own name, the last fallback for the project name. */
  readonly directoryName: string;
  /** `--project`. Default: none. */
  readonly project?: string | undefined;
  /** The shell environment; wins over `.env`. Default: none (only `.env`). */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** `--profile`. Default: `COMPOSE_PROFILES`, else none. */
  readonly profiles?: readonly string[] | undefined;
  /**
   * When no profile is chosen (no `--profile`, no `COMPOSE_PROFILES`), keep every service, so a
   * check covers every profile combination. Default: false (services with profiles left out, as
   * Compose runs them).
   */
  readonly everyProfile?: boolean;
}

export interface ComposeLoadResult {
  readonly project: ComposeProject;
  /** Every problem, from the files, the variables and the reader. */
  readonly diagnostics: Diagnostic[];
  /** The merged tree, every service field in its long form, before profiles are applied. */
  readonly merged: MapNode;
}

/** Loads and merges the project. Never throws for bad input. */
export function loadComposeProject(options: ComposeLoadOptions): ComposeLoadResult {
  const { fs } = options;
  const before = fs.diagnostics.length;
  const diagnostics: Diagnostic[] = [];
  const report: Report = (severity, code, message, where, service) => {
    diagnostics.push({
      severity,
      code,
      message,
      file: where.file,
      line: where.line,
      column: where.column,
      ...(service !== undefined ? { object: `service ${service}` } : {}),
    });
  };
  const first = options.files[0] ?? 'compose.yaml';
  const projectDir = posix.dirname(first);
  const shell = options.environment ?? {};
  const shellLookup: Lookup = (name) =>
    Object.prototype.hasOwnProperty.call(shell, name) && typeof shell[name] === 'string'
      ? shell[name]
      : undefined;

  // 1. `.env`, under the shell.
  const variables = new Map<string, string>();
  const dotEnvLines = new Map<string, number>();
  const dotEnvPath = posix.join(projectDir, '.env');
  if (fs.exists(dotEnvPath)) {
    const text = fs.readText(dotEnvPath);
    if (text !== undefined) {
      const parsed = parseDotEnv(text, shellLookup);
      for (const p of parsed.problems)
        report(p.severity, 'ANCHOR_COMPOSE_ENV_FILE', p.message, {
          file: dotEnvPath,
          line: p.line,
          column: 1,
        });
      for (const [k, v] of parsed.values) variables.set(k, v);
      for (const [k, line] of keyLines(text)) dotEnvLines.set(k, line);
    }
  }
  for (const key of Object.keys(shell)) {
    const value = shellLookup(key);
    if (value !== undefined) variables.set(key, value);
  }
  const lookup: Lookup = (name) => variables.get(name);
  const base = { fs, lookup, report, projectDir };

  // Read every file first: the project name may come from any of them.
  const trees = options.files.flatMap((file) => readTrees(file, base));

  // 2. The project name.
  const name = projectName(options, trees, variables, dotEnvLines, dotEnvPath, report);
  variables.set('COMPOSE_PROJECT_NAME', name);

  // 3. Interpolate, include, extend and merge, file by file.
  const context: LoadContext = { ...base, others: new Map() };
  const merged = mergeFiles(trees, context);
  fillDependencyDefaults(merged);

  // 4. Profiles, 5. env files, and the model.
  const project = projectModel(name, merged, options, context);
  pushAll(diagnostics, fs.diagnostics.slice(before));
  return { project, diagnostics, merged };
}

function projectModel(
  name: string,
  merged: MapNode,
  options: ComposeLoadOptions,
  context: LoadContext,
): ComposeProject {
  const chosen =
    options.profiles ??
    (context.lookup('COMPOSE_PROFILES') ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
  const active = chosen.length === 0 && options.everyProfile === true ? ['*'] : chosen;
  const ipv6Networks = new Set<string>();
  const networks = merged.entries.get('networks')?.value;
  if (networks?.kind === 'map')
    for (const [network, entry] of networks.entries) {
      const v = entry.value;
      if (v.kind === 'map' && v.entries.get('enable_ipv6')?.value.kind === 'scalar') {
        const flag = v.entries.get('enable_ipv6')?.value;
        if (flag?.kind === 'scalar' && flag.value === true) ipv6Networks.add(network);
      }
    }
  const services: ComposeService[] = [];
  const disabled: string[] = [];
  const servicesNode = merged.entries.get('services');
  if (servicesNode !== undefined && servicesNode.value.kind !== 'map') {
    if (!(servicesNode.value.kind === 'scalar' && servicesNode.value.value === null))
      context.report(
        'error',
        'ANCHOR_COMPOSE_SHAPE',
        '"services" must be a mapping of service names',
        servicesNode.value.where,
      );
  } else if (servicesNode !== undefined && servicesNode.value.kind === 'map') {
    for (const [service, entry] of servicesNode.value.entries) {
      // `web:` with nothing under it is an empty service (compose-go's fixEmptyNotNull).
      const body: TreeNode =
        entry.value.kind === 'scalar' && entry.value.value === null
          ? { kind: 'map', where: entry.value.where, entries: new Map() }
          : entry.value;
      if (body.kind !== 'map') {
        context.report(
          'error',
          'ANCHOR_COMPOSE_SHAPE',
          `service ${JSON.stringify(service)} must be a mapping`,
          entry.key,
          service,
        );
        continue;
      }
      const envFile = readEnvFiles(body, service, context);
      const model = serviceModel(
        service,
        body,
        entry.key,
        { envFile, lookup: context.lookup },
        context.report,
      );
      const enabled =
        model.profiles.length === 0 ||
        active.includes('*') ||
        model.profiles.some((p) => active.includes(p));
      if (enabled) services.push(model);
      else disabled.push(service);
    }
  }
  services.sort((a, b) => compareText(a.name, b.name));
  disabled.sort(compareText);
  return { name, services, disabled, ipv6Networks };
}

/** The variables of a service's `env_file:` files, later files winning. */
function readEnvFiles(
  body: MapNode,
  service: string,
  context: LoadContext,
): Map<string, Located<string>> {
  const out = new Map<string, Located<string>>();
  const node = body.entries.get('env_file')?.value;
  if (node === undefined || (node.kind === 'scalar' && node.value === null)) return out;
  const items = node.kind === 'seq' ? node.items : [node];
  for (const item of items) {
    let path: string | undefined;
    let required = true;
    if (item.kind === 'map') {
      path = scalarString(item.entries.get('path')?.value);
      const req = item.entries.get('required')?.value;
      if (req?.kind === 'scalar' && (req.value === false || req.value === 'false'))
        required = false;
    } else path = scalarString(item);
    if (path === undefined || path === '') {
      context.report(
        'error',
        'ANCHOR_COMPOSE_SHAPE',
        'env_file entries must be paths or {path, required}',
        item.where,
        service,
      );
      continue;
    }
    const full = posix.isAbsolute(path)
      ? path
      : posix.normalize(posix.join(context.projectDir, path));
    // A path leaving the repository is the reader's to refuse (with its own warning).
    const inside = !posix.isAbsolute(full) && !full.startsWith('../');
    if (inside && !context.fs.exists(full)) {
      if (required)
        context.report(
          'error',
          'ANCHOR_COMPOSE_ENV_FILE',
          `env_file ${JSON.stringify(full)} of service ${JSON.stringify(service)} does not exist`,
          item.where,
          service,
        );
      continue;
    }
    if (!required && !context.fs.exists(full)) continue;
    const text = context.fs.readText(full);
    if (text === undefined) continue; // the reader says why (missing, outside the repository, …)
    const parsed = parseDotEnv(text, context.lookup);
    for (const p of parsed.problems)
      context.report(
        p.severity,
        'ANCHOR_COMPOSE_ENV_FILE',
        p.message,
        { file: full, line: p.line, column: 1 },
        service,
      );
    const lines = keyLines(text);
    for (const [k, v] of parsed.values)
      out.set(k, { value: v, file: full, line: lines.get(k) ?? 1, column: 1 });
  }
  return out;
}
