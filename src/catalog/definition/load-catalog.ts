/**
 * From file texts to a validated, resolved catalog: parse each YAML file with positions,
 * validate it against its JSON Schema, materialise defaults, then check the rules that span
 * services. Pure (the texts and compiled schemas are passed in) and exhaustive: every problem
 * of every file is returned, with file, line and JSON path.
 */
import type { ValidateFunction } from 'ajv';
import { LabelwiseError, quote } from '../../base/errors.js';
import type { NamedDependency } from '../resolve/dependencies.js';
import type { ReportProblem } from '../resolve/storage.js';
import { resolveService } from '../resolve/resolve-service.js';
import { dependencyKey, resolveNamedDependencies } from '../resolve/named-dependencies.js';
import { resolvePlatform } from './platform.js';
import { platformRules, platformWarnings } from './platform-rules.js';
import { isProxyPort, proxyHint, proxyMessage } from '../resolve/named-dependencies.js';
import { clientPorts } from '../render/ports.js';
import type { SchemaValidator } from './schema-validate.js';
import type { UpstreamValidators } from '../crds/validate.js';
import { validateAgainstSchema } from './schema-validate.js';
import type { Platform, ResolvedService } from '../types.js';
import type { YamlSource } from './yaml-source.js';
import { formatPath, parseYamlSource } from './yaml-source.js';
import { pushAll } from '../../base/index.js';

/** One file's text, named by its repository-relative path. */
export interface SourceFile {
  readonly file: string;
  readonly text: string;
}

/** The catalog directory's contents. */
export interface CatalogInput {
  /** `platform.yaml`, or undefined when the directory has none. */
  readonly platform: SourceFile | undefined;
  /** Every other `*.yaml`/`*.yml` file: one ServiceDefinition each. */
  readonly definitions: readonly SourceFile[];
  /** Repository-relative path of the catalog directory, for messages. */
  readonly dir: string;
  /** A `platform.yml` found instead of `platform.yaml` (named in the missing-platform error). */
  readonly misnamedPlatform?: string;
}

/** The compiled schemas a catalog is checked against. */
export interface CatalogSchemas {
  readonly serviceDefinition: SchemaValidator;
  readonly platform: SchemaValidator;
  readonly virtualMachine: ValidateFunction;
  /**
   * The upstream CRD schemas every rendered custom resource is checked against (strict, CEL).
   * Without them the run skips that check.
   */
  readonly upstream?: UpstreamValidators;
}

/** A loaded catalog. `platform` is undefined when platform.yaml is missing or invalid. */
export interface LoadedCatalog {
  readonly platform: Platform | undefined;
  /** Services that resolved cleanly, sorted by name. */
  readonly services: readonly ResolvedService[];
  readonly errors: readonly LabelwiseError[];
  readonly warnings: readonly LabelwiseError[];
}

function rawList(source: YamlSource, field: string): Record<string, unknown>[] {
  const value = (source.value as Record<string, unknown> | undefined)?.[field];
  return Array.isArray(value) ? (value as Record<string, unknown>[]) : [];
}

/** What the rules across services look services up in. */
interface CatalogView {
  readonly byName: ReadonlyMap<string, ResolvedService>;
  /** Names of definitions that failed to load (see {@link crossServiceRules}). */
  readonly invalid: ReadonlySet<string>;
  readonly platform: Platform;
}

/** Reports a cross-service problem in the file of the service it is about, at its line. */
function reportersOf(
  service: ResolvedService,
  source: YamlSource | undefined,
  into: { readonly errors: LabelwiseError[]; readonly warnings: LabelwiseError[] },
): { fail: ReportProblem; warn: ReportProblem } {
  const to =
    (list: LabelwiseError[]): ReportProblem =>
    (code, path, message, hint) => {
      const pos = source?.locate(path) ?? { line: 1, col: 1 };
      const shown = formatPath(path);
      list.push(
        new LabelwiseError(code, `${shown}: ${message}`, {
          source: { file: service.file, ...pos, path: shown },
          hint,
        }),
      );
    };
  return { fail: to(into.errors), warn: to(into.warnings) };
}

/**
 * Each dependency names a service of the catalog, a port it exposes to clients (never its
 * forward-auth proxy's), and is accepted by it. `index` gives its entry in the definition.
 */
function checkDependencies(
  service: ResolvedService,
  index: (dependency: ResolvedService['dependencies'][number]) => number,
  catalog: CatalogView,
  report: { fail: ReportProblem; warn: ReportProblem },
): void {
  for (const dependency of service.dependencies) {
    const path = ['dependencies', Math.max(index(dependency), 0)];
    const target = catalog.byName.get(dependency.to);
    if (target === undefined) {
      if (!catalog.invalid.has(dependency.to))
        report.fail(
          'CATALOG_DEPENDENCY_UNKNOWN',
          [...path, 'to'],
          `no service named ${quote(dependency.to)} in the catalog`,
        );
      continue;
    }
    const exposed = clientPorts(target);
    if (isProxyPort(target, dependency, catalog.platform)) {
      report.fail(
        'CATALOG_DEPENDENCY_PROXY',
        [...path, 'port'],
        proxyMessage(target, dependency.port),
        proxyHint(target, service.name),
      );
    } else if (
      !exposed.some((p) => p.port === dependency.port && p.protocol === dependency.protocol)
    ) {
      report.fail(
        'CATALOG_DEPENDENCY_PORT',
        [...path, 'port'],
        `${dependency.to} does not expose ${dependency.port}/${dependency.protocol}`,
        `${dependency.to} exposes: ${exposed.map((p) => `${p.port}/${p.protocol}`).join(', ') || 'nothing'}`,
      );
    }
    if (!target.inClusterClients.includes(service.name)) {
      report.warn(
        'CATALOG_DEPENDENCY_NOT_ACCEPTED',
        path,
        `${dependency.to} does not list ${service.name} in inClusterClients, so its policy drops this traffic`,
        `add ${service.name} to inClusterClients of ${dependency.to}`,
      );
    }
  }
}

/** Each in-cluster client names a service of the catalog. */
function checkClients(
  service: ResolvedService,
  source: YamlSource | undefined,
  catalog: CatalogView,
  warn: ReportProblem,
): void {
  const raw = ((source?.value as Record<string, unknown> | undefined)?.inClusterClients ??
    []) as unknown[];
  for (const client of service.inClusterClients) {
    if (catalog.byName.has(client) || catalog.invalid.has(client)) continue;
    warn(
      'CATALOG_CLIENT_UNKNOWN',
      ['inClusterClients', Math.max(raw.indexOf(client), 0)],
      `no service named ${quote(client)} in the catalog`,
    );
  }
}

/** A host is routed by one service: the first (by name) keeps it, later ones are refused. */
function checkHostOwners(
  service: ResolvedService,
  source: YamlSource | undefined,
  hostOwner: Map<string, string>,
  fail: ReportProblem,
): void {
  const routes = source === undefined ? [] : rawList(source, 'ingressRoutes');
  for (const route of service.ingressRoutes) {
    const owner = hostOwner.get(route.host);
    if (owner !== undefined && owner !== service.name) {
      const index = routes.findIndex((r) => r.host === route.host);
      fail(
        'CATALOG_ROUTE_HOST',
        ['ingressRoutes', Math.max(index, 0), 'host'],
        `host ${quote(route.host)} is already routed by ${owner}`,
      );
    }
    hostOwner.set(route.host, owner ?? service.name);
  }
}

/**
 * Rules across services: references to other services, their ports, and shared hostnames.
 * `invalid` holds the names of definitions that failed to load: a reference to one of them is
 * neither "unknown" nor checkable, and its own file's errors already say what to fix, so it is
 * not reported again against every service that names it.
 */
function crossServiceRules(
  services: readonly ResolvedService[],
  sources: ReadonlyMap<string, YamlSource>,
  platform: Platform,
  invalid: ReadonlySet<string>,
  namedIndex: ReadonlyMap<string, number>,
): { errors: LabelwiseError[]; warnings: LabelwiseError[] } {
  const problems = { errors: [] as LabelwiseError[], warnings: [] as LabelwiseError[] };
  const catalog: CatalogView = {
    byName: new Map(services.map((s) => [s.name, s])),
    invalid,
    platform,
  };
  const hostOwner = new Map<string, string>();
  for (const service of services) {
    const source = sources.get(service.name);
    const report = reportersOf(service, source, problems);
    const deps = source === undefined ? [] : rawList(source, 'dependencies');
    const index = (dependency: ResolvedService['dependencies'][number]) =>
      namedIndex.get(dependencyKey(service.name, dependency)) ??
      deps.findIndex((d) => d.to === dependency.to && d.port === dependency.port);
    checkDependencies(service, index, catalog, report);
    checkClients(service, source, catalog, report.warn);
    checkHostOwners(service, source, hostOwner, report.fail);
  }
  return problems;
}

/**
 * platform.yaml: parsed, validated and resolved, or undefined when it is missing or refused.
 * Its problems go to `errors` and `warnings`, at platform.yaml and their line.
 */
function loadPlatform(
  input: CatalogInput,
  schemas: CatalogSchemas,
  errors: LabelwiseError[],
  warnings: LabelwiseError[],
): Platform | undefined {
  let platform: Platform | undefined;
  if (input.platform === undefined) {
    errors.push(
      new LabelwiseError(
        'CATALOG_PLATFORM_MISSING',
        input.misnamedPlatform === undefined
          ? `the catalog has no platform.yaml, so none of its ${input.definitions.length} definitions can be checked or rendered`
          : `the catalog has no platform.yaml (${input.misnamedPlatform} is not read), so none of its ${input.definitions.length} definitions can be checked or rendered`,
        {
          source: { file: `${input.dir}/platform.yaml` },
          hint:
            input.misnamedPlatform === undefined
              ? 'create platform.yaml with the platform settings (see docs/catalog.md)'
              : `rename ${input.misnamedPlatform} to platform.yaml`,
        },
      ),
    );
  } else {
    const source = parseYamlSource(input.platform.file, input.platform.text);
    const problems =
      source.errors.length > 0
        ? [...source.errors]
        : validateAgainstSchema(source, schemas.platform);
    pushAll(errors, problems);
    if (problems.length === 0) {
      const resolved = resolvePlatform(source.value);
      const refused = platformRules(source, resolved);
      pushAll(errors, refused);
      pushAll(warnings, platformWarnings(source, resolved));
      if (refused.length === 0) platform = resolved;
    }
  }
  return platform;
}

/**
 * Loads a catalog. Never throws for bad input: every YAML, schema, cross-field and cross-service
 * problem is returned. Only services without errors are resolved into `services`.
 */
export function loadCatalog(input: CatalogInput, schemas: CatalogSchemas): LoadedCatalog {
  const errors: LabelwiseError[] = [];
  const warnings: LabelwiseError[] = [];
  const platform = loadPlatform(input, schemas, errors, warnings);

  let services: ResolvedService[] = [];
  const named = new Map<string, readonly NamedDependency[]>();
  const sources = new Map<string, YamlSource>();
  const fileOf = new Map<string, string>();
  // Names of definitions that did not load: the `name` they declare when it can be read, and
  // the file's base name (the `<name>.yaml` convention) when the text does not even parse.
  const failed = new Set<string>();
  const markFailed = (file: string, value: unknown): void => {
    failed.add((file.split('/').pop() ?? file).replace(/\.ya?ml$/, ''));
    const name = (value as { name?: unknown } | null | undefined)?.name;
    if (typeof name === 'string') failed.add(name);
  };
  for (const definition of [...input.definitions].sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : 0,
  )) {
    const source = parseYamlSource(definition.file, definition.text);
    if (source.errors.length > 0) {
      pushAll(errors, source.errors);
      markFailed(definition.file, undefined);
      continue;
    }
    const schemaErrors = validateAgainstSchema(source, schemas.serviceDefinition);
    if (schemaErrors.length > 0) {
      pushAll(errors, schemaErrors);
      markFailed(definition.file, source.value);
      continue;
    }
    const name = String((source.value as { name: string }).name);
    const previous = fileOf.get(name);
    if (previous !== undefined) {
      errors.push(
        new LabelwiseError(
          'CATALOG_DUPLICATE_SERVICE',
          `service ${quote(name)} is also defined in ${previous}`,
          {
            source: {
              file: definition.file,
              ...source.locate(['name']),
              path: 'name',
            },
          },
        ),
      );
      continue;
    }
    fileOf.set(name, definition.file);
    if (platform === undefined) continue; // cross-field rules need the platform
    const result = resolveService(source, platform);
    pushAll(errors, result.errors);
    pushAll(warnings, result.warnings);
    if (result.service !== undefined) {
      services.push(result.service);
      sources.set(name, source);
      named.set(name, result.namedDependencies);
    } else {
      markFailed(definition.file, source.value);
    }
  }
  services.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (platform !== undefined) {
    // A name that also belongs to a valid service (a duplicate in another file) is known.
    for (const service of services) failed.delete(service.name);
    const resolution = resolveNamedDependencies(services, named, sources, platform, failed);
    services = resolution.services;
    pushAll(errors, resolution.errors);
    const cross = crossServiceRules(services, sources, platform, failed, resolution.indexOf);
    pushAll(errors, cross.errors);
    pushAll(warnings, cross.warnings);
  }
  return { platform, services, errors, warnings };
}
