/**
 * From YAML documents to {@link PolicyResources}: dispatch on apiVersion and kind, validate
 * each object (every problem collected, with file, line and path), and sort the result so the
 * output never depends on file order.
 */
import { compareStrings } from '../../selector/index.js';
import type { PolicyProblem, PolicyResources } from '../types.js';
import { ReadContext, isRecord } from './read-context.js';
import {
  readAuthorizationPolicy,
  readMeshTLSAuthentication,
  readNetworkAuthentication,
  readServerAuthorization,
} from './read-authz.js';
import { readMeta, readNamespace, readPod, readServer } from './read-core.js';
import {
  readHeaderRewritePolicy,
  readRouteBinding,
  readRouteClass,
  readRouteGroup,
  readTimeoutPolicy,
} from './read-extension.js';
import { readRoute } from './read-routes.js';
import type { YamlDoc } from './yaml-docs.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer E)[] ? E[] : T[K] };

const LINKERD_POLICY = /^policy\.linkerd\.io\/v1(alpha\d+|beta\d+)$/;
const GATEWAY = /^gateway\.networking\.k8s\.io\/v1(alpha\d+|beta\d+)?$/;
const EXTENSION = 'policy.labelwise.dev/v1alpha1';

function emptyResources(): Mutable<PolicyResources> {
  return {
    namespaces: [],
    pods: [],
    servers: [],
    routes: [],
    authorizationPolicies: [],
    meshTLSAuthentications: [],
    networkAuthentications: [],
    serverAuthorizations: [],
    routeGroups: [],
    routeBindings: [],
    routeClasses: [],
    timeoutPolicies: [],
    headerRewritePolicies: [],
  };
}

/** Kinds this module reads, by kind → apiVersion test. Other kinds are skipped silently. */
function accepts(kind: string, apiVersion: string): boolean {
  switch (kind) {
    case 'Namespace':
    case 'Pod':
      return apiVersion === 'v1';
    case 'Server':
    case 'AuthorizationPolicy':
    case 'MeshTLSAuthentication':
    case 'NetworkAuthentication':
    case 'ServerAuthorization':
      return LINKERD_POLICY.test(apiVersion);
    case 'HTTPRoute':
      return LINKERD_POLICY.test(apiVersion) || GATEWAY.test(apiVersion);
    case 'GRPCRoute':
      return GATEWAY.test(apiVersion);
    case 'HttpRouteGroup':
    case 'HttpRouteBinding':
    case 'HttpRouteClass':
    case 'TimeoutPolicy':
    case 'HeaderRewritePolicy':
      return apiVersion === EXTENSION;
    default:
      return false;
  }
}

/**
 * Reads every policy-relevant object of `docs`. Objects with errors are left out of the
 * resources (and reported); duplicates (same kind, namespace and name) keep the first and
 * report the second. Never throws on input.
 */
export function readResources(docs: readonly YamlDoc[]): {
  resources: PolicyResources;
  problems: PolicyProblem[];
} {
  const out = emptyResources();
  const problems: PolicyProblem[] = [];
  const seen = new Map<string, string>();
  for (const doc of docs) {
    if (doc.value === null || doc.value === undefined) continue;
    const ctx = new ReadContext(doc, `document ${doc.index + 1}`);
    if (!isRecord(doc.value)) {
      ctx.fail(
        [],
        'POLICY_NOT_AN_OBJECT',
        'a document must be a Kubernetes object (a mapping with apiVersion and kind)',
      );
      problems.push(...ctx.problems);
      continue;
    }
    const kind = ctx.string(['kind']);
    const apiVersion = ctx.string(['apiVersion']);
    if (kind === 'List' && apiVersion === 'v1') {
      ctx.fail(
        ['items'],
        'POLICY_UNSUPPORTED_LIST',
        'kind List is not read; write one object per YAML document',
      );
      problems.push(...ctx.problems);
      continue;
    }
    if (kind === undefined || apiVersion === undefined || !accepts(kind, apiVersion)) {
      problems.push(...ctx.problems);
      continue;
    }
    const meta = readMeta(ctx, kind, apiVersion, kind !== 'Namespace');
    if (meta === undefined) {
      problems.push(...ctx.problems);
      continue;
    }
    const identity = `${kind} ${meta.namespace}/${meta.name}`;
    const first = seen.get(identity);
    if (first !== undefined) {
      ctx.fail(
        ['metadata', 'name'],
        'POLICY_DUPLICATE_OBJECT',
        `${ctx.object} is defined twice; the first definition (${first}) is used`,
      );
      problems.push(...ctx.problems);
      continue;
    }
    seen.set(identity, `${meta.at.file}:${meta.at.line}`);
    switch (kind) {
      case 'Namespace':
        out.namespaces.push(readNamespace(ctx, meta));
        break;
      case 'Pod':
        out.pods.push(readPod(ctx, meta));
        break;
      case 'Server':
        push(out.servers, readServer(ctx, meta));
        break;
      case 'HTTPRoute':
      case 'GRPCRoute':
        push(out.routes, readRoute(ctx, meta, kind));
        break;
      case 'AuthorizationPolicy':
        push(out.authorizationPolicies, readAuthorizationPolicy(ctx, meta));
        break;
      case 'MeshTLSAuthentication':
        push(out.meshTLSAuthentications, readMeshTLSAuthentication(ctx, meta));
        break;
      case 'NetworkAuthentication':
        push(out.networkAuthentications, readNetworkAuthentication(ctx, meta));
        break;
      case 'ServerAuthorization':
        push(out.serverAuthorizations, readServerAuthorization(ctx, meta));
        break;
      case 'HttpRouteGroup':
        push(out.routeGroups, readRouteGroup(ctx, meta));
        break;
      case 'HttpRouteBinding':
        push(out.routeBindings, readRouteBinding(ctx, meta));
        break;
      case 'HttpRouteClass':
        push(out.routeClasses, readRouteClass(ctx, meta));
        break;
      case 'TimeoutPolicy':
        push(out.timeoutPolicies, readTimeoutPolicy(ctx, meta));
        break;
      case 'HeaderRewritePolicy':
        push(out.headerRewritePolicies, readHeaderRewritePolicy(ctx, meta));
        break;
    }
    problems.push(...ctx.problems);
  }
  for (const list of Object.values(out) as {
    meta: { namespace: string; name: string; kind: string };
  }[][]) {
    list.sort(
      (a, b) =>
        compareStrings(a.meta.namespace, b.meta.namespace) ||
        compareStrings(a.meta.name, b.meta.name) ||
        compareStrings(a.meta.kind, b.meta.kind),
    );
  }
  return { resources: out, problems };
}

function push<T>(list: T[], value: T | undefined): void {
  if (value !== undefined) list.push(value);
}
