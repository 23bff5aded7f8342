/**
 * Dependencies that name a port of the service they call (`{to: qbittorrent, port: http-auth}`)
 * rather than number it. A name resolves against the ports the target actually exposes (its
 * Service ports: with forward-auth, the proxy's `http-auth` instead of the app port it fronts),
 * so this runs once every service is resolved. Pure; every problem is returned.
 */
import type { Code } from '../../base/codes.js';
import { LabelwiseError, quote } from '../../base/errors.js';
import type { NamedDependency } from './dependencies.js';
import { compareDependencies } from './dependencies.js';
import { AUTH_PORT_NAME } from '../render/labels.js';
import { clientPorts } from '../render/ports.js';
import type { DependencySpec, Platform, ResolvedService } from '../types.js';
import type { YamlSource } from '../definition/yaml-source.js';
import { formatPath } from '../definition/yaml-source.js';

/** Whether a dependency calls its forward-auth target's login proxy instead of the app. */
export function isProxyPort(
  target: ResolvedService,
  dependency: Pick<DependencySpec, 'port' | 'protocol'>,
  platform: Platform,
): boolean {
  return (
    target.auth.mode === 'forward-auth' &&
    dependency.port === platform.forwardAuth.port &&
    dependency.protocol === 'TCP'
  );
}

export function proxyMessage(target: ResolvedService, port: number | string): string {
  return `${target.name}'s port ${typeof port === 'string' ? quote(port) : port} is its forward-auth login proxy; an in-cluster call there gets a redirect or a 401, never the API`;
}

export function proxyHint(target: ResolvedService, caller: string): string {
  const upstream = target.auth.upstream;
  const app =
    upstream === undefined
      ? 'its app port'
      : `its app port ${quote(upstream.name)} (${upstream.port})`;
  return target.inClusterClients.includes(caller)
    ? `call ${app} directly: ${caller} is a declared client`
    : `call ${app} directly, and add ${caller} to inClusterClients of ${target.name}`;
}

/** Key of one resolved dependency of one service, for {@link NamedResolution.indexOf}. */
export function dependencyKey(service: string, dependency: DependencySpec): string {
  return `${service}\u0000${dependency.to}\u0000${dependency.port}/${dependency.protocol}`;
}

export interface NamedResolution {
  /** The services, with every resolvable named dependency added as a numbered one. */
  readonly services: ResolvedService[];
  readonly errors: LabelwiseError[];
  /** Where a resolved named dependency sits in its definition (by {@link dependencyKey}). */
  readonly indexOf: ReadonlyMap<string, number>;
}

/** The numeric and the resolved named dependencies together; one listed both ways is refused. */
function mergeDependencies(
  numeric: readonly DependencySpec[],
  added: readonly DependencySpec[],
  fail: (code: Code, path: (string | number)[], message: string) => void,
): DependencySpec[] {
  const dependencies = [...numeric, ...added].sort(compareDependencies);
  for (let i = 1; i < dependencies.length; i++) {
    const a = dependencies[i - 1] as DependencySpec;
    const b = dependencies[i] as DependencySpec;
    if (compareDependencies(a, b) === 0)
      fail(
        'CATALOG_DEPENDENCY_DUPLICATE',
        ['dependencies'],
        `dependency ${b.to}:${b.port}/${b.protocol} is listed twice (once by port name)`,
      );
  }
  return dependencies;
}

/**
 * Resolves `named` (by service name) against `services`. A target that failed to load is skipped
 * silently (its own errors are reported); an unknown target or port name is an error.
 */
export function resolveNamedDependencies(
  services: readonly ResolvedService[],
  named: ReadonlyMap<string, readonly NamedDependency[]>,
  sources: ReadonlyMap<string, YamlSource>,
  platform: Platform,
  invalid: ReadonlySet<string>,
): NamedResolution {
  const errors: LabelwiseError[] = [];
  const indexOf = new Map<string, number>();
  const byName = new Map(services.map((s) => [s.name, s]));
  const out = services.map((service) => {
    const wanted = named.get(service.name) ?? [];
    if (wanted.length === 0) return service;
    const fail = (code: Code, path: (string | number)[], message: string, hint?: string) => {
      const shown = formatPath(path);
      const pos = sources.get(service.name)?.locate(path) ?? { line: 1, col: 1 };
      errors.push(
        new LabelwiseError(code, `${shown}: ${message}`, {
          source: { file: service.file, ...pos, path: shown },
          hint,
        }),
      );
    };
    const added: DependencySpec[] = [];
    for (const dependency of wanted) {
      const path = ['dependencies', dependency.index];
      const target = byName.get(dependency.to);
      if (target === undefined) {
        if (!invalid.has(dependency.to))
          fail(
            'CATALOG_DEPENDENCY_UNKNOWN',
            [...path, 'to'],
            `no service named ${quote(dependency.to)} in the catalog`,
          );
        continue;
      }
      if (
        dependency.portName === AUTH_PORT_NAME &&
        target.auth.mode === 'forward-auth' &&
        dependency.protocol !== 'UDP'
      ) {
        fail(
          'CATALOG_DEPENDENCY_PROXY',
          [...path, 'port'],
          proxyMessage(target, dependency.portName),
          proxyHint(target, service.name),
        );
        continue;
      }
      const exposed = clientPorts(target);
      const port = exposed.find(
        (p) =>
          p.name === dependency.portName &&
          (dependency.protocol === undefined || p.protocol === dependency.protocol),
      );
      if (port !== undefined) {
        const resolved = { to: dependency.to, port: port.port, protocol: port.protocol };
        added.push(resolved);
        indexOf.set(dependencyKey(service.name, resolved), dependency.index);
        continue;
      }
      fail(
        'CATALOG_DEPENDENCY_PORT',
        [...path, 'port'],
        `${dependency.to} exposes no ${dependency.protocol ?? ''}${dependency.protocol === undefined ? '' : ' '}port named ${quote(dependency.portName)}`,
        `${dependency.to} exposes: ${exposed.map((p) => `${p.name}=${p.port}/${p.protocol}`).join(', ') || 'nothing'}`,
      );
    }
    if (added.length === 0) return service;
    return { ...service, dependencies: mergeDependencies(service.dependencies, added, fail) };
  });
  return { services: out, errors, indexOf };
}
