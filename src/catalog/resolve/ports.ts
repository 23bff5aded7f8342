/**
 * A definition's ports: as listed, or derived from its routes and metrics endpoint when it lists
 * none, checked for duplicates, and the lookup every other field that names a port goes through.
 * Pure; reports through `fail`.
 */
import { quote } from '../../base/errors.js';
import type { PortSpec, Protocol } from '../types.js';
import type { ReportProblem } from './storage.js';

type Raw = Record<string, unknown>;
type Path = readonly (string | number)[];

const obj = (value: unknown): Raw =>
  typeof value === 'object' && value !== null ? (value as Raw) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The resolved ports of one definition. */
export interface ServicePorts {
  /** In the definition's order, so an index is a path into `ports` when `explicit`. */
  readonly declared: readonly PortSpec[];
  /** By number, then protocol: the order everything rendered from them uses. */
  readonly sorted: readonly PortSpec[];
  /** True when the definition lists its ports; false when they were derived. */
  readonly explicit: boolean;
  /** The TCP port `ref` names (its number or its name), or undefined with a problem at `path`. */
  find(ref: unknown, path: Path): PortSpec | undefined;
}

/**
 * The ports derived when a definition lists none: every numeric route port (`http`, or
 * `http-<port>` when there are several) and a numeric metrics port (`metrics`), all TCP.
 */
function derivePorts(routes: readonly unknown[], metricsPort: unknown): PortSpec[] {
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

function listedPorts(raw: unknown): PortSpec[] {
  return list(raw).map((p) => {
    const o = obj(p);
    return {
      name: String(o.name),
      port: Number(o.port),
      protocol: (o.protocol === 'UDP' ? 'UDP' : 'TCP') as Protocol,
      ...(o.lan === true ? { lan: true } : {}),
    };
  });
}

function reportDuplicates(ports: readonly PortSpec[], fail: ReportProblem): void {
  const names = new Set<string>();
  const numbers = new Set<string>();
  ports.forEach((p, i) => {
    if (names.has(p.name))
      fail(
        'CATALOG_PORT_DUPLICATE',
        ['ports', i, 'name'],
        `port name ${quote(p.name)} is used twice`,
      );
    if (numbers.has(`${p.port}/${p.protocol}`))
      fail(
        'CATALOG_PORT_DUPLICATE',
        ['ports', i, 'port'],
        `port ${p.port}/${p.protocol} is listed twice`,
      );
    names.add(p.name);
    numbers.add(`${p.port}/${p.protocol}`);
  });
}

/**
 * The ports of a definition whose `ports`, `ingressRoutes` and metrics port (undefined when it
 * has no metrics endpoint) are given as written.
 */
export function resolvePorts(
  rawPorts: unknown,
  rawRoutes: readonly unknown[],
  metricsPort: unknown,
  fail: ReportProblem,
): ServicePorts {
  const explicit = rawPorts !== undefined;
  const declared = explicit ? listedPorts(rawPorts) : derivePorts(rawRoutes, metricsPort);
  // A numbered metrics endpoint the ports do not list renders its own named port (the contract:
  // "renders a named Service port"); a named one must be declared.
  if (
    explicit &&
    typeof metricsPort === 'number' &&
    !declared.some((p) => p.port === metricsPort && p.protocol === 'TCP')
  ) {
    const taken = declared.some((p) => p.name === 'metrics');
    declared.push({
      name: taken ? `metrics-${metricsPort}` : 'metrics',
      port: metricsPort,
      protocol: 'TCP',
    });
  }
  reportDuplicates(declared, fail);
  const sorted = [...declared].sort(
    (a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0),
  );
  const find = (ref: unknown, path: Path): PortSpec | undefined => {
    const found = declared.find((p) =>
      typeof ref === 'number' ? p.port === ref && p.protocol === 'TCP' : p.name === ref,
    );
    if (found === undefined) {
      fail(
        'CATALOG_PORT_UNKNOWN',
        path,
        `port ${JSON.stringify(ref)} is not a TCP port of this service`,
        explicit
          ? `declared ports: ${declared.map((p) => `${p.name}=${p.port}/${p.protocol}`).join(', ') || 'none'}`
          : 'declare it under ports',
      );
    }
    return found;
  };
  return { declared, sorted, explicit, find };
}
