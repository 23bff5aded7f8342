/**
 * Materialises a ServiceDefinition's defaults and checks the rules one field cannot state on its
 * own (cross-field rules). The input has already passed `servicedefinition.schema.json`; the
 * output is a {@link ResolvedService} in which every reference is resolved, so the renderer never
 * meets an absent field. Every problem is returned (not thrown) with file, line and JSON path.
 */
import type { Code } from '../../base/codes.js';
import { LabelwiseError, quote } from '../../base/errors.js';
import type {
  GpuClass,
  Platform,
  PortSpec,
  ResolvedService,
  RouteSpec,
  ServiceKind,
  WorkloadKind,
} from '../types.js';
import { resolveDependencies } from './dependencies.js';
import type { NamedDependency } from './dependencies.js';
import { resolveStorage } from './storage.js';
import type { ReportProblem } from './storage.js';
import { contractWarnings } from './contract-warnings.js';
import { resolveAuth } from './auth.js';
import type { ResolvedAuth } from './auth.js';
import { resolveImportFrom, resolveSecurity } from './extras.js';
import { apiServerRules } from './api-server-rules.js';
import { resolvePorts } from './ports.js';
import type { ServicePorts } from './ports.js';
import { resolveRoutes } from './routes.js';
import { reservedNamespace } from '../definition/platform.js';
import { frontedPorts } from '../render/ports.js';
import type { YamlSource } from '../definition/yaml-source.js';
import { formatPath } from '../definition/yaml-source.js';

type Raw = Record<string, unknown>;
type Path = readonly (string | number)[];

const obj = (value: unknown): Raw =>
  typeof value === 'object' && value !== null ? (value as Raw) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The result of resolving one definition. `service` is undefined when there were errors. */
export interface ResolveResult {
  readonly service: ResolvedService | undefined;
  readonly errors: readonly LabelwiseError[];
  readonly warnings: readonly LabelwiseError[];
  /**
   * Dependencies that name the target's port (`port: http`): they resolve against the target
   * service, so the catalog loader adds them to `service.dependencies` once every service is
   * known. Empty when there are none.
   */
  readonly namedDependencies: readonly NamedDependency[];
}

/** The workload kind a definition renders: the default for `observability.livenessWorkload.kind`. */
export function workloadKindOf(kind: 'container' | 'vm', replicas: number): WorkloadKind {
  if (kind === 'vm') return 'VirtualMachineInstance';
  return replicas > 1 ? 'StatefulSet' : 'Deployment';
}

/** Errors and warnings of one definition, each at its line and path. */
function problemsOf(source: YamlSource) {
  const errors: LabelwiseError[] = [];
  const warnings: LabelwiseError[] = [];
  const reporter =
    (into: LabelwiseError[]): ReportProblem =>
    (code: Code, path: Path, message: string, hint?: string): void => {
      into.push(
        new LabelwiseError(code, `${formatPath(path) || '.'}: ${message}`, {
          source: { file: source.file, ...source.locate(path), path: formatPath(path) || '.' },
          hint,
        }),
      );
    };
  return { errors, warnings, fail: reporter(errors), warn: reporter(warnings) };
}

/** A service's namespace gets a default-deny baseline: it must not be one the platform uses. */
function checkName(name: string, platform: Platform, fail: ReportProblem): void {
  const reserved = reservedNamespace(name, platform);
  if (reserved === undefined) return;
  fail(
    'CATALOG_RESERVED_NAME',
    ['name'],
    `${quote(name)} is ${reserved}; a service's namespace gets a default-deny baseline, which would cut those pods off`,
    'name the service differently',
  );
}

/** `kind` and `source`: exactly one of image (container) or vmTemplate (vm). */
function resolveSource(
  raw: Raw,
  kind: ServiceKind,
  fail: ReportProblem,
): { image?: string; vmTemplate?: string } {
  const src = obj(raw.source);
  const image = typeof src.image === 'string' ? src.image : undefined;
  const vmTemplate = typeof src.vmTemplate === 'string' ? src.vmTemplate : undefined;
  if (kind === 'container') {
    if (image === undefined)
      fail('CATALOG_SOURCE_MISMATCH', ['source'], 'kind container needs source.image');
    if (vmTemplate !== undefined) {
      fail(
        'CATALOG_SOURCE_MISMATCH',
        ['source', 'vmTemplate'],
        'source.vmTemplate is for kind vm',
        'set kind: vm, or remove source.vmTemplate',
      );
    }
    if (raw.vm !== undefined)
      fail('CATALOG_VM_FIELD', ['vm'], 'the vm block applies to kind vm only');
  } else {
    if (vmTemplate === undefined)
      fail('CATALOG_SOURCE_MISMATCH', ['source'], 'kind vm needs source.vmTemplate');
    if (image !== undefined) {
      fail(
        'CATALOG_SOURCE_MISMATCH',
        ['source', 'image'],
        'source.image is for kind container',
        'set kind: container, or use source.vmTemplate',
      );
    }
  }
  return {
    ...(image !== undefined ? { image } : {}),
    ...(vmTemplate !== undefined ? { vmTemplate } : {}),
  };
}

function vmSizes(raw: unknown): ResolvedService['vm'] {
  const vm = obj(raw);
  return {
    cores: typeof vm.cores === 'number' ? vm.cores : 1,
    memory: typeof vm.memory === 'string' ? vm.memory : '2Gi',
    rootDiskSize: typeof vm.rootDiskSize === 'string' ? vm.rootDiskSize : '20Gi',
  };
}

/** Replicas: containers only, and no more than the nodes required anti-affinity can spread over. */
function resolveReplicas(
  availability: Raw,
  kind: ServiceKind,
  platform: Platform,
  fail: ReportProblem,
): number {
  const replicas = typeof availability.replicas === 'number' ? availability.replicas : 1;
  if (replicas > 1 && kind === 'vm') {
    fail(
      'CATALOG_REPLICAS_VM',
      ['availability', 'replicas'],
      'replicas > 1 is for kind container only',
    );
  }
  if (replicas > platform.nodes.schedulable) {
    fail(
      'CATALOG_REPLICAS_NODES',
      ['availability', 'replicas'],
      `${replicas} replicas need ${replicas} schedulable nodes (required anti-affinity), the platform has ${platform.nodes.schedulable}`,
    );
  }
  return replicas;
}

/**
 * LAN exposure: declared non-HTTP ports only (HTTP goes through the Gateway), on the platform's
 * shared address.
 */
function checkLanPorts(
  ports: ServicePorts,
  served: { readonly routes: readonly RouteSpec[]; readonly upstream: PortSpec | undefined },
  platform: Platform,
  fail: ReportProblem,
): void {
  const { routes, upstream } = served;
  ports.declared.forEach((p, i) => {
    if (p.lan !== true) return;
    const path = ['ports', i, 'lan'];
    if (platform.lan === undefined)
      fail(
        'CATALOG_PORT_LAN',
        path,
        'the platform has no LAN address for ports to be exposed on',
        'set lan.address and lan.sourceCIDRs in platform.yaml',
      );
    else if (routes.some((r) => r.port.port === p.port) || upstream?.port === p.port)
      fail(
        'CATALOG_PORT_LAN',
        path,
        `port ${p.name} is served through the Gateway${upstream?.port === p.port ? ' and the forward-auth proxy' : ''}; only non-HTTP ports are exposed on the LAN`,
      );
  });
}

function resolveClients(raw: unknown, name: string, fail: ReportProblem): string[] {
  const clients = list(raw).map(String);
  clients.forEach((client, i) => {
    if (client === name)
      fail('CATALOG_CLIENT_SELF', ['inClusterClients', i], 'a service is not its own client');
  });
  return [...clients].sort();
}

/** The scrape endpoint; never the app port behind forward-auth, which scraping would bypass. */
function resolveMetricsEndpoint(
  metricsRaw: Raw | undefined,
  ports: ServicePorts,
  fronted: { readonly routes: readonly RouteSpec[]; readonly auth: ResolvedAuth },
  fail: ReportProblem,
): { port: PortSpec; path: string } | undefined {
  if (metricsRaw === undefined) return undefined;
  const port = ports.find(metricsRaw.port, ['observability', 'metricsEndpoint', 'port']);
  if (port === undefined) return undefined;
  const { routes, auth } = fronted;
  if (
    auth.mode === 'forward-auth' &&
    frontedPorts({ ingressRoutes: routes, auth: { upstream: auth.upstream } }).has(port.port)
  ) {
    fail(
      'CATALOG_METRICS_BYPASS',
      ['observability', 'metricsEndpoint', 'port'],
      `the metrics port ${port.port} is the app port behind forward-auth; exposing it for scraping would bypass the proxy`,
      'serve metrics on a separate port',
    );
  }
  return { port, path: typeof metricsRaw.path === 'string' ? metricsRaw.path : '/metrics' };
}

/** The workload the liveness rule watches: this service's own, of the kind it renders. */
function resolveLivenessWorkload(
  raw: unknown,
  name: string,
  rendered: WorkloadKind,
  fail: ReportProblem,
): { kind: WorkloadKind; name: string } {
  const livenessRaw = raw === undefined ? undefined : obj(raw);
  const livenessWorkload = {
    kind: (livenessRaw?.kind as WorkloadKind | undefined) ?? rendered,
    name: typeof livenessRaw?.name === 'string' ? livenessRaw.name : name,
  };
  if (livenessWorkload.name === name && livenessWorkload.kind !== rendered) {
    fail(
      'CATALOG_LIVENESS_KIND',
      ['observability', 'livenessWorkload', 'kind'],
      `this service renders a ${rendered}, so a ${livenessWorkload.kind}-shaped liveness rule would never fire`,
      'remove livenessWorkload to follow the rendered kind',
    );
  }
  return livenessWorkload;
}

function resolveHardware(raw: unknown, kind: ServiceKind, warn: ReportProblem) {
  const hardware = obj(raw);
  const gpu = typeof hardware.gpu === 'string' ? (hardware.gpu as GpuClass) : undefined;
  if (gpu !== undefined && kind === 'vm') {
    warn(
      'CATALOG_GPU_IGNORED',
      ['hardware', 'gpu'],
      'hardware.gpu is ignored for kind vm (a VM receives devices through KubeVirt)',
    );
  }
  return gpu !== undefined ? { gpu } : {};
}

function checkFileName(file: string, name: string, warn: ReportProblem): void {
  const base = file.split('/').pop() ?? file;
  if (base !== `${name}.yaml` && base !== `${name}.yml`) {
    warn(
      'CATALOG_FILE_NAME',
      ['name'],
      `the file of service ${quote(name)} is conventionally ${name}.yaml`,
    );
  }
}

function resolveUpdate(raw: unknown): ResolvedService['update'] {
  const update = obj(raw);
  return {
    channel: update.channel === 'beta' || update.channel === 'pinned' ? update.channel : 'stable',
    autoRollbackOnFailedHealth: update.autoRollbackOnFailedHealth !== false,
  };
}

const byLine = (a: LabelwiseError, b: LabelwiseError) =>
  (a.source.line ?? 0) - (b.source.line ?? 0) || (a.source.col ?? 0) - (b.source.col ?? 0);

/**
 * Resolves one schema-valid definition against the platform. Pure; returns every cross-field
 * problem. `source.file` is the repository-relative path used in messages.
 */
export function resolveService(source: YamlSource, platform: Platform): ResolveResult {
  const { errors, warnings, fail, warn } = problemsOf(source);
  const raw = obj(source.value);
  const name = String(raw.name);
  checkName(name, platform, fail);
  const kind = raw.kind === 'vm' ? 'vm' : 'container';
  apiServerRules(raw, name, fail);
  const importFrom = resolveImportFrom(obj(raw.source), kind, fail);
  const security = resolveSecurity(raw.security, kind, fail);
  const from = resolveSource(raw, kind, fail);
  const availability = obj(raw.availability);
  const replicas = resolveReplicas(availability, kind, platform, fail);
  const storage = resolveStorage(raw.storage, kind, fail);
  const observability = obj(raw.observability);
  const metricsRaw =
    observability.metricsEndpoint === undefined ? undefined : obj(observability.metricsEndpoint);
  const routesRaw = list(raw.ingressRoutes);
  const ports = resolvePorts(raw.ports, routesRaw, metricsRaw?.port, fail);
  const routes = resolveRoutes(routesRaw, ports, platform, { fail, warn });
  const routed = routesRaw.length > 0;
  const auth = resolveAuth(raw.auth, { kind, routed, routes }, ports, platform, fail);
  checkLanPorts(ports, { routes, upstream: auth.upstream }, platform, fail);
  const { dependencies, namedDependencies } = resolveDependencies(raw.dependencies, name, fail);
  const inClusterClients = resolveClients(raw.inClusterClients, name, fail);
  const metricsEndpoint = resolveMetricsEndpoint(metricsRaw, ports, { routes, auth }, fail);
  const rendered = workloadKindOf(kind, replicas);
  const livenessWorkload = resolveLivenessWorkload(
    observability.livenessWorkload,
    name,
    rendered,
    fail,
  );
  const hardware = resolveHardware(raw.hardware, kind, warn);
  checkFileName(source.file, name, warn);
  contractWarnings(raw, { kind, storage, security, ports: ports.sorted }, platform, warn);

  errors.sort(byLine);
  warnings.sort(byLine);
  if (errors.length > 0) return { service: undefined, errors, warnings, namedDependencies: [] };
  const { mode, apiRoutes, skipAuthRoutes, upstream } = auth;
  return {
    service: {
      name,
      file: source.file,
      kind,
      ...from,
      importFrom,
      vm: vmSizes(raw.vm),
      exposure: raw.exposure === 'public' ? 'public' : 'internal',
      egress: raw.egress === 'vpn' ? 'vpn' : 'internet',
      storage,
      dependencies,
      inClusterClients,
      ports: ports.sorted,
      auth: {
        mode,
        apiRoutes,
        skipAuthRoutes,
        ...(mode === 'forward-auth' && upstream !== undefined ? { upstream } : {}),
      },
      security,
      update: resolveUpdate(raw.update),
      observability: {
        metrics: observability.metrics !== false,
        ...(metricsEndpoint !== undefined ? { metricsEndpoint } : {}),
        livenessWorkload,
      },
      availability: {
        replicas,
        acknowledgeStorageMigration: availability.acknowledgeStorageMigration === true,
      },
      hardware,
      ingressRoutes: routes,
    },
    errors,
    warnings,
    namedDependencies,
  };
}
