/**
 * Storage: longhorn claims (standalone, or per replica as claim templates) and bulk NFS volumes,
 * which are static PersistentVolumes pre-bound to their claims from both ends.
 */
import { PersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { Platform, ResolvedService, StorageSpec } from '../types.js';
import { backupLabels, bulkVolumeName, commonLabels, recreateAnnotations } from './labels.js';

/** `annotations` for a metadata block, only when there are any. */
function annotated(service: ResolvedService): { annotations?: Record<string, string> } {
  const annotations = recreateAnnotations(service);
  return Object.keys(annotations).length > 0 ? { annotations } : {};
}

/** A longhorn claim's spec: replicated class, ReadWriteOnce, sized. */
function longhornSpec(
  storage: StorageSpec,
  platform: Platform,
): NonNullable<IPersistentVolumeClaim['spec']> {
  return {
    accessModes: ['ReadWriteOnce'],
    storageClassName: platform.longhorn.storageClass,
    resources: { requests: { storage: storage.size } },
  };
}

/** The claim templates of a StatefulSet: one per longhorn entry, named as the pod volume. */
export function claimTemplates(
  service: ResolvedService,
  platform: Platform,
): IPersistentVolumeClaim[] {
  return service.storage
    .filter((s) => s.class === 'longhorn')
    .map((s) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: s.name,
        labels: { ...commonLabels(service.name), ...backupLabels(s, platform) },
      },
      spec: longhornSpec(s, platform),
    }));
}

/**
 * The standalone storage objects. With `statefulSet`, longhorn entries are claim templates
 * instead (a standalone claim would be an orphan nothing mounts); bulk stays standalone.
 */
export function storageObjects(
  service: ResolvedService,
  platform: Platform,
  options: { statefulSet: boolean },
): (PersistentVolume | PersistentVolumeClaim)[] {
  const out: (PersistentVolume | PersistentVolumeClaim)[] = [];
  const namespace = service.name;
  for (const s of service.storage) {
    if (s.class === 'longhorn') {
      if (options.statefulSet) continue;
      out.push(
        new PersistentVolumeClaim({
          metadata: {
            name: s.name,
            namespace,
            labels: { ...commonLabels(service.name), ...backupLabels(s, platform) },
            ...annotated(service),
          },
          spec: longhornSpec(s, platform),
        }),
      );
      continue;
    }
    // Bulk: `storageClassName: ""` on both ends means statically provisioned; no provisioner
    // is asked and the default-class annotation is suppressed. Retain, always: the data
    // predates the cluster. Access is always …Many: one export serves many namespaces.
    const accessMode = s.readOnly ? 'ReadOnlyMany' : 'ReadWriteMany';
    const pvName = bulkVolumeName(service, s);
    out.push(
      new PersistentVolume({
        metadata: { name: pvName, labels: commonLabels(service.name), ...annotated(service) },
        spec: {
          capacity: { storage: s.size },
          accessModes: [accessMode],
          persistentVolumeReclaimPolicy: 'Retain',
          storageClassName: '',
          mountOptions: [...platform.bulk.mountOptions],
          nfs: {
            server: platform.bulk.server,
            path: s.export ?? '/',
            ...(s.readOnly ? { readOnly: true } : {}),
          },
          claimRef: { namespace, name: s.name },
        },
      }),
      new PersistentVolumeClaim({
        metadata: {
          name: s.name,
          namespace,
          labels: commonLabels(service.name),
          ...annotated(service),
        },
        spec: {
          accessModes: [accessMode],
          storageClassName: '',
          volumeName: pvName,
          resources: { requests: { storage: s.size } },
        },
      }),
    );
  }
  return out;
}
