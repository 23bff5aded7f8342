/**
 * Storage entries with their defaults, checked against the rules of their class (docs/catalog.md): bulk needs an absolute export, longhorn a size, backup is a longhorn notion, a VM
 * takes longhorn disks only, names and mount paths are unique. Sorted by name.
 */
import type { Code } from '../../base/codes.js';
import { quote } from '../../base/errors.js';
import type { ServiceKind, StorageSpec } from '../types.js';

/** Reports one problem at a JSON path of the definition. */
export type ReportProblem = (
  code: Code,
  path: readonly (string | number)[],
  message: string,
  hint?: string,
) => void;

const obj = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Resolves `storage[]` of a schema-valid definition. Pure; reports through `fail`. */
export function resolveStorage(
  value: unknown,
  kind: ServiceKind,
  fail: ReportProblem,
): StorageSpec[] {
  const storage: StorageSpec[] = [];
  const storageNames = new Set<string>();
  const mountPaths = new Set<string>();
  list(value).forEach((entry, i) => {
    const s = obj(entry);
    const path = ['storage', i];
    const sName = String(s.name);
    const cls = s.class === 'bulk' ? 'bulk' : 'longhorn';
    if (storageNames.has(sName))
      fail(
        'CATALOG_STORAGE_DUPLICATE',
        [...path, 'name'],
        `storage ${quote(sName)} is listed twice`,
      );
    storageNames.add(sName);
    if (cls === 'bulk' && typeof s.export !== 'string') {
      fail(
        'CATALOG_STORAGE_EXPORT',
        path,
        'bulk storage needs export (the absolute path on the bulk server)',
      );
    }
    if (cls === 'longhorn' && s.export !== undefined) {
      fail('CATALOG_STORAGE_EXPORT', [...path, 'export'], 'export applies to bulk storage only');
    }
    if (cls === 'longhorn' && typeof s.size !== 'string')
      fail('CATALOG_STORAGE_SIZE', path, 'longhorn storage needs size');
    if (cls === 'bulk' && s.backup !== undefined) {
      fail(
        'CATALOG_STORAGE_BACKUP',
        [...path, 'backup'],
        'bulk storage is backed up by its server; backup applies to longhorn only',
      );
    }
    if (kind === 'vm') {
      if (cls === 'bulk')
        fail(
          'CATALOG_STORAGE_VM',
          [...path, 'class'],
          'a vm takes longhorn disks only; mount bulk exports inside the guest',
        );
      for (const field of ['mountPath', 'subPath', 'readOnly'] as const) {
        if (s[field] !== undefined)
          fail('CATALOG_STORAGE_VM', [...path, field], `${field} does not apply to a vm disk`);
      }
    }
    const mountPath = typeof s.mountPath === 'string' ? s.mountPath : `/data/${sName}`;
    if (kind === 'container') {
      if (mountPaths.has(mountPath))
        fail('CATALOG_STORAGE_DUPLICATE', path, `mount path ${quote(mountPath)} is used twice`);
      mountPaths.add(mountPath);
    }
    storage.push({
      name: sName,
      class: cls,
      size: typeof s.size === 'string' ? s.size : '1Gi',
      mountPath,
      ...(typeof s.export === 'string' ? { export: s.export } : {}),
      ...(typeof s.subPath === 'string' ? { subPath: s.subPath } : {}),
      readOnly: s.readOnly === true,
      backup: s.backup === 'reacquirable' ? 'reacquirable' : 'offcluster',
    });
  });
  storage.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  return storage;
}
