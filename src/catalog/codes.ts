/**
 * The catalog's diagnostic codes, with what each means. Stable: never renamed or reused; each
 * has a row in docs/catalog.md § Error codes and is exercised by at least one test
 * (test/catalog/codes.test.ts checks both). Retired, never to be reused: CATALOG_FILE_TOO_LARGE
 * (now the reader's READ_TOO_LARGE) and CATALOG_WRITE_FAILED (now the writer's OUT_* codes).
 */
export const CATALOG_CODES = {
  CATALOG_YAML_SYNTAX: 'a catalog file is not valid YAML (syntax, duplicate key, aliases, depth)',
  CATALOG_SCHEMA: 'a ServiceDefinition does not match its schema',
  CATALOG_PLATFORM_SCHEMA: 'platform.yaml does not match its schema',
  CATALOG_PLATFORM_MISSING: 'the catalog directory has no platform.yaml',
  CATALOG_PLATFORM_INVALID:
    'a platform setting the API server would refuse (StorageClass name, GPU resource)',
  CATALOG_VPN_EXCLUDED_IPV6:
    'warning: an IPv6 excluded CIDR, which the egress gateway policy cannot take',
  CATALOG_SOURCE_MISMATCH: 'kind and source disagree',
  CATALOG_VM_FIELD: 'the vm block on a container',
  CATALOG_IMAGE_REFERENCE: 'an image reference the container runtime cannot pull',
  CATALOG_REPLICAS_VM: 'replicas > 1 on a vm',
  CATALOG_REPLICAS_NODES: 'more replicas than schedulable nodes',
  CATALOG_STORAGE_EXPORT: 'bulk storage without export, or export on longhorn',
  CATALOG_STORAGE_SIZE: 'longhorn storage without size, or a zero size',
  CATALOG_STORAGE_BACKUP: 'backup on bulk storage',
  CATALOG_BULK_SIZE: 'warning: bulk storage without size (the PV advertises 1Gi)',
  CATALOG_BULK_FSGROUP: 'warning: fsGroup next to a writable bulk mount (a no-op on NFS)',
  CATALOG_BULK_OWNER: 'warning: a writable bulk mount with no fixed uid/gid',
  CATALOG_STORAGE_EXDEV: 'warning: two subPath mounts of one export (EXDEV between them)',
  CATALOG_STORAGE_NO_CONFIG: 'warning: a stateful service with no config volume',
  CATALOG_PUBLIC_PORT_FORWARD: 'warning: a public service needs manual edge port-forwards',
  CATALOG_STORAGE_DUPLICATE: 'a storage name or mount path used twice',
  CATALOG_STORAGE_VM: 'a storage entry a vm cannot take (bulk, mount fields, the root disk name)',
  CATALOG_STORAGE_SUBPATH: 'a subPath that is absolute or climbs out with ..',
  CATALOG_VM_SIZE: 'vm memory or root disk size of zero',
  CATALOG_PORT_DUPLICATE: 'a port name or number listed twice',
  CATALOG_PORT_UNKNOWN: 'a route or metrics port names no declared port',
  CATALOG_PORT_NAME: 'a port name the API server refuses (no letter, "--", over 15 characters)',
  CATALOG_PORT_LAN:
    'a LAN port that is not a declared non-HTTP port, or no LAN address on the platform',
  CATALOG_ROUTE_HOST: 'a host outside the base domain, or routed twice',
  CATALOG_ROUTE_CERTIFICATE:
    "a host the Gateway's *.<domain> wildcard certificate cannot serve (the apex, two labels deep)",
  CATALOG_CERTIFICATE_ISSUER:
    'a route asks for its own certificate and the platform names no gateway.certificateIssuer',
  CATALOG_GATEWAY_LISTENER:
    'warning: a route with its own certificate needs its listener added to the shared Gateway',
  CATALOG_ROUTE_NAME: 'two hosts map to one HTTPRoute name',
  CATALOG_AUTH_API_ROUTES: 'an apiRoutes or skipAuthRoutes entry the proxy cannot use',
  CATALOG_AUTH_UPSTREAM: 'forward-auth cannot tell which app port it fronts',
  CATALOG_AUTH_PORT_CLASH: "a port takes the forward-auth proxy's number or name",
  CATALOG_AUTH_VM: 'forward-auth on a vm',
  CATALOG_METRICS_BYPASS: 'a metrics endpoint on the port behind forward-auth',
  CATALOG_LIVENESS_KIND: 'the liveness kind does not follow the rendered workload',
  CATALOG_SECURITY_ROOT: 'a runAs or root exception that is not explicit and reviewed',
  CATALOG_DEPENDENCY_UNKNOWN: 'a dependency names no service',
  CATALOG_DEPENDENCY_PORT: 'a dependency names a port its target does not expose to it',
  CATALOG_DEPENDENCY_PROXY: "an in-cluster call through a forward-auth target's login proxy",
  CATALOG_DEPENDENCY_SELF: 'a service depends on itself',
  CATALOG_DEPENDENCY_DUPLICATE: 'a dependency listed twice',
  CATALOG_DEPENDENCY_NOT_ACCEPTED:
    'warning: the target does not list the caller in inClusterClients',
  CATALOG_CLIENT_SELF: 'a service lists itself as a client',
  CATALOG_CLIENT_UNKNOWN: 'warning: an in-cluster client names no service',
  CATALOG_DUPLICATE_SERVICE: 'two files define one service',
  CATALOG_RESERVED_NAME: "a service named after a namespace the platform's own pods use",
  CATALOG_GPU_IGNORED: 'warning: hardware.gpu on a vm',
  CATALOG_FILE_NAME: 'warning: the file is not named <name>.yaml',
  CATALOG_INVALID_OBJECT: 'a rendered object fails its schema',
  CATALOG_NAME_COLLISION: 'two objects of one kind would share a file',
  CATALOG_CONFORMANCE: 'a conformance check failed',
  CATALOG_GOLDEN_DIFF: 'the apps directory does not reproduce from the catalog',
  CATALOG_IMMUTABLE_FIELD: 'the new render changes a field the API server forbids changing',
  CATALOG_UNREADABLE: 'a catalog or apps directory cannot be read',
} as const;

export type CatalogCode = keyof typeof CATALOG_CODES;

declare module '../base/codes.js' {
  interface CodeRegistry {
    catalog: typeof CATALOG_CODES;
  }
}
