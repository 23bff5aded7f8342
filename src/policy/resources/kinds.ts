/**
 * The kinds this module reads, their API groups and the versions it accepts: what the loader
 * dispatches on, and what it names in a `POLICY_UNSUPPORTED_API_VERSION` hint.
 */
import { hasLinkerdSchema } from './check-crd.js';
import { isWorkload } from './read-workloads.js';

const GATEWAY = /^gateway\.networking\.k8s\.io\/v1(alpha\d+|beta\d+)?$/;
export const EXTENSION = 'policy.labelwise.dev/v1alpha1';

/** For the hint of `POLICY_UNSUPPORTED_API_VERSION`. */
export const SUPPORTED_VERSIONS: Readonly<Record<string, string>> = {
  Namespace: 'v1',
  Pod: 'v1',
  Server: 'policy.linkerd.io/v1alpha1 … v1beta3',
  AuthorizationPolicy: 'policy.linkerd.io/v1alpha1',
  MeshTLSAuthentication: 'policy.linkerd.io/v1alpha1',
  NetworkAuthentication: 'policy.linkerd.io/v1alpha1',
  ServerAuthorization: 'policy.linkerd.io/v1beta1 (or v1alpha1)',
  HTTPRoute:
    'gateway.networking.k8s.io/v1 (or v1beta1, v1alpha2), policy.linkerd.io/v1alpha1 … v1beta3',
  GRPCRoute: 'gateway.networking.k8s.io/v1 (or v1alpha2)',
  HTTPLocalRateLimitPolicy: 'policy.linkerd.io/v1alpha1',
  ExternalWorkload: 'workload.linkerd.io/v1beta1 (or v1alpha1)',
  Service: 'v1',
  EgressNetwork: 'policy.linkerd.io/v1alpha1',
  TLSRoute: 'gateway.networking.k8s.io/v1alpha2 (or v1alpha3)',
  TCPRoute: 'gateway.networking.k8s.io/v1alpha2',
  HttpRouteGroup: EXTENSION,
  HttpRouteBinding: EXTENSION,
  HttpRouteClass: EXTENSION,
  TimeoutPolicy: EXTENSION,
  HeaderRewritePolicy: EXTENSION,
  GrpcService: EXTENSION,
  GrpcServiceBinding: EXTENSION,
  GrpcServiceClass: EXTENSION,
  TelemetryPolicy: EXTENSION,
};

/** The API group each kind this module reads belongs to (`''`: the core group). */
const GROUPS: Readonly<Record<string, readonly string[]>> = {
  Namespace: [''],
  Pod: [''],
  Server: ['policy.linkerd.io'],
  AuthorizationPolicy: ['policy.linkerd.io'],
  MeshTLSAuthentication: ['policy.linkerd.io'],
  NetworkAuthentication: ['policy.linkerd.io'],
  ServerAuthorization: ['policy.linkerd.io'],
  HTTPRoute: ['policy.linkerd.io', 'gateway.networking.k8s.io'],
  GRPCRoute: ['gateway.networking.k8s.io'],
  HTTPLocalRateLimitPolicy: ['policy.linkerd.io'],
  ExternalWorkload: ['workload.linkerd.io'],
  Service: [''],
  EgressNetwork: ['policy.linkerd.io'],
  TLSRoute: ['gateway.networking.k8s.io'],
  TCPRoute: ['gateway.networking.k8s.io'],
  HttpRouteGroup: ['policy.labelwise.dev'],
  HttpRouteBinding: ['policy.labelwise.dev'],
  HttpRouteClass: ['policy.labelwise.dev'],
  TimeoutPolicy: ['policy.labelwise.dev'],
  HeaderRewritePolicy: ['policy.labelwise.dev'],
  GrpcService: ['policy.labelwise.dev'],
  GrpcServiceBinding: ['policy.labelwise.dev'],
  GrpcServiceClass: ['policy.labelwise.dev'],
  TelemetryPolicy: ['policy.labelwise.dev'],
};

/**
 * A kind this module reads, in its own API group, at a version it does not read (a typo such as
 * `policy.linkerd.io/v1beta9`, or `v2` for a Pod). Such an object is not silently skipped: what
 * refers to it would otherwise report it as missing.
 */
export function unsupportedVersion(kind: string, apiVersion: string): boolean {
  const groups = Object.prototype.hasOwnProperty.call(GROUPS, kind) ? GROUPS[kind] : undefined;
  if (groups === undefined) return false;
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return groups.includes(group) && !accepts(kind, apiVersion);
}

/** Kinds this module reads, by kind → apiVersion test. Other kinds are skipped silently. */
export function accepts(kind: string, apiVersion: string): boolean {
  switch (kind) {
    case 'Namespace':
    case 'Pod':
    case 'Service':
      return apiVersion === 'v1';
    case 'Server':
    case 'AuthorizationPolicy':
    case 'MeshTLSAuthentication':
    case 'NetworkAuthentication':
    case 'ServerAuthorization':
    case 'HTTPLocalRateLimitPolicy':
    case 'ExternalWorkload':
    case 'EgressNetwork':
      // Exactly the versions Linkerd's CRDs serve (src/policy/crds/).
      return hasLinkerdSchema(apiVersion, kind);
    case 'HTTPRoute':
      return hasLinkerdSchema(apiVersion, kind) || GATEWAY.test(apiVersion);
    case 'GRPCRoute':
      return GATEWAY.test(apiVersion);
    case 'TLSRoute':
      return /^gateway\.networking\.k8s\.io\/v1alpha[23]$/.test(apiVersion);
    case 'TCPRoute':
      return apiVersion === 'gateway.networking.k8s.io/v1alpha2';
    case 'HttpRouteGroup':
    case 'HttpRouteBinding':
    case 'HttpRouteClass':
    case 'TimeoutPolicy':
    case 'HeaderRewritePolicy':
    case 'GrpcService':
    case 'GrpcServiceBinding':
    case 'GrpcServiceClass':
    case 'TelemetryPolicy':
      return apiVersion === EXTENSION;
    default:
      return isWorkload(kind, apiVersion);
  }
}
