/**
 * From YAML documents to {@link PolicyResources}: dispatch on apiVersion and kind, validate
 * each object (every problem collected, with file, line and path) by its reader and by Linkerd's
 * CRD for its version, and sort the result so the output never depends on file order.
 */
import { pushAll } from '../../base/index.js';
import {
  readEgressNetwork,
  readOutboundHttpRoute,
  readService,
  readStreamRoute,
} from '../outbound/read-outbound.js';
import type { HttpRoute, ObjectMeta, PolicyProblem, PolicyResources } from '../types.js';
import { checkLinkerdSchema } from './check-crd.js';
import { ResourceCollector } from './collector.js';
import type { Collected } from './collector.js';
import { SUPPORTED_VERSIONS, accepts, unsupportedVersion } from './kinds.js';
import { ReadContext, isRecord } from './read-context.js';
import {
  readAuthorizationPolicy,
  readMeshTLSAuthentication,
  readNetworkAuthentication,
  readServerAuthorization,
} from './read-authz.js';
import { readExternalWorkload, readMeta, readNamespace, readPod, readServer } from './read-core.js';
import { readGrpcService, readGrpcServiceBinding, readGrpcServiceClass } from './read-grpc.js';
import { readRateLimitPolicy } from './read-ratelimit.js';
import { readTelemetryPolicy } from './read-telemetry.js';
import {
  readHeaderRewritePolicy,
  readRouteBinding,
  readRouteClass,
  readRouteGroup,
  readTimeoutPolicy,
} from './read-extension.js';
import { readRoute } from './read-routes.js';
import { readWorkload } from './read-workloads.js';
import type { YamlDoc } from './yaml-docs.js';

/** Options for {@link readResources}. */
export interface ReadOptions {
  /**
   * The namespace of objects without `metadata.namespace`, as `kubectl apply -n` gives it.
   * Wins over `folderNamespaces`. Default: `default`, with a `POLICY_DEFAULT_NAMESPACE` warning
   * once per file that relies on it.
   */
  readonly namespace?: string;
  /**
   * Per folder of the input (relative, `/`-separated; `''` is the root): the namespace of that
   * folder's namespace-less objects, as a `labelwise.yaml` sets it. The deepest folder wins.
   * Default: none.
   */
  readonly folderNamespaces?: Readonly<Record<string, string>>;
}

/**
 * Reads every policy-relevant object of `docs`. Objects with errors are left out of the
 * resources (and reported) and listed in `resources.rejected`; duplicates (same kind, namespace
 * and name) keep the first and report the second. A kind this module reads in its own API group
 * but at an unknown version gets a `POLICY_UNSUPPORTED_API_VERSION` warning and is rejected too.
 * Never throws on input.
 */
export function readResources(
  docs: readonly YamlDoc[],
  options: ReadOptions = {},
): { resources: PolicyResources; problems: PolicyProblem[] } {
  const collector = new ResourceCollector();
  const defaulted = new Map<string, { line: number; count: number }>();
  for (const doc of docs) {
    if (doc.value === null || doc.value === undefined) continue;
    const ctx = new ReadContext(doc, `document ${doc.index + 1}`);
    const typed = admitDocument(ctx, collector);
    if (typed === undefined) continue;
    const fallback = namespaceFor(doc.file, options);
    const meta = readMeta(ctx, typed.kind, typed.apiVersion, typed.kind !== 'Namespace', fallback);
    if (meta === undefined) {
      pushAll(collector.problems, ctx.problems);
      continue;
    }
    if (options.namespace === undefined && usedFallback(ctx, typed.kind, fallback)) {
      const seen = defaulted.get(doc.file);
      if (seen === undefined) defaulted.set(doc.file, { line: meta.at.line, count: 1 });
      else seen.count++;
    }
    readObject(ctx, meta, collector);
  }
  for (const [file, { line, count }] of defaulted)
    collector.problems.push(defaultWarning(file, line, count));
  return collector.finish();
}

/** The fallback namespace of a file: `-n`, else its deepest configured folder, else `default`. */
function namespaceFor(file: string, options: ReadOptions): string {
  if (options.namespace !== undefined) return options.namespace;
  const folders = options.folderNamespaces;
  if (folders === undefined) return 'default';
  let best: string | undefined;
  let depth = -1;
  for (const [folder, namespace] of Object.entries(folders)) {
    const inside = folder === '' || file === folder || file.startsWith(`${folder}/`);
    if (inside && folder.length > depth) {
      best = namespace;
      depth = folder.length;
    }
  }
  return best ?? 'default';
}

/** A namespaced object without `metadata.namespace` that landed in `default` by no one's choice. */
function usedFallback(ctx: ReadContext, kind: string, fallback: string): boolean {
  return (
    kind !== 'Namespace' &&
    fallback === 'default' &&
    ctx.get(['metadata', 'namespace']) === undefined
  );
}

function defaultWarning(file: string, line: number, count: number): PolicyProblem {
  return {
    severity: 'warning',
    code: 'POLICY_DEFAULT_NAMESPACE',
    file,
    line,
    path: 'metadata.namespace',
    message: `${count} object(s) in this file have no metadata.namespace and are read into namespace default`,
    hint: 'pass -n NAMESPACE (as kubectl apply -n would), set policy.namespaces in labelwise.yaml, or write metadata.namespace',
  };
}

/**
 * The document's kind and apiVersion when this module reads it; otherwise its problems (not an
 * object, a List, a known kind at an unknown version) are recorded and undefined is returned.
 */
function admitDocument(
  ctx: ReadContext,
  collector: ResourceCollector,
): { kind: string; apiVersion: string } | undefined {
  const doc = ctx.doc;
  if (!isRecord(doc.value)) {
    ctx.fail(
      'POLICY_NOT_AN_OBJECT',
      [],
      'a document must be a Kubernetes object (a mapping with apiVersion and kind)',
    );
    pushAll(collector.problems, ctx.problems);
    return undefined;
  }
  const kind = ctx.string(['kind']);
  const apiVersion = ctx.string(['apiVersion']);
  if (kind === 'List' && apiVersion === 'v1') {
    ctx.fail(
      'POLICY_UNSUPPORTED_LIST',
      ['items'],
      'kind List is not read; write one object per YAML document',
    );
    pushAll(collector.problems, ctx.problems);
    return undefined;
  }
  if (kind !== undefined && apiVersion !== undefined && unsupportedVersion(kind, apiVersion)) {
    unsupported(ctx, kind, apiVersion, collector);
    return undefined;
  }
  if (kind === undefined || apiVersion === undefined || !accepts(kind, apiVersion)) {
    pushAll(collector.problems, ctx.problems);
    return undefined;
  }
  return { kind, apiVersion };
}

function unsupported(
  ctx: ReadContext,
  kind: string,
  apiVersion: string,
  collector: ResourceCollector,
): void {
  const doc = ctx.doc;
  const name = ctx.get(['metadata', 'name']);
  const namespace = ctx.get(['metadata', 'namespace']);
  const ns = kind === 'Namespace' ? name : (namespace ?? 'default');
  if (typeof name === 'string') ctx.object = `${kind} ${String(ns)}/${name}`;
  collector.problems.push({
    severity: 'warning',
    code: 'POLICY_UNSUPPORTED_API_VERSION',
    ...(typeof name === 'string' ? { object: ctx.object } : {}),
    file: doc.file,
    line: doc.lineOf(['apiVersion']),
    path: 'apiVersion',
    message: `${kind} ${JSON.stringify(apiVersion)} is not a version this tool reads, so the object is left out`,
    hint: `supported: ${SUPPORTED_VERSIONS[kind] ?? ''}`,
  });
  if (typeof name === 'string' && typeof ns === 'string')
    collector.rejected.push({
      kind,
      namespace: ns,
      name,
      code: 'POLICY_UNSUPPORTED_API_VERSION',
      at: { file: doc.file, line: doc.lineOf(['apiVersion']) },
    });
}

/** Reads one object of a known kind: duplicate check, its reader, its CRD; keeps or rejects it. */
function readObject(ctx: ReadContext, meta: ObjectMeta, collector: ResourceCollector): void {
  const slot = collector.claim(ctx, meta);
  if (slot === undefined) return;
  const kept = dispatch(ctx, meta, collector.out);
  collector.settle(ctx, meta, slot, kept);
}

/**
 * The kind's reader, then Linkerd's CRD for its version. Namespaces and Pods are read whole
 * (readers never return undefined for them); like the others, one with an error is left out, as
 * the API server would refuse it.
 */
function dispatch(ctx: ReadContext, meta: ObjectMeta, out: Collected): boolean {
  const read = readByKind(ctx, meta, out);
  checkLinkerdSchema(ctx, meta.apiVersion, meta.kind, ctx.problems.length);
  if (read === undefined || ctx.problems.length > 0) return false;
  read();
  return true;
}

/** Reads the object; returns how to keep it, or undefined when its reader refused it. */
function readByKind(ctx: ReadContext, meta: ObjectMeta, out: Collected): (() => void) | undefined {
  const kind = meta.kind;
  switch (kind) {
    case 'Namespace':
      return keep(out.namespaces, readNamespace(ctx, meta));
    case 'Pod':
      return keep(out.pods, readPod(ctx, meta));
    case 'ExternalWorkload':
      return keep(out.pods, readExternalWorkload(ctx, meta));
    case 'HTTPLocalRateLimitPolicy':
      return keep(out.rateLimitPolicies, readRateLimitPolicy(ctx, meta));
    case 'Server':
      return keep(out.servers, readServer(ctx, meta));
    case 'HTTPRoute':
    case 'GRPCRoute':
      return keepRoute(ctx, out, readRoute(ctx, meta, kind));
    case 'TLSRoute':
    case 'TCPRoute':
      return keep(out.outboundRoutes, readStreamRoute(ctx, meta, kind));
    case 'Service':
      return keep(out.services, readService(ctx, meta));
    case 'EgressNetwork':
      return keep(out.egressNetworks, readEgressNetwork(ctx, meta));
    case 'AuthorizationPolicy':
      return keep(out.authorizationPolicies, readAuthorizationPolicy(ctx, meta));
    case 'MeshTLSAuthentication':
      return keep(out.meshTLSAuthentications, readMeshTLSAuthentication(ctx, meta));
    case 'NetworkAuthentication':
      return keep(out.networkAuthentications, readNetworkAuthentication(ctx, meta));
    case 'ServerAuthorization':
      return keep(out.serverAuthorizations, readServerAuthorization(ctx, meta));
    case 'HttpRouteGroup':
      return keep(out.routeGroups, readRouteGroup(ctx, meta));
    case 'HttpRouteBinding':
      return keep(out.routeBindings, readRouteBinding(ctx, meta));
    case 'HttpRouteClass':
      return keep(out.routeClasses, readRouteClass(ctx, meta));
    case 'TimeoutPolicy':
      return keep(out.timeoutPolicies, readTimeoutPolicy(ctx, meta));
    case 'HeaderRewritePolicy':
      return keep(out.headerRewritePolicies, readHeaderRewritePolicy(ctx, meta));
    case 'GrpcService':
      return keep(out.grpcServices, readGrpcService(ctx, meta));
    case 'GrpcServiceBinding':
      return keep(out.grpcServiceBindings, readGrpcServiceBinding(ctx, meta));
    case 'GrpcServiceClass':
      return keep(out.grpcServiceClasses, readGrpcServiceClass(ctx, meta));
    case 'TelemetryPolicy':
      return keep(out.telemetryPolicies, readTelemetryPolicy(ctx, meta));
    default:
      // Deployments, StatefulSets, …: their pod template, as the pods they create.
      return keep(out.pods, readWorkload(ctx, meta));
  }
}

/** An HTTPRoute or GRPCRoute is read for inbound, then for outbound when it has such a parent. */
function keepRoute(
  ctx: ReadContext,
  out: Collected,
  route: HttpRoute | undefined,
): (() => void) | undefined {
  if (route === undefined) return undefined;
  const outbound = readOutboundHttpRoute(ctx, route);
  return () => {
    out.routes.push(route);
    if (outbound !== undefined) out.outboundRoutes.push(outbound);
  };
}

function keep<T>(list: T[], value: T | undefined): (() => void) | undefined {
  return value === undefined ? undefined : () => void list.push(value);
}
