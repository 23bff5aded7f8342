/**
 * Monitoring: a ServiceMonitor for a declared metrics endpoint, and the liveness rule, shaped for
 * the workload's actual kind (a Deployment-shaped rule against a StatefulSet would `absent()`
 * forever and never fire).
 */
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import type { Platform, ResolvedService, WorkloadKind } from '../types.js';
import { NAME_LABEL, commonLabels } from './labels.js';

export function serviceMonitor(
  service: ResolvedService,
  platform: Platform,
): ServiceMonitor | undefined {
  const metrics = service.observability.metricsEndpoint;
  if (metrics === undefined) return undefined;
  return new ServiceMonitor({
    metadata: {
      name: service.name,
      namespace: service.name,
      labels: { ...commonLabels(service.name), ...platform.prometheus.serviceMonitorLabels },
    },
    spec: {
      selector: { matchLabels: { [NAME_LABEL]: service.name } },
      namespaceSelector: { matchNames: [service.name] },
      endpoints: [{ port: metrics.port.name, path: metrics.path }],
    },
  });
}

/** The PromQL of "no available replica" for each workload kind. */
export function livenessExpression(kind: WorkloadKind, namespace: string, name: string): string {
  const q = (s: string) => JSON.stringify(s);
  switch (kind) {
    case 'Deployment': {
      const series = `kube_deployment_status_replicas_available{namespace=${q(namespace)},deployment=${q(name)}}`;
      return `${series} < 1 or absent(${series})`;
    }
    case 'StatefulSet': {
      const series = `kube_statefulset_status_replicas_available{namespace=${q(namespace)},statefulset=${q(name)}}`;
      return `${series} < 1 or absent(${series})`;
    }
    case 'VirtualMachineInstance': {
      const series = `kubevirt_vmi_info{namespace=${q(namespace)},name=${q(name)},phase="running"}`;
      return `absent(${series})`;
    }
  }
}

export function livenessRule(
  service: ResolvedService,
  platform: Platform,
): PrometheusRule | undefined {
  if (!service.observability.metrics) return undefined;
  const { kind, name } = service.observability.livenessWorkload;
  return new PrometheusRule({
    metadata: {
      name: `${service.name}-liveness`,
      namespace: service.name,
      labels: { ...commonLabels(service.name), ...platform.prometheus.serviceMonitorLabels },
    },
    spec: {
      groups: [
        {
          name: `${service.name}.liveness`,
          rules: [
            {
              alert: 'ServiceUnavailable',
              expr: livenessExpression(kind, service.name, name),
              for: '5m',
              labels: { service: service.name, severity: 'critical' },
              annotations: {
                summary: `${service.name} has no available ${kind}`,
                description: `${kind} ${service.name}/${name} has had no available replica for 5 minutes.`,
              },
            },
          ],
        },
      ],
    },
  });
}
