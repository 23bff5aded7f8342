/**
 * Readers for AuthorizationPolicy, MeshTLSAuthentication, NetworkAuthentication and the legacy
 * ServerAuthorization, with Linkerd's admission rules: a Namespace target must be the policy's
 * own namespace; at most one authentication reference of each kind; identities well formed;
 * every `except` inside its `cidr`.
 */
import { fromLabelSelector } from '../../selector/index.js';
import { identityProblem } from '../identity.js';
import { networkProblems } from '../networks.js';
import type {
  AuthorizationPolicy,
  MeshTLSAuthentication,
  NetworkAuthentication,
  NetworkSpec,
  ObjectMeta,
  ObjectRef,
  ServerAuthorization,
  ServiceAccountRef,
} from '../types.js';
import type { Path, ReadContext } from './read-context.js';

const POLICY_GROUP = 'policy.linkerd.io';
const EXTENSION_GROUP = 'policy.labelwise.dev';
const GATEWAY_GROUP = 'gateway.networking.k8s.io';

/** The target kinds an AuthorizationPolicy may name, by kind → accepted groups. */
const TARGETS: Readonly<Record<string, readonly string[]>> = {
  Server: [POLICY_GROUP],
  HTTPRoute: [POLICY_GROUP, GATEWAY_GROUP],
  GRPCRoute: [GATEWAY_GROUP],
  Namespace: ['', 'core'],
  HttpRouteBinding: [EXTENSION_GROUP],
  HttpRouteClass: [EXTENSION_GROUP],
  GrpcServiceBinding: [EXTENSION_GROUP],
  GrpcServiceClass: [EXTENSION_GROUP],
};

const AUTHENTICATIONS: Readonly<Record<string, readonly string[]>> = {
  MeshTLSAuthentication: [POLICY_GROUP],
  NetworkAuthentication: [POLICY_GROUP],
  ServiceAccount: ['', 'core'],
};

/** The key of `allowed` that `written` names, compared case-insensitively (as Linkerd does). */
function canonical(
  allowed: Readonly<Record<string, unknown>>,
  written: string,
): string | undefined {
  const lower = written.toLowerCase();
  return Object.keys(allowed).find((k) => k.toLowerCase() === lower);
}

function readRef(
  ctx: ReadContext,
  path: Path,
  allowed: Readonly<Record<string, readonly string[]>>,
): ObjectRef | undefined {
  const group = (ctx.string([...path, 'group']) ?? '').toLowerCase();
  const writtenKind = ctx.string([...path, 'kind'], { required: true, nonEmpty: true });
  const name = ctx.string([...path, 'name'], { required: true, nonEmpty: true });
  const namespace = ctx.string([...path, 'namespace'], { nonEmpty: true });
  if (writtenKind === undefined || name === undefined) return undefined;
  const kind = canonical(allowed, writtenKind);
  const groups = kind === undefined ? undefined : allowed[kind];
  if (kind === undefined || groups === undefined) {
    return ctx.fail(
      'POLICY_UNSUPPORTED_REF',
      [...path, 'kind'],
      `unsupported kind ${JSON.stringify(writtenKind)}, expected one of ${Object.keys(allowed).join(', ')}`,
    );
  }
  if (!groups.includes(group)) {
    return ctx.fail(
      'POLICY_UNSUPPORTED_REF',
      [...path, 'group'],
      `${kind} belongs to group ${groups.map((g) => JSON.stringify(g)).join(' or ')}, found ${JSON.stringify(group)}`,
    );
  }
  // Kinds are stored as Linkerd names them; the group too, with the core group as ''.
  const stored = group === 'core' ? '' : group;
  return {
    group: stored,
    kind,
    name,
    ...(namespace === undefined ? {} : { namespace }),
    at: ctx.at(path),
  };
}

export function readAuthorizationPolicy(
  ctx: ReadContext,
  meta: ObjectMeta,
): AuthorizationPolicy | undefined {
  ctx.record(['spec', 'targetRef'], { required: true });
  const targetRef = readRef(ctx, ['spec', 'targetRef'], TARGETS);
  if (targetRef !== undefined) {
    if (targetRef.kind === 'Namespace' && targetRef.name !== meta.namespace) {
      ctx.fail(
        'POLICY_TARGET_OTHER_NAMESPACE',
        ['spec', 'targetRef', 'name'],
        `an AuthorizationPolicy may only target its own namespace (${meta.namespace}), not ${targetRef.name}`,
      );
    } else if (targetRef.namespace !== undefined && targetRef.namespace !== meta.namespace) {
      ctx.fail(
        'POLICY_TARGET_OTHER_NAMESPACE',
        ['spec', 'targetRef', 'namespace'],
        `targetRef must be in the policy's namespace (${meta.namespace}), not ${targetRef.namespace}`,
      );
    }
  }
  const refs: ObjectRef[] = [];
  const list = ctx.list(['spec', 'requiredAuthenticationRefs']);
  if (list === undefined && !ctx.has(['spec', 'requiredAuthenticationRefs'])) {
    ctx.fail(
      'POLICY_MISSING_FIELD',
      ['spec'],
      'spec.requiredAuthenticationRefs is required',
      'use [] to authorize every client',
    );
  }
  const seen = new Map<string, number>();
  (list ?? []).forEach((_, i) => {
    const ref = readRef(ctx, ['spec', 'requiredAuthenticationRefs', i], AUTHENTICATIONS);
    if (ref === undefined) return;
    const count = (seen.get(ref.kind) ?? 0) + 1;
    seen.set(ref.kind, count);
    if (count > 1) {
      ctx.fail(
        'POLICY_DUPLICATE_AUTHENTICATION',
        ['spec', 'requiredAuthenticationRefs', i],
        `only a single ${ref.kind} may be set`,
        'all references must hold at once; list alternatives in separate AuthorizationPolicies',
      );
      return;
    }
    const other = ref.kind === 'ServiceAccount' ? 'MeshTLSAuthentication' : 'ServiceAccount';
    if (
      (ref.kind === 'ServiceAccount' || ref.kind === 'MeshTLSAuthentication') &&
      seen.has(other)
    ) {
      ctx.fail(
        'POLICY_DUPLICATE_AUTHENTICATION',
        ['spec', 'requiredAuthenticationRefs', i],
        'a MeshTLSAuthentication and a ServiceAccount may not be set together',
        "name the ServiceAccount in the MeshTLSAuthentication's identityRefs instead",
      );
      return;
    }
    refs.push(ref);
  });
  if (targetRef === undefined || ctx.problems.length > 0) return undefined;
  return { meta, targetRef, requiredAuthenticationRefs: refs };
}

function readIdentities(ctx: ReadContext, path: Path): string[] {
  const out: string[] = [];
  (ctx.strings(path) ?? []).forEach((identity, i) => {
    const problem = identityProblem(identity);
    if (problem !== undefined) ctx.fail('POLICY_INVALID_IDENTITY', [...path, i], problem);
    else out.push(identity);
  });
  return out;
}

export function readMeshTLSAuthentication(
  ctx: ReadContext,
  meta: ObjectMeta,
): MeshTLSAuthentication | undefined {
  const hasIdentities = ctx.get(['spec', 'identities']) !== undefined;
  const hasRefs = ctx.get(['spec', 'identityRefs']) !== undefined;
  if (hasIdentities && hasRefs)
    ctx.fail(
      'POLICY_INVALID_AUTHENTICATION',
      ['spec'],
      'identities and identityRefs cannot both be set',
    );
  if (!hasIdentities && !hasRefs)
    ctx.fail(
      'POLICY_INVALID_AUTHENTICATION',
      ['spec'],
      'one of identities or identityRefs must be set',
      'use identities: ["*"] to accept every authenticated client',
    );
  const identities = readIdentities(ctx, ['spec', 'identities']);
  const identityRefs: MeshTLSAuthentication['identityRefs'][number][] = [];
  (ctx.list(['spec', 'identityRefs']) ?? []).forEach((_, i) => {
    const base = ['spec', 'identityRefs', i];
    const writtenKind = ctx.string([...base, 'kind'], { required: true });
    const name = ctx.string([...base, 'name'], { required: true, nonEmpty: true });
    const namespace = ctx.string([...base, 'namespace'], { nonEmpty: true });
    const kind =
      writtenKind === undefined
        ? undefined
        : (canonical({ ServiceAccount: 1, Namespace: 1 }, writtenKind) as
            'ServiceAccount' | 'Namespace' | undefined);
    if (writtenKind !== undefined && kind === undefined) {
      ctx.fail(
        'POLICY_UNSUPPORTED_REF',
        [...base, 'kind'],
        `identityRefs kind must be ServiceAccount or Namespace, found ${JSON.stringify(writtenKind)}`,
      );
      return;
    }
    if (kind === 'Namespace' && namespace !== undefined) {
      ctx.fail(
        'POLICY_UNSUPPORTED_REF',
        [...base, 'namespace'],
        'a Namespace identityRef is cluster-scoped and cannot have a namespace',
      );
      return;
    }
    if (kind === undefined || name === undefined) return;
    identityRefs.push({
      kind,
      name,
      namespace: kind === 'Namespace' ? name : (namespace ?? meta.namespace),
    });
  });
  if (ctx.problems.length > 0) return undefined;
  return { meta, identities, identityRefs };
}

export function readNetworks(
  ctx: ReadContext,
  path: Path,
  required: boolean,
): NetworkSpec[] | undefined {
  const list = ctx.list(path, { required });
  if (list === undefined) return undefined;
  if (list.length === 0 && required)
    ctx.fail('POLICY_INVALID_AUTHENTICATION', path, 'networks must not be empty');
  const out: NetworkSpec[] = [];
  list.forEach((_, i) => {
    const cidr = ctx.string([...path, i, 'cidr'], { required: true });
    const except = ctx.strings([...path, i, 'except']) ?? [];
    if (cidr === undefined) return;
    const spec = { cidr, except };
    const problems = networkProblems(spec);
    for (const problem of problems) {
      ctx.fail(
        'POLICY_INVALID_NETWORK',
        problem.field === 'cidr' ? [...path, i, 'cidr'] : [...path, i, 'except', problem.field],
        problem.message,
      );
    }
    if (problems.length === 0) out.push(spec);
  });
  return out;
}

export function readNetworkAuthentication(
  ctx: ReadContext,
  meta: ObjectMeta,
): NetworkAuthentication | undefined {
  const networks = readNetworks(ctx, ['spec', 'networks'], true);
  if (networks === undefined || ctx.problems.length > 0) return undefined;
  return { meta, networks };
}

/** `spec.server`: exactly one of `name` or `selector` (a selector over Server labels). */
function readServerRef(ctx: ReadContext): ServerAuthorization['server'] | undefined {
  const serverName = ctx.string(['spec', 'server', 'name'], { nonEmpty: true });
  const hasSelector = ctx.get(['spec', 'server', 'selector']) !== undefined;
  if ((serverName === undefined) === !hasSelector) {
    ctx.fail(
      'POLICY_INVALID_SERVER_REF',
      ['spec', 'server'],
      'spec.server needs exactly one of name or selector',
    );
  }
  if (serverName !== undefined) return { name: serverName };
  if (!hasSelector) return undefined;
  const { selector, errors } = fromLabelSelector(ctx.get(['spec', 'server', 'selector']), {
    path: 'spec.server.selector',
  });
  for (const error of errors)
    ctx.fail('POLICY_INVALID_SELECTOR', ['spec', 'server', 'selector'], error.message);
  return selector === undefined ? undefined : { selector };
}

type MeshTLSClient = NonNullable<ServerAuthorization['client']['meshTLS']>;

/**
 * `spec.client.meshTLS`, with why Linkerd's index drops it when it names nobody (admission lets
 * such a block through).
 */
function readMeshTLSClient(
  ctx: ReadContext,
  meta: ObjectMeta,
): { meshTLS: MeshTLSClient; droppedBecause?: string } {
  const base = ['spec', 'client', 'meshTLS'];
  const serviceAccounts: ServiceAccountRef[] = [];
  (ctx.list([...base, 'serviceAccounts']) ?? []).forEach((_, i) => {
    const name = ctx.string([...base, 'serviceAccounts', i, 'name'], {
      required: true,
      nonEmpty: true,
    });
    const namespace = ctx.string([...base, 'serviceAccounts', i, 'namespace']) ?? meta.namespace;
    if (name !== undefined) serviceAccounts.push({ name, namespace });
  });
  const unauthenticatedTLS = ctx.boolean([...base, 'unauthenticatedTLS']) ?? false;
  const identities = readIdentities(ctx, [...base, 'identities']);
  identities.forEach((identity, i) => {
    // The ServerAuthorization CRD's pattern admits DNS-like identities only.
    if (identity.startsWith('spiffe://'))
      ctx.fail(
        'POLICY_INVALID_IDENTITY',
        [...base, 'identities', i],
        `${JSON.stringify(identity)}: a ServerAuthorization's meshTLS.identities are DNS-like names, not SPIFFE IDs`,
        'use a MeshTLSAuthentication with an AuthorizationPolicy for SPIFFE IDs',
      );
  });
  const named = identities.length + serviceAccounts.length;
  if (unauthenticatedTLS && named > 0)
    ctx.fail(
      'POLICY_INVALID_CLIENT',
      [...base, 'unauthenticatedTLS'],
      'unauthenticatedTLS must be false when identities or serviceAccounts are set',
    );
  const meshTLS = { unauthenticatedTLS, identities, serviceAccounts };
  return !unauthenticatedTLS && named === 0
    ? {
        meshTLS,
        droppedBecause:
          'its meshTLS block names no identities or serviceAccounts (it authorizes no clients)',
      }
    : { meshTLS };
}

export function readServerAuthorization(
  ctx: ReadContext,
  meta: ObjectMeta,
): ServerAuthorization | undefined {
  const server = readServerRef(ctx);
  ctx.record(['spec', 'client'], { required: true });
  const networks = readNetworks(ctx, ['spec', 'client', 'networks'], false);
  const unauthenticated = ctx.boolean(['spec', 'client', 'unauthenticated']) ?? false;
  const mesh = ctx.record(['spec', 'client', 'meshTLS']);
  if (unauthenticated && mesh !== undefined) {
    ctx.fail(
      'POLICY_INVALID_CLIENT',
      ['spec', 'client'],
      'client.unauthenticated and client.meshTLS cannot both be set',
    );
  }
  // Admission lets a client with neither through; Linkerd's index then drops the
  // ServerAuthorization ("no client authentication configured"). Kept, marked dropped.
  let droppedBecause: string | undefined =
    !unauthenticated && mesh === undefined
      ? 'its client sets neither unauthenticated nor meshTLS (no client authentication configured)'
      : undefined;
  let meshTLS: MeshTLSClient | undefined;
  if (mesh !== undefined) {
    const read = readMeshTLSClient(ctx, meta);
    meshTLS = read.meshTLS;
    droppedBecause = read.droppedBecause ?? droppedBecause;
  }
  if (server === undefined || ctx.problems.length > 0) return undefined;
  return {
    meta,
    server,
    client: {
      ...(networks === undefined ? {} : { networks }),
      unauthenticated,
      ...(meshTLS === undefined ? {} : { meshTLS }),
    },
    ...(droppedBecause === undefined ? {} : { droppedBecause }),
  };
}
