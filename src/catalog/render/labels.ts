/**
 * Labels and names every rendered object carries. Selector labels and object names are a
 * FROZEN CONTRACT: a workload's selector is immutable, so changing either for an existing
 * service forces the workload (and, for a StatefulSet, its claims) to be recreated.
 */
import type { Platform, ResolvedService, StorageSpec } from '../types.js';

export const NAME_LABEL = 'app.kubernetes.io/name';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
/**
 * Marks the service's own workload pods. The name label alone is not enough: CDI importer pods
 * of a VM's disks inherit the DataVolume's labels, and a selector on the name alone would pick
 * them up too.
 */
export const COMPONENT_LABEL = 'app.kubernetes.io/component';
export const MANAGED_BY = 'labelwise';
export const WORKLOAD_COMPONENT = 'workload';
/** The label Cilium gives every endpoint for its namespace. */
export const CILIUM_NAMESPACE_LABEL = 'k8s:io.kubernetes.pod.namespace';
/** The same label as the egress gateway's pod selector spells it. */
export const EGRESS_NAMESPACE_LABEL = 'io.kubernetes.pod.namespace';

/** Labels on every object of a service. */
export function commonLabels(name: string): Record<string, string> {
  return { [MANAGED_BY_LABEL]: MANAGED_BY, [NAME_LABEL]: name };
}

/** The selector of a service's workload pods (frozen). */
export function selectorLabels(name: string): Record<string, string> {
  return { [COMPONENT_LABEL]: WORKLOAD_COMPONENT, [NAME_LABEL]: name };
}

/** Labels on the workload's pod template: common labels plus the selector labels. */
export function podLabels(name: string): Record<string, string> {
  return { ...commonLabels(name), ...selectorLabels(name) };
}

/** Longhorn's recurring-job labels that put a volume in the platform's backup group. */
export function backupLabels(
  storage: Pick<StorageSpec, 'class' | 'backup'>,
  platform: Platform,
): Record<string, string> {
  if (storage.class !== 'longhorn' || storage.backup !== 'offcluster') return {};
  return {
    [`recurring-job-group.longhorn.io/${platform.longhorn.backupGroup}`]: 'enabled',
    'recurring-job.longhorn.io/source': 'enabled',
  };
}

/** The cluster-scoped bulk PersistentVolume's name: prefixed with the namespace so it is unique. */
export function bulkVolumeName(
  service: Pick<ResolvedService, 'name'>,
  storage: Pick<StorageSpec, 'name'>,
): string {
  return `${service.name}-${storage.name}`;
}

/** The root disk DataVolume of a VM. */
export function rootDiskName(name: string): string {
  return `${name}-root`;
}

/**
 * A per-service Certificate's name, which is also its Gateway listener's: the whole host, dots
 * turned to dashes. Every such Certificate lives in the Gateway's namespace, and a host is routed
 * by one service only, so the full host keeps the names apart.
 */
export function certificateName(host: string): string {
  return host.replace(/\./g, '-');
}

/** The Secret a per-service Certificate writes and its Gateway listener presents. */
export function certificateSecret(host: string): string {
  return `${certificateName(host)}-tls`;
}

/** An HTTPRoute's name: its host with the base domain removed, dots turned to dashes. */
export function routeName(host: string, platform: Platform): string {
  const suffix = `.${platform.domain}`;
  const local = host.endsWith(suffix) ? host.slice(0, -suffix.length) : host;
  return local.replace(/\./g, '-');
}

/**
 * With `availability.acknowledgeStorageMigration`, the storage objects and a StatefulSet carry
 * the GitOps tools' own "recreate on an immutable change" switches (Flux's force, Argo CD's
 * Replace+Force), so applying the acknowledged change deletes and recreates them instead of
 * failing. The acknowledgement says the data has been migrated.
 */
export function recreateAnnotations(service: ResolvedService): Record<string, string> {
  if (!service.availability.acknowledgeStorageMigration) return {};
  return {
    'argocd.argoproj.io/sync-options': 'Force=true,Replace=true',
    'kustomize.toolkit.fluxcd.io/force': 'enabled',
  };
}

/** The forward-auth proxy's port name on the pod and the Service. */
export const AUTH_PORT_NAME = 'http-auth';
export const APP_CONTAINER = 'app';
export const AUTH_CONTAINER = 'auth-proxy';
