/**
 * Platform settings (`catalog/platform.yaml`): defaults materialised over a schema-valid value.
 * Nothing environment-specific lives in a ServiceDefinition; it all comes from here.
 */
import type { Platform } from '../types.js';

/** The ExternalDNS annotation prefix of v0.21.0, which the seed's platform runs. */
export const DEFAULT_EXTERNAL_DNS_PREFIX = 'external-dns.alpha.kubernetes.io/';
/** Mount options for bulk NFS volumes: NFSv4.1 (one port, tcp/2049) and `hard` mounts. */
export const DEFAULT_BULK_MOUNT_OPTIONS: readonly string[] = Object.freeze([
  'nfsvers=4.1',
  'hard',
  'noatime',
  'timeo=600',
  'retrans=2',
]);
/** The normative VPN-class service set of the seed. */
export const DEFAULT_VPN_SERVICES: readonly string[] = Object.freeze([
  'jackett',
  'qbittorrent',
  'radarr',
  'sonarr',
]);

type Raw = Record<string, unknown>;
const obj = (value: unknown): Raw =>
  typeof value === 'object' && value !== null ? (value as Raw) : {};
const str = (value: unknown, fallback: string): string =>
  typeof value === 'string' ? value : fallback;
const num = (value: unknown, fallback: number): number =>
  typeof value === 'number' ? value : fallback;
const labels = (
  value: unknown,
  fallback: Record<string, string>,
): Readonly<Record<string, string>> =>
  typeof value === 'object' && value !== null ? (value as Record<string, string>) : fallback;

/**
 * Applies the platform defaults to a value that passed `platform.schema.json`. Pure and
 * deterministic; never throws on schema-valid input.
 */
function certificateIssuer(raw: unknown): Pick<Platform['gateway'], 'certificateIssuer'> {
  if (raw === undefined) return {};
  const issuer = obj(raw);
  return {
    certificateIssuer: {
      kind: issuer.kind === 'Issuer' ? 'Issuer' : 'ClusterIssuer',
      name: str(issuer.name, ''),
    },
  };
}

export function resolvePlatform(raw: unknown): Platform {
  const p = obj(raw);
  const gateway = obj(p.gateway);
  const cilium = obj(gateway.cilium);
  const externalDns = obj(p.externalDns);
  const clusterDns = obj(p.clusterDns);
  const prometheus = obj(p.prometheus);
  const forwardAuth = obj(p.forwardAuth);
  const bulk = obj(p.bulk);
  const longhorn = obj(p.longhorn);
  const vpn = obj(p.vpn);
  const gpu = obj(p.gpu);
  const nodes = obj(p.nodes);
  const updates = obj(p.updates);
  const lan = obj(p.lan);
  return {
    domain: str(p.domain, ''),
    gateway: {
      name: str(gateway.name, ''),
      namespace: str(gateway.namespace, ''),
      ...(typeof gateway.listener === 'string' ? { listener: gateway.listener } : {}),
      ...certificateIssuer(gateway.certificateIssuer),
      cilium:
        typeof cilium.namespace === 'string'
          ? { namespace: cilium.namespace, podSelector: labels(cilium.podSelector, {}) }
          : { entity: 'ingress' },
    },
    externalDns: {
      annotationPrefix: str(externalDns.annotationPrefix, DEFAULT_EXTERNAL_DNS_PREFIX),
    },
    clusterDns: {
      namespace: str(clusterDns.namespace, 'kube-system'),
      podSelector: labels(clusterDns.podSelector, { 'k8s-app': 'kube-dns' }),
    },
    prometheus: {
      namespace: str(prometheus.namespace, 'monitoring'),
      podSelector: labels(prometheus.podSelector, { 'app.kubernetes.io/name': 'prometheus' }),
      serviceMonitorLabels: labels(prometheus.serviceMonitorLabels, {
        release: 'kube-prometheus-stack',
      }),
    },
    forwardAuth: {
      image: str(forwardAuth.image, ''),
      issuerUrl: str(forwardAuth.issuerUrl, ''),
      clientSecretName: str(forwardAuth.clientSecretName, ''),
      port: num(forwardAuth.port, 4180),
    },
    bulk: {
      server: str(bulk.server, '${BULK_NFS_SERVER}'),
      mountOptions: Array.isArray(bulk.mountOptions)
        ? (bulk.mountOptions as string[])
        : DEFAULT_BULK_MOUNT_OPTIONS,
    },
    longhorn: {
      storageClass: str(longhorn.storageClass, 'longhorn'),
      backupGroup: str(longhorn.backupGroup, 'offcluster'),
    },
    vpn: {
      nodeSelector: labels(vpn.nodeSelector, {}),
      interface: str(vpn.interface, ''),
      excludedCIDRs: Array.isArray(vpn.excludedCIDRs) ? (vpn.excludedCIDRs as string[]) : [],
      services: Array.isArray(vpn.services) ? (vpn.services as string[]) : DEFAULT_VPN_SERVICES,
    },
    gpu: { 'intel-quicksync': str(gpu['intel-quicksync'], 'gpu.intel.com/i915') },
    nodes: { schedulable: num(nodes.schedulable, 3) },
    updates: {
      annotationPrefix: str(updates.annotationPrefix, 'updates.labelwise.dev/'),
      progressDeadlineSeconds: num(updates.progressDeadlineSeconds, 600),
    },
    ...(typeof lan.address === 'string'
      ? {
          lan: {
            address: lan.address,
            sharingKey: str(lan.sharingKey, 'lan'),
            sourceCIDRs: Array.isArray(lan.sourceCIDRs) ? (lan.sourceCIDRs as string[]) : [],
          },
        }
      : {}),
  };
}

/**
 * Namespaces a service must not be named after: each service renders its own Namespace with a
 * default-deny baseline and Pod Security `restricted`, so a service named `kube-system` or after
 * the namespace of the cluster DNS, the Gateway or Prometheus would lock the platform's own pods
 * down. `default` and every `kube-` name belong to Kubernetes.
 */
export function reservedNamespace(name: string, platform: Platform): string | undefined {
  if (name === 'default' || name.startsWith('kube-')) return 'a Kubernetes system namespace';
  if (name === platform.clusterDns.namespace) return 'the cluster DNS namespace (clusterDns)';
  if (name === platform.gateway.namespace) return "the shared Gateway's namespace (gateway)";
  const cilium = platform.gateway.cilium;
  if ('namespace' in cilium && name === cilium.namespace)
    return "the Gateway pods' namespace (gateway.cilium)";
  if (name === platform.prometheus.namespace) return "Prometheus's namespace (prometheus)";
  return undefined;
}
