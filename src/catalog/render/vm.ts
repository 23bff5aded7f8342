/**
 * `kind: vm`: a KubeVirt VirtualMachine whose root disk CDI imports from `source.vmTemplate`
 * (an http(s) disk image or a `docker://` container disk) onto the replicated Longhorn class.
 * Longhorn storage entries become blank data disks. No typed model exists for KubeVirt, so the
 * object is checked against `catalog/kubevirt-virtualmachine.schema.json`, which we ship.
 */
import type { Platform, ResolvedService } from '../types.js';
import { backupLabels, commonLabels, podLabels, rootDiskName } from './labels.js';
import { DISK_LABEL } from './network-policy.js';
import { updateAnnotations } from './workload.js';

/** The plain VirtualMachine object. */
export function virtualMachine(
  service: ResolvedService,
  platform: Platform,
): Record<string, unknown> {
  const template = service.vmTemplate ?? '';
  const source = template.startsWith('docker://')
    ? { registry: { url: template } }
    : { http: { url: template } };
  const storageSpec = (size: string) => ({
    accessModes: ['ReadWriteOnce'],
    storageClassName: platform.longhorn.storageClass,
    resources: { requests: { storage: size } },
  });
  const root = rootDiskName(service.name);
  const disks = service.storage.filter((s) => s.class === 'longhorn');
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: {
      name: service.name,
      namespace: service.name,
      labels: commonLabels(service.name),
      annotations: updateAnnotations(service, platform, { deadlineAsAnnotation: true }),
    },
    spec: {
      runStrategy: 'Always',
      dataVolumeTemplates: [
        {
          // The root disk holds irreplaceable state: always in the off-cluster backup group.
          metadata: {
            name: root,
            labels: {
              ...commonLabels(service.name),
              ...backupLabels({ class: 'longhorn', backup: 'offcluster' }, platform),
              [DISK_LABEL]: 'root',
            },
          },
          spec: { source, storage: storageSpec(service.vm.rootDiskSize) },
        },
        ...disks.map((disk) => ({
          metadata: {
            name: disk.name,
            labels: {
              ...commonLabels(service.name),
              ...backupLabels(disk, platform),
              [DISK_LABEL]: 'blank',
            },
          },
          spec: { source: { blank: {} }, storage: storageSpec(disk.size) },
        })),
      ],
      template: {
        metadata: { labels: podLabels(service.name) },
        spec: {
          domain: {
            cpu: { cores: service.vm.cores },
            memory: { guest: service.vm.memory },
            devices: {
              disks: [root, ...disks.map((d) => d.name)].map((name) => ({
                name,
                disk: { bus: 'virtio' },
              })),
              interfaces: [{ name: 'default', masquerade: {} }],
            },
          },
          networks: [{ name: 'default', pod: {} }],
          volumes: [root, ...disks.map((d) => d.name)].map((name) => ({
            name,
            dataVolume: { name },
          })),
        },
      },
    },
  };
}
