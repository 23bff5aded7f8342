/**
 * From YAML documents to {@link PolicyResources}: dispatch on apiVersion and kind, validate
 * each object (every problem collected, with file, line and path), and sort the result so the
 * output never depends on file order.
 */
import { compareText, pushAll } from '../../base/index.js';
import type {
  ObjectMeta,
  PolicyProblem,
  PolicyResources,
  RateLimitPolicy,
  RejectedObject,
} from '../types.js';
import { ReadContext, isRecord } from './read-context.js';
import {
  readAuthorizationPolicy,
  readMeshTLSAuthentication,
  readNetworkAuthentication,
  readServerAuthorization,
} from './read-authz.js';
import { readExternalWorkload, readMeta, readNamespace, readPod, readServer } from './read-core.js';
import { readRateLimitPolicy } from './read-ratelimit.js';
import {
  readHeaderRewritePolicy,
  readRouteBinding,
  readRouteClass,
  readRouteGroup,
  readTimeoutPolicy,
} from './read-extension.js';
import { readRoute } from './read-routes.js';
import { isWorkload, readWorkload } from './read-workloads.js';
import type { YamlDoc } from './yaml-docs.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer E)[] ? E[] : T[K] };

const LINKERD_POLICY = /^policy\.linkerd\.io\/v1(alpha\d+|beta\d+)$/;
const GATEWAY = /^gateway\.networking\.k8s\.io\/v1(alpha\d+|beta\d+)?$/;
export const EXTENSION = 'policy.labelwise.dev/v1alpha1';
const WORKLOAD = /^workload\.linkerd\.io\/v1(alpha\d+|beta\d+)$/;

/** For the hint of `POLICY_UNSUPPORTED_API_VERSION`. */
const SUPPORTED_VERSIONS: Readonly<Record<string, string>> = {
  Namespace: 'v1',
  Pod: 'v1',
  Server: 'policy.linkerd.io/v1alpha1 … v1beta3',
  AuthorizationPolicy: 'policy.linkerd.io/v1alpha1',
  MeshTLSAuthentication: 'policy.linkerd.io/v1alpha1',
  NetworkAuthentication: 'policy.linkerd.io/v1alpha1',
  ServerAuthorization: 'policy.linkerd.io/v1beta1',
  HTTPRoute: 'gateway.networking.k8s.io/v1 (or v1beta1, v1alpha2), policy.linkerd.io/v1beta3',
  GRPCRoute: 'gateway.networking.k8s.io/v1 (or v1alpha2)',
  HTTPLocalRateLimitPolicy: 'policy.linkerd.io/v1alpha1',
  ExternalWorkload: 'workload.linkerd.io/v1beta1 (or v1alpha1)',
  HttpRouteGroup: EXTENSION,
  HttpRouteBinding: EXTENSION,
  HttpRouteClass: EXTENSION,
  TimeoutPolicy: EXTENSION,
  HeaderRewritePolicy: EXTENSION,
};

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
  HttpRouteGroup: ['policy.labelwise.dev'],
  HttpRouteBinding: ['policy.labelwise.dev'],
  HttpRouteClass: ['policy.labelwise.dev'],
  TimeoutPolicy: ['policy.labelwise.dev'],
  HeaderRewritePolicy: ['policy.labelwise.dev'],
};

/**
 * A kind this module reads, in its own API group, at a version it does not read (a typo such as
 * `policy.linkerd.io/v1beta9`, or `v2` for a Pod). Such an object is not silently skipped: what
 * refers to it would otherwise report it as missing.
 */
function unsupportedVersion(kind: string, apiVersion: string): boolean {
  const groups = Object.prototype.hasOwnProperty.call(GROUPS, kind) ? GROUPS[kind] : undefined;
  if (groups === undefined) return false;
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return groups.includes(group) && !accepts(kind, apiVersion);
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
    case 'HTTPLocalRateLimitPolicy':
      return LINKERD_POLICY.test(apiVersion);
    case 'ExternalWorkload':
      return WORKLOAD.test(apiVersion);
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
      return isWorkload(kind, apiVersion);
  }
}

/**
 * Reads every policy-relevant object of `docs`. Objects with errors are left out of the
 * resources (and reported) and listed in `resources.rejected`; duplicates (same kind, namespace
 * and name) keep the first and report the second. A kind this module reads in its own API group
 * but at an unknown version gets a `POLICY_UNSUPPORTED_API_VERSION` warning and is rejected too.
 * Never throws on input.
 */
export function readResources(docs: readonly YamlDoc[]): {
  resources: PolicyResources;
  problems: PolicyProblem[];
} {
  const out = emptyResources();
  const rateLimits: RateLimitPolicy[] = [];
  out.rateLimitPolicies = rateLimits;
  const problems: PolicyProblem[] = [];
  const rejected: RejectedObject[] = [];
  /** Where each object was first defined, and whether that definition was kept. */
  const seen = new Map<string, { at: string; kept: boolean }>();
  const reject = (kind: string, meta: ObjectMeta, ctx: ReadContext): void => {
    const first = ctx.problems[0];
    rejected.push({
      kind,
      namespace: meta.namespace,
      name: meta.name,
      code: first?.code ?? 'POLICY_INVALID_FIELD',
      at: { file: first?.file ?? meta.at.file, line: first?.line ?? meta.at.line },
    });
  };
  for (const doc of docs) {
    if (doc.value === null || doc.value === undefined) continue;
    const ctx = new ReadContext(doc, `document ${doc.index + 1}`);
    if (!isRecord(doc.value)) {
      ctx.fail(
        'POLICY_NOT_AN_OBJECT',
        [],
        'a document must be a Kubernetes object (a mapping with apiVersion and kind)',
      );
      pushAll(problems, ctx.problems);
      continue;
    }
    const kind = ctx.string(['kind']);
    const apiVersion = ctx.string(['apiVersion']);
    if (kind === 'List' && apiVersion === 'v1') {
      ctx.fail(
        'POLICY_UNSUPPORTED_LIST',
        ['items'],
        'kind List is not read; write one object per YAML document',
      );
      pushAll(problems, ctx.problems);
      continue;
    }
    if (kind !== undefined && apiVersion !== undefined && unsupportedVersion(kind, apiVersion)) {
      const name = ctx.get(['metadata', 'name']);
      const namespace = ctx.get(['metadata', 'namespace']);
      const ns = kind === 'Namespace' ? name : (namespace ?? 'default');
      if (typeof name === 'string') ctx.object = `${kind} ${String(ns)}/${name}`;
      problems.push({
        severity: 'warning',
        code: 'POLICY_UNSUPPORTED_API_VERSION',
        ...(typeof name === 'string' ? { object: ctx.object } : {}),
        file: doc.file,
        line: doc.lineOf(['apiVersion']),
        path: 'apiVersion',
        message: `${kind} ${JSON.stringify(apiVersion)} is not a version this tool reads, so the object is left out`,
        hint: `supported: ${SUPPORTED_VERSIONS[kind] ?? ''}`,
      });
      if (typeof name === 'string' && typeof ns === 'string') {
        rejected.push({
          kind,
          namespace: ns,
          name,
          code: 'POLICY_UNSUPPORTED_API_VERSION',
          at: { file: doc.file, line: doc.lineOf(['apiVersion']) },
        });
      }
      continue;
    }
    if (kind === undefined || apiVersion === undefined || !accepts(kind, apiVersion)) {
      pushAll(problems, ctx.problems);
      continue;
    }
    const meta = readMeta(ctx, kind, apiVersion, kind !== 'Namespace');
    if (meta === undefined) {
      pushAll(problems, ctx.problems);
      continue;
    }
    // Objects are identified by group, kind, namespace and name: an HTTPRoute in
    // policy.linkerd.io and one in gateway.networking.k8s.io may share a name.
    const identity = `${apiVersion.split('/')[0] ?? ''}/${kind} ${meta.namespace}/${meta.name}`;
    const first = seen.get(identity);
    if (first?.kept === true) {
      ctx.fail(
        'POLICY_DUPLICATE_OBJECT',
        ['metadata', 'name'],
        `${ctx.object} is defined twice; the first definition (${first.at}) is used`,
      );
      pushAll(problems, ctx.problems);
      continue;
    }
    if (first !== undefined) {
      // The first definition was rejected, so it cannot be "the one used": this one is read
      // (as applying both files would leave it in the cluster), and the duplicate still reported.
      problems.push({
        severity: 'error',
        code: 'POLICY_DUPLICATE_OBJECT',
        object: ctx.object,
        file: doc.file,
        line: doc.lineOf(['metadata', 'name']),
        path: 'metadata.name',
        message: `${ctx.object} is defined twice; the first definition (${first.at}) has errors and is left out, so this one is used`,
      });
    }
    const entry = { at: `${meta.at.file}:${meta.at.line}`, kept: false };
    if (first === undefined) seen.set(identity, entry);
    let kept: boolean;
    // Namespaces and Pods are read whole (readers never return undefined for them); like the
    // others, one with an error is left out, as the API server would refuse it.
    switch (kind) {
      case 'Namespace':
        kept = push(out.namespaces, readNamespace(ctx, meta), ctx);
        break;
      case 'Pod':
        kept = push(out.pods, readPod(ctx, meta), ctx);
        break;
      case 'ExternalWorkload':
        kept = push(out.pods, readExternalWorkload(ctx, meta), ctx);
        break;
      case 'HTTPLocalRateLimitPolicy':
        kept = push(rateLimits, readRateLimitPolicy(ctx, meta), ctx);
        break;
      case 'Server':
        kept = push(out.servers, readServer(ctx, meta), ctx);
        break;
      case 'HTTPRoute':
      case 'GRPCRoute':
        kept = push(out.routes, readRoute(ctx, meta, kind), ctx);
        break;
      case 'AuthorizationPolicy':
        kept = push(out.authorizationPolicies, readAuthorizationPolicy(ctx, meta), ctx);
        break;
      case 'MeshTLSAuthentication':
        kept = push(out.meshTLSAuthentications, readMeshTLSAuthentication(ctx, meta), ctx);
        break;
      case 'NetworkAuthentication':
        kept = push(out.networkAuthentications, readNetworkAuthentication(ctx, meta), ctx);
        break;
      case 'ServerAuthorization':
        kept = push(out.serverAuthorizations, readServerAuthorization(ctx, meta), ctx);
        break;
      case 'HttpRouteGroup':
        kept = push(out.routeGroups, readRouteGroup(ctx, meta), ctx);
        break;
      case 'HttpRouteBinding':
        kept = push(out.routeBindings, readRouteBinding(ctx, meta), ctx);
        break;
      case 'HttpRouteClass':
        kept = push(out.routeClasses, readRouteClass(ctx, meta), ctx);
        break;
      case 'TimeoutPolicy':
        kept = push(out.timeoutPolicies, readTimeoutPolicy(ctx, meta), ctx);
        break;
      case 'HeaderRewritePolicy':
        kept = push(out.headerRewritePolicies, readHeaderRewritePolicy(ctx, meta), ctx);
        break;
      default:
        // Deployments, StatefulSets, …: their pod template, as the pods they create.
        kept = push(out.pods, readWorkload(ctx, meta), ctx);
    }
    if (!kept) reject(kind, meta, ctx);
    else if (first === undefined) entry.kept = true;
    else seen.set(identity, { at: entry.at, kept: true });
    pushAll(problems, ctx.problems);
  }
  for (const list of Object.values(out) as {
    meta: { namespace: string; name: string; kind: string; apiVersion: string };
  }[][]) {
    list.sort(
      (a, b) =>
        compareText(a.meta.namespace, b.meta.namespace) ||
        compareText(a.meta.name, b.meta.name) ||
        compareText(a.meta.kind, b.meta.kind) ||
        compareText(a.meta.apiVersion, b.meta.apiVersion),
    );
  }
  rejected.sort(
    (a, b) =>
      compareText(a.kind, b.kind) ||
      compareText(a.namespace, b.namespace) ||
      compareText(a.name, b.name),
  );
  return { resources: { ...out, rejected }, problems };
}

/** Keeps `value` when it was read without problems; false when the object is left out. */
function push<T>(list: T[], value: T | undefined, ctx: ReadContext): boolean {
  if (value === undefined || ctx.problems.length > 0) return false;
  list.push(value);
  return true;
}
