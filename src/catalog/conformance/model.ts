/**
 * The input and output of the conformance checks. Checks read plain rendered objects, not the
 * definitions' intent, so a renderer bug (or any object handed in) fails them the same way. The
 * pipeline runs them over the freshly rendered set; the golden comparison is what ties the
 * checked-in apps directory to that set.
 */
import type { KubeObject, Platform, ResolvedService } from '../types.js';

/** One conformance result. `object` names what it is about: `Service pihole/pihole`. */
export interface CheckResult {
  readonly name: string;
  readonly ok: boolean;
  readonly object: string;
  readonly message: string;
  /** What proves a failure: a label set, or the endpoints and ports of a flow. */
  readonly witness?: unknown;
}

export interface ConformanceInput {
  readonly platform: Platform;
  /** The resolved definitions, by service name. */
  readonly services: readonly ResolvedService[];
  /** The objects to check, by service (directory) name. */
  readonly objects: ReadonlyMap<string, readonly KubeObject[]>;
  /**
   * The workload kind each service had in the existing apps directory (`Deployment`,
   * `StatefulSet`, `VirtualMachine`), for the storage-migration check. Empty without one.
   */
  readonly previousWorkloads: ReadonlyMap<string, string>;
  /**
   * The reachability proof of these objects when the caller already ran it (the pipeline shares
   * one proof between the checks and the service graph). Computed when absent.
   */
  readonly proof?: { readonly results: readonly CheckResult[] };
}

/** `Kind namespace/name` or `Kind name`. */
export function describeObject(object: KubeObject): string {
  const ns = object.metadata.namespace;
  return `${object.kind} ${ns === undefined ? '' : `${ns}/`}${object.metadata.name}`;
}

/** Reads a nested field of plain data without trusting its shape. */
export function field(value: unknown, ...path: (string | number)[]): unknown {
  let current: unknown = value;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[part];
  }
  return current;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Workload kinds a service directory can hold. */
export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'VirtualMachine'] as const;

export function workloadOf(objects: readonly KubeObject[]): KubeObject | undefined {
  return objects.find((o) => (WORKLOAD_KINDS as readonly string[]).includes(o.kind));
}
