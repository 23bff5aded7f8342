/**
 * The catalog's data model: a ServiceDefinition as authored, the same definition with every
 * default materialised (what the renderer maps), and the platform settings. Plain data only.
 */

export type ServiceKind = 'container' | 'vm';
export type Exposure = 'internal' | 'public';
export type EgressClass = 'internet' | 'vpn';
export type StorageClassName = 'longhorn' | 'bulk';
export type Protocol = 'TCP' | 'UDP';
export type AuthMode = 'forward-auth' | 'none';
export type UpdateChannel = 'stable' | 'beta' | 'pinned';
export type WorkloadKind = 'Deployment' | 'StatefulSet' | 'VirtualMachineInstance';
export type GpuClass = 'intel-quicksync';

/** A port the application listens on. Routes, clients and monitors refer to it by name or number. */
export interface PortSpec {
  readonly name: string;
  readonly port: number;
  readonly protocol: Protocol;
  /** Exposed on the platform's shared LAN address (non-HTTP ports only). */
  readonly lan?: boolean;
}

/** An outside host a pod may reach by name (a Cilium `toFQDNs` allow), on one TCP port. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** How the pod's processes run (`security`). */
export interface SecuritySpec {
  /** A fixed non-root uid (and gid, fsGroup) for images whose default user is root. */
  readonly runAs?: { readonly user: number; readonly group?: number; readonly fsGroup?: number };
  /** A reviewed exception: the image runs as root, with exactly these capabilities added. */
  readonly rootException?: {
    readonly reason: string;
    readonly reviewedBy: string;
    readonly capabilities: readonly string[];
  };
}

/** One storage entry with its defaults applied. */
export interface StorageSpec {
  readonly name: string;
  readonly class: StorageClassName;
  /** Longhorn: the requested size. Bulk: the PV's advertised capacity (defaults to `1Gi`). */
  readonly size: string;
  readonly mountPath: string;
  readonly export?: string;
  readonly subPath?: string;
  readonly readOnly: boolean;
  /** Longhorn only; bulk data is backed up by its server. */
  readonly backup: 'offcluster' | 'reacquirable';
}

export interface DependencySpec {
  readonly to: string;
  readonly port: number;
  readonly protocol: Protocol;
}

/** A route after resolution: the host and the application port it reaches. */
export interface RouteSpec {
  readonly host: string;
  readonly port: PortSpec;
  /** `certificate: own`: a cert-manager Certificate and a Gateway listener for this host alone. */
  readonly ownCertificate?: true;
}

/**
 * A ServiceDefinition with every default materialised and every reference resolved (ports by
 * name or number become {@link PortSpec}s). The renderer maps only this shape, so an absent
 * field renders from its default and never "not at all".
 */
export interface ResolvedService {
  readonly name: string;
  /** Repository-relative file the definition came from. */
  readonly file: string;
  readonly kind: ServiceKind;
  readonly image?: string;
  readonly vmTemplate?: string;
  /** `kind: vm`: the hosts (and ports) the CDI importer downloads the root disk from. */
  readonly importFrom: readonly HostPort[];
  readonly vm: { readonly cores: number; readonly memory: string; readonly rootDiskSize: string };
  readonly exposure: Exposure;
  readonly egress: EgressClass;
  readonly storage: readonly StorageSpec[];
  readonly dependencies: readonly DependencySpec[];
  readonly inClusterClients: readonly string[];
  readonly ports: readonly PortSpec[];
  readonly auth: {
    readonly mode: AuthMode;
    readonly apiRoutes: readonly string[];
    readonly skipAuthRoutes: readonly string[];
    /** With forward-auth: the app port the proxy fronts (routed, named, or the only TCP port). */
    readonly upstream?: PortSpec;
  };
  readonly security: SecuritySpec;
  readonly update: {
    readonly channel: UpdateChannel;
    readonly autoRollbackOnFailedHealth: boolean;
  };
  readonly observability: {
    readonly metrics: boolean;
    readonly metricsEndpoint?: { readonly port: PortSpec; readonly path: string };
    readonly livenessWorkload: { readonly kind: WorkloadKind; readonly name: string };
  };
  readonly availability: {
    readonly replicas: number;
    readonly acknowledgeStorageMigration: boolean;
  };
  readonly hardware: { readonly gpu?: GpuClass };
  readonly ingressRoutes: readonly RouteSpec[];
}

/** Platform settings with defaults applied (`catalog/platform.yaml`). */
export interface Platform {
  readonly domain: string;
  readonly gateway: {
    readonly name: string;
    readonly namespace: string;
    readonly listener?: string;
    /** Issues the per-service Certificates; undefined when the platform names none. */
    readonly certificateIssuer?: {
      readonly kind: 'ClusterIssuer' | 'Issuer';
      readonly name: string;
    };
    readonly cilium:
      | { readonly entity: 'ingress' }
      | { readonly namespace: string; readonly podSelector: Readonly<Record<string, string>> };
  };
  readonly externalDns: { readonly annotationPrefix: string };
  readonly clusterDns: {
    readonly namespace: string;
    readonly podSelector: Readonly<Record<string, string>>;
  };
  readonly prometheus: {
    readonly namespace: string;
    readonly podSelector: Readonly<Record<string, string>>;
    readonly serviceMonitorLabels: Readonly<Record<string, string>>;
  };
  readonly forwardAuth: {
    readonly image: string;
    readonly issuerUrl: string;
    readonly clientSecretName: string;
    readonly port: number;
  };
  readonly bulk: { readonly server: string; readonly mountOptions: readonly string[] };
  readonly longhorn: { readonly storageClass: string; readonly backupGroup: string };
  readonly vpn: {
    readonly nodeSelector: Readonly<Record<string, string>>;
    readonly interface: string;
    readonly excludedCIDRs: readonly string[];
    readonly services: readonly string[];
  };
  readonly gpu: Readonly<Record<GpuClass, string>>;
  readonly nodes: { readonly schedulable: number };
  readonly updates: { readonly annotationPrefix: string; readonly progressDeadlineSeconds: number };
  /** The shared LAN address for declared non-HTTP ports; absent when the platform has none. */
  readonly lan?: {
    readonly address: string;
    readonly sharingKey: string;
    readonly sourceCIDRs: readonly string[];
  };
}

/** A Kubernetes object as plain JSON data. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly [key: string]: unknown;
  };
  readonly [key: string]: unknown;
}

/** Every object rendered for one service, in a stable order. */
export interface RenderedService {
  readonly service: string;
  readonly objects: readonly KubeObject[];
}
