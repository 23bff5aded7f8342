/**
 * Edits that render fine and then fail on apply: the API server forbids changing some fields of
 * an existing object (a StatefulSet's claim templates and selector, a PersistentVolume's volume
 * source, a claim's access modes, class or bound volume; shrinking a claim; resizing a claim that
 * no provisioner can expand). This compares each newly rendered object with the same object in
 * the checked-in apps directory and reports every such change, naming the field and the way out.
 * Pure: both sides are passed in.
 */
import { isDeepStrictEqual } from 'node:util';
import { parsedApps } from './parsed-apps.js';
import type { Diagnostic } from '../../base/index.js';
import { objectFileName } from '../output/emit.js';
import type { KubeObject, RenderedService, ResolvedService } from '../types.js';

/** A changed immutable field of one object. */
export interface ImmutableChange {
  /** `<service>/<file>` in the apps directory. */
  readonly file: string;
  readonly object: string;
  /** JSON path of the field, e.g. `spec.volumeClaimTemplates`. */
  readonly path: string;
  readonly message: string;
}

const get = (value: unknown, ...path: string[]): unknown => {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
};

const BINARY: Readonly<Record<string, number>> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const DECIMAL: Readonly<Record<string, number>> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

/** A Kubernetes quantity in bytes (approximate for huge values); undefined when unreadable. */
export function quantityBytes(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const match = /^([0-9]+(?:\.[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/.exec(value);
  if (match === null) return undefined;
  const unit = match[2] ?? '';
  const factor = BINARY[unit] ?? DECIMAL[unit];
  return factor === undefined ? undefined : Number(match[1]) * factor;
}

/** The immutable fields checked per kind: [path, what to call it]. */
const FIXED: Readonly<Record<string, readonly (readonly [readonly string[], string])[]>> = {
  StatefulSet: [
    [['spec', 'volumeClaimTemplates'], 'the claim templates'],
    [['spec', 'selector'], 'the selector'],
    [['spec', 'serviceName'], 'the governing Service name'],
    [['spec', 'podManagementPolicy'], 'the pod management policy'],
  ],
  Deployment: [[['spec', 'selector'], 'the selector']],
  PersistentVolume: [
    [['spec', 'nfs'], 'the volume source (nfs)'],
    [['spec', 'csi'], 'the volume source (csi)'],
  ],
  PersistentVolumeClaim: [
    [['spec', 'accessModes'], 'the access modes'],
    [['spec', 'storageClassName'], 'the storage class'],
    [['spec', 'volumeName'], 'the bound volume'],
  ],
};

function claimSize(object: unknown): unknown {
  return get(object, 'spec', 'resources', 'requests', 'storage');
}

/** The immutable-field changes between one checked-in object and its new render. */
export function compareObject(before: unknown, after: KubeObject, file: string): ImmutableChange[] {
  const out: ImmutableChange[] = [];
  const object = `${after.kind} ${after.metadata.namespace === undefined ? '' : `${after.metadata.namespace}/`}${after.metadata.name}`;
  if (get(before, 'kind') !== after.kind) return out;
  for (const [path, what] of FIXED[after.kind] ?? []) {
    const old = get(before, ...path);
    const now = get(after, ...path);
    if (!isDeepStrictEqual(old ?? null, now ?? null)) {
      out.push({
        file,
        object,
        path: path.join('.'),
        message: `changes ${what} (${path.join('.')}), which the API server forbids on an existing ${after.kind}`,
      });
    }
  }
  if (after.kind === 'PersistentVolumeClaim') {
    const old = claimSize(before);
    const now = claimSize(after);
    const oldBytes = quantityBytes(old);
    const newBytes = quantityBytes(now);
    const path = 'spec.resources.requests.storage';
    const statik = get(after, 'spec', 'storageClassName') === '';
    if (oldBytes !== undefined && newBytes !== undefined && oldBytes !== newBytes) {
      if (statik)
        out.push({
          file,
          object,
          path,
          message: `resizes a statically bound claim (${String(old)} → ${String(now)}); with storageClassName "" no provisioner can expand it, so the API server refuses the change`,
        });
      else if (newBytes < oldBytes)
        out.push({
          file,
          object,
          path,
          message: `shrinks the claim (${String(old)} → ${String(now)}); the API server only lets a claim grow`,
        });
    }
  }
  return out;
}

/** Every immutable-field change the new render makes relative to the apps directory. */
export function immutableChanges(
  rendered: readonly RenderedService[],
  apps: Readonly<Record<string, string>>,
): ImmutableChange[] {
  const out: ImmutableChange[] = [];
  const documents = parsedApps(apps);
  for (const service of rendered) {
    for (const object of service.objects) {
      if (FIXED[object.kind] === undefined) continue;
      const file = `${service.service}/${objectFileName(object)}`;
      // A checked-in file that does not parse is the golden diff's to report, not this check's.
      if (!documents.has(file)) continue;
      for (const change of compareObject(documents.get(file), object, file)) out.push(change);
    }
  }
  return out;
}

/** Where a change is reported, and whether its service acknowledges the migration. */
export interface ImmutableFieldContext {
  /** The file as the user names it. */
  readonly file: string;
  /** `availability.acknowledgeStorageMigration: true`: the object is rendered for recreation. */
  readonly acknowledged: boolean;
  /** The service's definition file, for the hint; a generic phrase stands in when unknown. */
  readonly definition?: string;
}

/**
 * One change as its `CATALOG_IMMUTABLE_FIELD` diagnostic: an error naming the way out, or a
 * warning once the migration is acknowledged. `catalog check` and `labelwise diff` both report
 * through it, so the two say the same thing of the same change.
 */
export function immutableFieldDiagnostic(
  change: ImmutableChange,
  context: ImmutableFieldContext,
): Diagnostic {
  const { acknowledged } = context;
  return {
    severity: acknowledged ? 'warning' : 'error',
    code: 'CATALOG_IMMUTABLE_FIELD',
    module: 'catalog',
    object: change.object,
    file: context.file,
    path: change.path,
    message: acknowledged
      ? `${change.message}; acknowledged: the object is rendered for recreation (availability.acknowledgeStorageMigration)`
      : `${change.message}; applying this render would fail`,
    ...(acknowledged
      ? {}
      : {
          hint: `migrate the data, then set availability.acknowledgeStorageMigration: true in ${context.definition ?? "the service's definition"} to render the object for recreation; or revert the change`,
        }),
  };
}

/**
 * The changes as diagnostics: errors, or warnings when the service acknowledges the migration
 * (`availability.acknowledgeStorageMigration: true`, which renders the recreate annotations).
 * `appsDir` prefixes the file names as the user named the directory.
 */
export function immutableDiagnostics(
  rendered: readonly RenderedService[],
  services: readonly ResolvedService[],
  apps: Readonly<Record<string, string>>,
  appsDir: string,
): Diagnostic[] {
  const byName = new Map(services.map((s) => [s.name, s]));
  const prefix = appsDir === '' || appsDir === '.' ? '' : `${appsDir.replace(/\/+$/, '')}/`;
  return immutableChanges(rendered, apps).map((change) => {
    const service = byName.get(change.file.split('/')[0] ?? '');
    return immutableFieldDiagnostic(change, {
      file: `${prefix}${change.file}`,
      acknowledged: service?.availability.acknowledgeStorageMigration === true,
      ...(service === undefined ? {} : { definition: service.file }),
    });
  });
}
