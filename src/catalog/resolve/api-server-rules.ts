/**
 * The rules the API server (and the container runtime) would enforce on the rendered objects,
 * checked on the definition so the error names its file, line and path: port names, image
 * references, zero sizes, `subPath` with `..`, a VM data disk that takes the root disk's name.
 * Pure; reports through `fail`.
 */
import { quote } from '../../base/index.js';
import {
  imageReferenceProblem,
  isZeroQuantity,
  portNameProblem,
  subPathProblem,
} from '../apply/api-validation.js';
import type { ReportProblem } from './storage.js';
import { rootDiskName } from '../render/labels.js';

type Raw = Record<string, unknown>;
const obj = (value: unknown): Raw =>
  typeof value === 'object' && value !== null ? (value as Raw) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Checks one schema-valid definition `raw` of service `name`. */
export function apiServerRules(raw: Raw, name: string, fail: ReportProblem): void {
  list(raw.ports).forEach((entry, i) => {
    const portName = obj(entry).name;
    if (typeof portName !== 'string') return;
    const problem = portNameProblem(portName);
    if (problem !== undefined)
      fail(
        'CATALOG_PORT_NAME',
        ['ports', i, 'name'],
        `port name ${quote(portName)} ${problem}; the API server refuses it`,
        'use a name such as http, web-ui or dns-udp',
      );
  });
  const image = obj(raw.source).image;
  if (typeof image === 'string') {
    const problem = imageReferenceProblem(image);
    if (problem !== undefined)
      fail('CATALOG_IMAGE_REFERENCE', ['source', 'image'], `${quote(image)} ${problem}`);
  }
  const vm = obj(raw.vm);
  for (const field of ['memory', 'rootDiskSize'] as const) {
    const value = vm[field];
    if (typeof value === 'string' && isZeroQuantity(value))
      fail(
        'CATALOG_VM_SIZE',
        ['vm', field],
        `${field} ${quote(value)} is zero; the VM cannot start`,
      );
  }
  list(raw.storage).forEach((entry, i) => {
    const s = obj(entry);
    if (typeof s.size === 'string' && isZeroQuantity(s.size))
      fail(
        'CATALOG_STORAGE_SIZE',
        ['storage', i, 'size'],
        `size ${quote(s.size)} is zero; the API server refuses a claim of no size`,
      );
    if (typeof s.subPath === 'string') {
      const problem = subPathProblem(s.subPath);
      if (problem !== undefined)
        fail(
          'CATALOG_STORAGE_SUBPATH',
          ['storage', i, 'subPath'],
          `subPath ${quote(s.subPath)} ${problem}`,
        );
    }
    if (raw.kind === 'vm' && s.name === rootDiskName(name))
      fail(
        'CATALOG_STORAGE_VM',
        ['storage', i, 'name'],
        `the disk name ${quote(String(s.name))} is the root disk's; the two DataVolumes would collide`,
        'name the data disk differently',
      );
  });
}
