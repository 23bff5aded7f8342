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
  Protocol,
  ResolvedService,
  RouteSpec,
  WorkloadKind,
} from '../types.js';
import { routeName } from '../render/labels.js';
import { WILDCARD_HINT, wildcardProblem } from './route-hosts.js';
import { resolveDependencies } from './dependencies.js';
import type { NamedDependency } from './dependencies.js';
import { resolveStorage } from './storage.js';
import { contractWarnings } from './contract-warnings.js';
import { resolveAuth } from './auth.js';
import { resolveImportFrom, resolveSecurity } from './extras.js';
import { apiServerRules } from './api-server-rules.js';
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

/**
 * The ports derived when a definition lists none: every numeric route port (`http`, or
 * `http-<port>` when there are several) and a numeric metrics port (`metrics`), all TCP.
 */
function derivePorts(routes: unknown[], metricsPort: unknown): PortSpec[] {
  const routed = [
    ...new Set(routes.map((r) => obj(r).port).filter((p): p is number => typeof p === 'number')),
  ].sort((a, b) => a - b);
  const ports: PortSpec[] = routed.map((port) => ({
    name: routed.length === 1 ? 'http' : `http-${port}`,
    port,
    protocol: 'TCP',
  }));
  if (typeof metricsPort === 'number' && !routed.includes(metricsPort)) {
    ports.push({ name: 'metrics', port: metricsPort, protocol: 'TCP' });
  }
  return ports;
}

/**
 * Resolves one schema-valid definition against the platform. Pure; returns every cross-field
 * problem. `file` is the repository-relative path used in messages.
 */
export function resolveService(source: YamlSource, platform: Platform): ResolveResult {
  const errors: LabelwiseError[] = [];
  const warnings: LabelwiseError[] = [];
  const file = source.file;
  const at = (path: Path) => ({ file, ...source.locate(path), path: formatPath(path) || '.' });
  const fail = (code: Code, path: Path, message: string, hint?: string): void => {
    errors.push(
      new LabelwiseError(code, `${formatPath(path) || '.'}: ${message}`, {
        source: at(path),
        hint,
      }),
    );
  };
  const warn = (code: Code, path: Path, message: string, hint?: string): void => {
    warnings.push(
      new LabelwiseError(code, `${formatPath(path) || '.'}: ${message}`, {
        source: at(path),
        hint,
      }),
    );
  };

  const raw = obj(source.value);
  const name = String(raw.name);
  const reserved = reservedNamespace(name, platform);
  if (reserved !== undefined) {
    fail(
      'CATALOG_RESERVED_NAME',
      ['name'],
      `${quote(name)} is ${reserved}; a service's namespace gets a default-deny baseline, which would cut those pods off`,
      'name the service differently',
    );
  }
  const kind = raw.kind === 'vm' ? 'vm' : 'container';
  apiServerRules(raw, name, fail);
  const src = obj(raw.source);
  const importFrom = resolveImportFrom(src, kind, fail);
  const security = resolveSecurity(raw.security, kind, fail);
  const image = typeof src.image === 'string' ? src.image : undefined;
  const vmTemplate = typeof src.vmTemplate === 'string' ? src.vmTemplate : undefined;

  // kind + source: exactly one of image (container) or vmTemplate (vm).
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
  const vmRaw = obj(raw.vm);
  const vm = {
    cores: typeof vmRaw.cores === 'number' ? vmRaw.cores : 1,
    memory: typeof vmRaw.memory === 'string' ? vmRaw.memory : '2Gi',
    rootDiskSize: typeof vmRaw.rootDiskSize === 'string' ? vmRaw.rootDiskSize : '20Gi',
  };

  // availability
  const availability = obj(raw.availability);
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

  const storage = resolveStorage(raw.storage, kind, fail);

  // ports: explicit, or derived from routes and the metrics endpoint.
  const observability = obj(raw.observability);
  const metricsRaw =
    observability.metricsEndpoint === undefined ? undefined : obj(observability.metricsEndpoint);
  const routesRaw = list(raw.ingressRoutes);
  const explicitPorts = raw.ports !== undefined;
  const ports: PortSpec[] = explicitPorts
    ? list(raw.ports).map((p) => {
        const o = obj(p);
        return {
          name: String(o.name),
          port: Number(o.port),
          protocol: (o.protocol === 'UDP' ? 'UDP' : 'TCP') as Protocol,
          ...(o.lan === true ? { lan: true } : {}),
        };
      })
    : derivePorts(routesRaw, metricsRaw?.port);
  // A numbered metrics endpoint the ports do not list renders its own named port (the contract:
  // "renders a named Service port"); a named one must be declared.
  if (
    explicitPorts &&
    typeof metricsRaw?.port === 'number' &&
    !ports.some((p) => p.port === metricsRaw.port && p.protocol === 'TCP')
  ) {
    const names = new Set(ports.map((p) => p.name));
    const metricsName = names.has('metrics') ? `metrics-${metricsRaw.port}` : 'metrics';
    ports.push({ name: metricsName, port: metricsRaw.port, protocol: 'TCP' });
  }
  const portNames = new Set<string>();
  const portNumbers = new Set<string>();
  ports.forEach((p, i) => {
    if (portNames.has(p.name))
      fail(
        'CATALOG_PORT_DUPLICATE',
        ['ports', i, 'name'],
        `port name ${quote(p.name)} is used twice`,
      );
    if (portNumbers.has(`${p.port}/${p.protocol}`))
      fail(
        'CATALOG_PORT_DUPLICATE',
        ['ports', i, 'port'],
        `port ${p.port}/${p.protocol} is listed twice`,
      );
    portNames.add(p.name);
    portNumbers.add(`${p.port}/${p.protocol}`);
  });
  const findPort = (ref: unknown, path: Path): PortSpec | undefined => {
    const found = ports.find((p) =>
      typeof ref === 'number' ? p.port === ref && p.protocol === 'TCP' : p.name === ref,
    );
    if (found === undefined) {
      fail(
        'CATALOG_PORT_UNKNOWN',
        path,
        `port ${JSON.stringify(ref)} is not a TCP port of this service`,
        explicitPorts
          ? `declared ports: ${ports.map((p) => `${p.name}=${p.port}/${p.protocol}`).join(', ') || 'none'}`
          : 'declare it under ports',
      );
    }
    return found;
  };
  const sortedPorts = [...ports].sort(
    (a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0),
  );

  // ingress routes
  const routes: RouteSpec[] = [];
  const hosts = new Set<string>();
  routesRaw.forEach((entry, i) => {
    const r = obj(entry);
    const host = String(r.host);
    if (host !== platform.domain && !host.endsWith(`.${platform.domain}`)) {
      fail(
        'CATALOG_ROUTE_HOST',
        ['ingressRoutes', i, 'host'],
        `host ${quote(host)} is not under the base domain ${quote(platform.domain)}`,
      );
    } else {
      const problem = wildcardProblem(host, platform.domain);
      if (problem !== undefined)
        fail('CATALOG_ROUTE_CERTIFICATE', ['ingressRoutes', i, 'host'], problem, WILDCARD_HINT);
    }
    if (hosts.has(host))
      fail(
        'CATALOG_ROUTE_HOST',
        ['ingressRoutes', i, 'host'],
        `host ${quote(host)} is routed twice`,
      );
    hosts.add(host);
    const port = findPort(r.port, ['ingressRoutes', i, 'port']);
    if (port !== undefined) routes.push({ host, port });
  });
  routes.sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
  // Route objects are named after their host; two hosts must not map to one name.
  const routeNames = new Map<string, string>();
  routesRaw.forEach((entry, i) => {
    const host = String(obj(entry).host);
    const routeObject = routeName(host, platform);
    const other = routeNames.get(routeObject);
    if (other !== undefined && other !== host) {
      fail(
        'CATALOG_ROUTE_NAME',
        ['ingressRoutes', i, 'host'],
        `hosts ${quote(other)} and ${quote(host)} both name the HTTPRoute ${quote(routeObject)}`,
      );
    }
    routeNames.set(routeObject, host);
  });

  // auth
  const { mode, apiRoutes, skipAuthRoutes, upstream } = resolveAuth({
    raw,
    kind,
    platform,
    routesRaw,
    routes,
    ports,
    sortedPorts,
    explicitPorts,
    findPort,
    fail,
  });

  // LAN exposure: declared non-HTTP ports only (HTTP goes through the Gateway), on the
  // platform's shared address.
  ports.forEach((p, i) => {
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

  // dependencies and clients
  const { dependencies, namedDependencies } = resolveDependencies(raw.dependencies, name, fail);
  const inClusterClients = list(raw.inClusterClients).map(String);
  inClusterClients.forEach((client, i) => {
    if (client === name)
      fail('CATALOG_CLIENT_SELF', ['inClusterClients', i], 'a service is not its own client');
  });

  // observability
  let metricsEndpoint: { port: PortSpec; path: string } | undefined;
  if (metricsRaw !== undefined) {
    const port = findPort(metricsRaw.port, ['observability', 'metricsEndpoint', 'port']);
    if (port !== undefined) {
      metricsEndpoint = {
        port,
        path: typeof metricsRaw.path === 'string' ? metricsRaw.path : '/metrics',
      };
      if (
        mode === 'forward-auth' &&
        frontedPorts({ ingressRoutes: routes, auth: { upstream } }).has(port.port)
      ) {
        fail(
          'CATALOG_METRICS_BYPASS',
          ['observability', 'metricsEndpoint', 'port'],
          `the metrics port ${port.port} is the app port behind forward-auth; exposing it for scraping would bypass the proxy`,
          'serve metrics on a separate port',
        );
      }
    }
  }
  const rendered = workloadKindOf(kind, replicas);
  const livenessRaw =
    observability.livenessWorkload === undefined ? undefined : obj(observability.livenessWorkload);
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

  // hardware
  const hardware = obj(raw.hardware);
  const gpu = typeof hardware.gpu === 'string' ? (hardware.gpu as GpuClass) : undefined;
  if (gpu !== undefined && kind === 'vm') {
    warn(
      'CATALOG_GPU_IGNORED',
      ['hardware', 'gpu'],
      'hardware.gpu is ignored for kind vm (a VM receives devices through KubeVirt)',
    );
  }

  const update = obj(raw.update);
  const acknowledge = availability.acknowledgeStorageMigration === true;

  const base = file.split('/').pop() ?? file;
  if (base !== `${name}.yaml` && base !== `${name}.yml`) {
    warn(
      'CATALOG_FILE_NAME',
      ['name'],
      `the file of service ${quote(name)} is conventionally ${name}.yaml`,
    );
  }

  contractWarnings(raw, { kind, storage, security, ports: sortedPorts }, platform, warn);

  const byLine = (a: LabelwiseError, b: LabelwiseError) =>
    (a.source.line ?? 0) - (b.source.line ?? 0) || (a.source.col ?? 0) - (b.source.col ?? 0);
  errors.sort(byLine);
  warnings.sort(byLine);
  if (errors.length > 0) return { service: undefined, errors, warnings, namedDependencies: [] };
  return {
    service: {
      name,
      file,
      kind,
      ...(image !== undefined ? { image } : {}),
      ...(vmTemplate !== undefined ? { vmTemplate } : {}),
      importFrom,
      vm,
      exposure: raw.exposure === 'public' ? 'public' : 'internal',
      egress: raw.egress === 'vpn' ? 'vpn' : 'internet',
      storage,
      dependencies,
      inClusterClients: [...inClusterClients].sort(),
      ports: sortedPorts,
      auth: {
        mode,
        apiRoutes,
        skipAuthRoutes,
        ...(mode === 'forward-auth' && upstream !== undefined ? { upstream } : {}),
      },
      security,
      update: {
        channel:
          update.channel === 'beta' || update.channel === 'pinned' ? update.channel : 'stable',
        autoRollbackOnFailedHealth: update.autoRollbackOnFailedHealth !== false,
      },
      observability: {
        metrics: observability.metrics !== false,
        ...(metricsEndpoint !== undefined ? { metricsEndpoint } : {}),
        livenessWorkload,
      },
      availability: { replicas, acknowledgeStorageMigration: acknowledge },
      hardware: gpu !== undefined ? { gpu } : {},
      ingressRoutes: routes,
    },
    errors,
    warnings,
    namedDependencies,
  };
}
