/**
 * `dependencies[]` with their defaults, checked on their own (a service does not depend on
 * itself, nor list one dependency twice). A port given by name is kept apart: it resolves against
 * the target's exposed ports, which only the catalog loader knows (`named-dependencies.ts`).
 */
import type { ReportProblem } from './storage.js';
import type { DependencySpec, Protocol } from '../types.js';

const obj = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A dependency whose port is a name of one of the target's ports. */
export interface NamedDependency {
  /** Its index in the definition's `dependencies` list (for messages). */
  readonly index: number;
  readonly to: string;
  readonly portName: string;
  /** Only when the definition states it; otherwise the named port's own protocol. */
  readonly protocol?: Protocol;
}

/** Dependency order in a resolved service: by target, port, then protocol. */
export function compareDependencies(a: DependencySpec, b: DependencySpec): number {
  return a.to < b.to
    ? -1
    : a.to > b.to
      ? 1
      : a.port - b.port || (a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0);
}

/**
 * Resolves `dependencies[]` of the schema-valid definition of service `name`. Numbered
 * dependencies come back sorted; named ones in definition order. Pure; reports through `fail`.
 */
export function resolveDependencies(
  value: unknown,
  name: string,
  fail: ReportProblem,
): { dependencies: DependencySpec[]; namedDependencies: NamedDependency[] } {
  const dependencies: DependencySpec[] = [];
  const namedDependencies: NamedDependency[] = [];
  list(value).forEach((entry, i) => {
    const d = obj(entry);
    const to = String(d.to);
    if (to === name)
      fail(
        'CATALOG_DEPENDENCY_SELF',
        ['dependencies', i, 'to'],
        'a service does not depend on itself',
      );
    if (typeof d.port === 'string') {
      const protocol = d.protocol === 'UDP' || d.protocol === 'TCP' ? d.protocol : undefined;
      namedDependencies.push({
        index: i,
        to,
        portName: d.port,
        ...(protocol !== undefined ? { protocol } : {}),
      });
      return;
    }
    dependencies.push({ to, port: Number(d.port), protocol: d.protocol === 'UDP' ? 'UDP' : 'TCP' });
  });
  dependencies.sort(compareDependencies);
  const seen = new Set<string>();
  for (const d of dependencies) {
    const key = `${d.to}:${d.port}/${d.protocol}`;
    if (seen.has(key))
      fail('CATALOG_DEPENDENCY_DUPLICATE', ['dependencies'], `dependency ${key} is listed twice`);
    seen.add(key);
  }
  return { dependencies, namedDependencies };
}
