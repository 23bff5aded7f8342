/**
 * The diagnostic and error codes of `src/policy`, with what each means. Every code has a row in
 * docs/policy.md and is exercised by a test. Codes are stable: never renamed or reused.
 * Retired (no longer produced, documented as such, never reused): POLICY_INVALID_PARENT.
 */
export const POLICY_CODES = {
  // Reading and YAML
  POLICY_YAML_SYNTAX: 'a document cannot be read as YAML; it is skipped',
  POLICY_FILE_TOO_LARGE: 'stdin input over the size limit (files: READ_TOO_LARGE)',
  POLICY_UNREADABLE: 'the policy directory, a file or the settings file cannot be read',
  POLICY_NO_FILES: 'no input: the directory holds no YAML file, or stdin is a terminal',
  POLICY_NOT_AN_OBJECT: 'a document is not a Kubernetes object',
  POLICY_UNSUPPORTED_LIST: 'a kind: List document',
  POLICY_UNSUPPORTED_API_VERSION: 'a known kind at a version this module does not read',
  POLICY_DUPLICATE_OBJECT: 'the same group, kind, namespace and name twice',
  POLICY_DEFAULT_NAMESPACE: 'objects without metadata.namespace fall back to default',
  // Admission
  POLICY_UNKNOWN_FIELD: "a field Linkerd's CRD for that apiVersion does not have",
  POLICY_SCHEMA_MISMATCH: "a value Linkerd's CRD schema refuses (and no reader check names it)",
  POLICY_MISSING_FIELD: 'a required field is absent',
  POLICY_INVALID_FIELD: 'a field has the wrong type or form',
  POLICY_INVALID_NAME: 'a name that is not a lowercase DNS subdomain',
  POLICY_INVALID_LABEL: 'a label Kubernetes would refuse',
  POLICY_INVALID_PORT: 'a port outside 1-65535, quoted, or a bad port name',
  POLICY_INVALID_PROTOCOL: 'an unknown proxyProtocol',
  POLICY_INVALID_ACCESS_POLICY: 'an unknown accessPolicy',
  POLICY_INVALID_SELECTOR: 'a malformed selector, or both pod and external workload selectors',
  POLICY_INVALID_HOSTNAME: 'a route hostname that is not a DNS name',
  POLICY_INVALID_MATCH: 'an unknown match type or method, a bad header name, a regex gRPC match',
  POLICY_RELATIVE_PATH: 'a path match, redirect path or request path not starting with /',
  POLICY_INVALID_REGEX: 'a regular expression RE2 cannot compile',
  POLICY_INVALID_FILTER: 'a redirect with a bad status or an empty path modifier',
  POLICY_UNSUPPORTED_FILTER: 'a filter type no inbound route supports',
  POLICY_INVALID_BACKEND: 'a Service backendRef without a port',
  POLICY_INVALID_DURATION: 'a malformed timeout, or backendRequest longer than request',
  POLICY_UNSUPPORTED_REF: 'a reference of a kind or group that is not supported',
  POLICY_TARGET_OTHER_NAMESPACE: 'an AuthorizationPolicy targeting another namespace',
  POLICY_DUPLICATE_AUTHENTICATION: 'two identity or network references that may not be combined',
  POLICY_INVALID_AUTHENTICATION: 'a MeshTLS or Network authentication with nothing or too much',
  POLICY_INVALID_IDENTITY: 'a malformed identity pattern or SPIFFE ID',
  POLICY_INVALID_NETWORK: 'a bad CIDR, or an except outside or covering its cidr',
  POLICY_INVALID_SERVER_REF: 'a ServerAuthorization server without exactly one of name/selector',
  POLICY_INVALID_CLIENT: 'a ServerAuthorization client combining exclusive fields',
  POLICY_INVALID_RATE_LIMIT: 'a rate of 0, or an identity or override rate above total',
  POLICY_INVALID_ROUTE: 'a group route without exactly one of path/routeGroupRef',
  POLICY_INVALID_TEMPLATE: 'a malformed path template',
  POLICY_TEMPLATE_CONFLICT: 'two routes of one group with the same method and shape',
  POLICY_RESERVED_LABEL: 'a route label the model derives itself',
  POLICY_INVALID_REWRITE: 'a rewrite rule with neither set nor clear',
  POLICY_DUPLICATE_GRPC_METHOD: 'a GrpcService listing one method twice',
  POLICY_INVALID_ANNOTATION: 'an unknown default policy or a bad port list in an annotation',
  POLICY_INVALID_OUTBOUND_ANNOTATION: 'a retry or timeout annotation of an outbound route',
  // Lint
  POLICY_AUTHN_REF_MISSING: 'an AuthorizationPolicy names a missing authentication (dropped)',
  POLICY_TARGET_MISSING: 'a policy target that does not exist',
  POLICY_REF_INVALID: 'a reference to an object that was rejected',
  POLICY_ROUTE_PARENT_MISSING: 'a route or binding parent Server that does not exist',
  POLICY_ROUTE_CONFLICTED: 'an HTTPRoute on a Server that has GRPCRoutes',
  POLICY_ROUTE_PARENT_IGNORED: 'a parentRef (or whole route) Linkerd ignores for inbound policy',
  POLICY_SERVER_OVERLAP: 'two Servers can select one pod and port',
  POLICY_PROBE_NOT_ROUTED: 'a pod probe will get 404, 403 or a refused connection',
  POLICY_RULE_SHADOWED: 'a route rule that can never be selected',
  POLICY_ROUTE_POLICY_NO_EFFECT: 'a route-level policy a Server-level one already covers',
  POLICY_AUTHZ_BROADER_THAN_ROUTES: 'a Server-level authorization broader than the routes need',
  POLICY_REWRITE_COLLISION: 'two exclusive rewrite policies can apply to one request',
  POLICY_ROUTE_ON_OPAQUE: 'routes on an opaque or TLS Server',
  POLICY_CLASS_SELECTS_NOTHING: 'an HttpRouteClass matching none of its Server routes',
  POLICY_ROUTE_GROUP_MISSING: 'a binding or group names a missing route group',
  POLICY_ROUTE_GROUP_CYCLE: 'route groups nest in a cycle',
  POLICY_GRPC_SERVICE_MISSING: 'a GrpcServiceBinding names a missing GrpcService',
  POLICY_GRPC_CLASS_SELECTS_NOTHING: 'a GrpcServiceClass matching none of its bound methods',
  POLICY_SERVER_AUTHORIZATION_DROPPED: 'a ServerAuthorization Linkerd admits and then drops',
  POLICY_RATE_LIMIT_UNUSED: 'an HTTPLocalRateLimitPolicy that is not in force',
  // Lint, outbound
  POLICY_OUTBOUND_ANNOTATION_IGNORED: 'a Service or EgressNetwork annotation Linkerd ignores',
  POLICY_OUTBOUND_PARENT_MISSING: 'a route parent Service or EgressNetwork that does not exist',
  POLICY_BACKEND_MISSING: 'a backendRef to a Service or port that does not exist (500s)',
  POLICY_BACKEND_INVALID: 'a backendRef Linkerd cannot route to (500s)',
  POLICY_BACKEND_WEIGHTS_ZERO: 'a rule whose backend weights sum to zero',
  POLICY_RETRY_UNBUDGETED: 'retries for non-idempotent methods without a retry budget',
  POLICY_OUTBOUND_RULE_SHADOWED: 'an outbound route rule another route always wins over',
  POLICY_EGRESS_ALLOWS_UNROUTED: 'routes on an Allow EgressNetwork, which restrict nothing',
  // Commands
  POLICY_INVALID_SETTING: 'a bad cluster setting or settings file',
  POLICY_UNKNOWN_POD: 'the pod named is not in the input, or was rejected',
  POLICY_INVALID_CLIENT_IP: 'the client IP is not an address',
  POLICY_INVALID_HEADER: 'a --header without name:value',
  POLICY_INVALID_DESTINATION: 'route --to is not svc.ns:port or ip:port',
  POLICY_UNKNOWN_SERVICE: 'route --to names a Service that is not in the input',
  POLICY_MATRIX_UNKNOWN: 'matrix --explain names no row or client',
  POLICY_EXPECTATION_INVALID: 'a malformed expectations file entry',
  POLICY_EXPECTATION_FAILED: 'an expectation does not hold',
} as const;

export type PolicyCode = keyof typeof POLICY_CODES;

declare module '../base/codes.js' {
  interface CodeRegistry {
    policy: typeof POLICY_CODES;
  }
}
