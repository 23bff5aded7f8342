/**
 * The workload of a container service: a Deployment at one replica, a StatefulSet with per-replica
 * claims, required anti-affinity and a PodDisruptionBudget above one. The update annotations for
 * the platform's image updater sit on the workload.
 */
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { Platform, ResolvedService } from '../types.js';
import { commonLabels, recreateAnnotations, selectorLabels } from './labels.js';
import { podTemplate } from './pod.js';
import { claimTemplates } from './storage.js';

/** Annotations for the image updater: channel, auto-rollback and (where no field exists) the deadline. */
export function updateAnnotations(
  service: ResolvedService,
  platform: Platform,
  options: { deadlineAsAnnotation: boolean },
): Record<string, string> {
  const prefix = platform.updates.annotationPrefix;
  const rollback = service.update.autoRollbackOnFailedHealth;
  return {
    [`${prefix}channel`]: service.update.channel,
    [`${prefix}auto-rollback`]: String(rollback),
    ...(rollback && options.deadlineAsAnnotation
      ? { [`${prefix}progress-deadline-seconds`]: String(platform.updates.progressDeadlineSeconds) }
      : {}),
  };
}

/** A Deployment (replicas 1), `Recreate` when it mounts storage. */
export function deployment(service: ResolvedService, platform: Platform): Deployment {
  return new Deployment({
    metadata: {
      name: service.name,
      namespace: service.name,
      labels: commonLabels(service.name),
      annotations: updateAnnotations(service, platform, { deadlineAsAnnotation: false }),
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: selectorLabels(service.name) },
      ...(service.storage.length > 0 ? { strategy: { type: 'Recreate' } } : {}),
      ...(service.update.autoRollbackOnFailedHealth
        ? { progressDeadlineSeconds: platform.updates.progressDeadlineSeconds }
        : {}),
      template: podTemplate(service, platform, { statefulSet: false }),
    },
  });
}

/** A StatefulSet for replicas > 1: Parallel pod management, longhorn as claim templates. */
export function statefulSet(
  service: ResolvedService,
  platform: Platform,
  hasService: boolean,
): StatefulSet {
  const templates = claimTemplates(service, platform);
  return new StatefulSet({
    metadata: {
      name: service.name,
      namespace: service.name,
      labels: commonLabels(service.name),
      annotations: {
        ...updateAnnotations(service, platform, { deadlineAsAnnotation: true }),
        ...recreateAnnotations(service),
      },
    },
    spec: {
      replicas: service.availability.replicas,
      ...(hasService ? { serviceName: service.name } : {}),
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: selectorLabels(service.name) },
      template: podTemplate(service, platform, { statefulSet: true }),
      ...(templates.length > 0 ? { volumeClaimTemplates: templates } : {}),
    },
  });
}

/** `minAvailable: 1`; rendered only above one replica, where it cannot block every drain. */
export function disruptionBudget(service: ResolvedService): PodDisruptionBudget {
  return new PodDisruptionBudget({
    metadata: { name: service.name, namespace: service.name, labels: commonLabels(service.name) },
    spec: { minAvailable: 1, selector: { matchLabels: selectorLabels(service.name) } },
  });
}
