/**
 * The renderer contract's warnings: settings that render and apply cleanly and then fail, or do
 * nothing, in the running cluster (seed 002, § storage and § exposure). Each is reported at the
 * definition's line and path with a hint; none stops the render. Pure.
 */
import { quote } from '../../base/errors.js';
import type { ReportProblem } from './storage.js';
import type { Platform, PortSpec, SecuritySpec, ServiceKind, StorageSpec } from '../types.js';

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const obj = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/** The index of each resolved storage entry in the definition as written. */
function indexByName(raw: unknown): Map<string, number> {
  const out = new Map<string, number>();
  list(raw).forEach((entry, i) => {
    const name = String(obj(entry).name);
    if (!out.has(name)) out.set(name, i);
  });
  return out;
}

/**
 * A bulk `size` is the PV's advertised capacity and nothing more: without one the PV says `1Gi`,
 * which nobody chose and `kubectl get pv` then reports as true.
 */
function bulkSize(rawStorage: unknown, warn: ReportProblem): void {
  list(rawStorage).forEach((entry, i) => {
    const s = obj(entry);
    if (s.class === 'bulk' && s.size === undefined)
      warn(
        'CATALOG_BULK_SIZE',
        ['storage', i],
        `bulk storage ${quote(String(s.name))} has no size, so its PersistentVolume advertises 1Gi`,
        "set size to the dataset's actual size (no component enforces it)",
      );
  });
}

/**
 * NFS does no ownership management: `fsGroup` never reaches a bulk volume, and a writable bulk
 * mount needs the process's own uid and gid to be ones the export permits.
 */
function bulkOwnership(
  storage: readonly StorageSpec[],
  security: SecuritySpec,
  at: ReadonlyMap<string, number>,
  warn: ReportProblem,
): void {
  const writable = storage.filter((s) => s.class === 'bulk' && !s.readOnly);
  const first = writable[0];
  if (first === undefined) return;
  const runAs = security.runAs;
  // fsGroup equal to the process's own gid grants nothing the gid does not: no false hope.
  if (runAs?.fsGroup !== undefined && runAs.fsGroup !== runAs.group)
    warn(
      'CATALOG_BULK_FSGROUP',
      ['security', 'runAs', 'fsGroup'],
      `fsGroup ${runAs.fsGroup} is a no-op on the NFS bulk mount ${quote(first.name)}: writes there run as gid ${runAs.group ?? "the image's own"}`,
      'give the export to the uid/gid in runAs (user, group), or squash on the server',
    );
  if (runAs === undefined || runAs.group === undefined)
    for (const s of writable)
      warn(
        'CATALOG_BULK_OWNER',
        ['storage', at.get(s.name) ?? 0],
        `the writable bulk mount ${quote(s.name)} runs with no fixed uid/gid, so it mounts and then every write fails unless the export happens to permit the image's user`,
        "set security.runAs.user and .group to the export's owner, or mark the entry readOnly",
      );
}

/** Two mounts of one export are two mounts: `link()` and `rename()` between them fail EXDEV. */
function sharedExport(
  storage: readonly StorageSpec[],
  at: ReadonlyMap<string, number>,
  warn: ReportProblem,
): void {
  const byExport = new Map<string, StorageSpec[]>();
  for (const s of storage)
    if (s.class === 'bulk' && s.export !== undefined)
      byExport.set(s.export, [...(byExport.get(s.export) ?? []), s]);
  for (const [exported, mounts] of byExport) {
    if (mounts.length < 2 || !mounts.some((m) => m.subPath !== undefined)) continue;
    const second = mounts[1] as StorageSpec;
    warn(
      'CATALOG_STORAGE_EXDEV',
      ['storage', at.get(second.name) ?? 0],
      `${mounts.map((m) => quote(m.name)).join(' and ')} mount ${quote(exported)} separately (subPath), so hardlinks and atomic moves between them fail with EXDEV`,
      `mount their common ancestor in ${quote(exported)} once, and point the app at its subdirectories`,
    );
  }
}

/** A service keeping state on the bulk tier keeps its own config nowhere that survives. */
function configVolume(
  storage: readonly StorageSpec[],
  kind: ServiceKind,
  warn: ReportProblem,
): void {
  if (kind !== 'container' || storage.length === 0) return;
  if (storage.some((s) => s.class === 'longhorn')) return;
  warn(
    'CATALOG_STORAGE_NO_CONFIG',
    ['storage'],
    'this stateful service mounts only bulk storage: its config and database live on the container filesystem and are lost on every restart',
    'add a longhorn entry for its config (e.g. { name: config, class: longhorn, size: 1Gi, mountPath: /config })',
  );
}

/** The edge port-forwards an operator sets by hand for a public service (the contract's note). */
export function edgePortForwards(ports: readonly PortSpec[]): string[] {
  return [
    'TCP 80',
    'TCP 443',
    ...ports.filter((p) => p.lan === true).map((p) => `${p.protocol} ${p.port}`),
  ];
}

function publicExposure(
  exposure: unknown,
  ports: readonly PortSpec[],
  platform: Platform,
  warn: ReportProblem,
): void {
  if (exposure !== 'public') return;
  const to = platform.lan?.address ?? "the Gateway's ingress address";
  warn(
    'CATALOG_PUBLIC_PORT_FORWARD',
    ['exposure'],
    `a public service needs these edge port-forwards, which nothing renders: ${edgePortForwards(ports).join(', ')} to ${to}`,
    'set them on the edge router by hand (the contract keeps them manual)',
  );
}

/** Every contract warning of one resolved definition. */
export function contractWarnings(
  raw: Record<string, unknown>,
  resolved: {
    readonly kind: ServiceKind;
    readonly storage: readonly StorageSpec[];
    readonly security: SecuritySpec;
    readonly ports: readonly PortSpec[];
  },
  platform: Platform,
  warn: ReportProblem,
): void {
  const at = indexByName(raw.storage);
  bulkSize(raw.storage, warn);
  if (resolved.kind === 'container') bulkOwnership(resolved.storage, resolved.security, at, warn);
  sharedExport(resolved.storage, at, warn);
  configVolume(resolved.storage, resolved.kind, warn);
  publicExposure(raw.exposure, resolved.ports, platform, warn);
}
