/**
 * What the loader gathers while it reads: the kept objects by kind, the problems, the rejected
 * objects, and which identities were seen (so a duplicate keeps the first definition that was
 * read without errors, and is reported).
 */
import { pushAll } from '../../base/index.js';
import { compareText } from '../../base/index.js';
import type {
  GrpcService,
  GrpcServiceBinding,
  GrpcServiceClass,
  ObjectMeta,
  PolicyProblem,
  PolicyResources,
  RateLimitPolicy,
  RejectedObject,
  TelemetryPolicy,
} from '../types.js';
import type { ReadContext } from './read-context.js';
import type { EgressNetwork, OutboundRoute, Service } from '../outbound/types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer E)[] ? E[] : T[K] };

/** The resources being collected: every list writable, rate limits always present. */
export type Collected = Mutable<PolicyResources> & {
  rateLimitPolicies: RateLimitPolicy[];
  grpcServices: GrpcService[];
  grpcServiceBindings: GrpcServiceBinding[];
  grpcServiceClasses: GrpcServiceClass[];
  telemetryPolicies: TelemetryPolicy[];
  services: Service[];
  egressNetworks: EgressNetwork[];
  outboundRoutes: OutboundRoute[];
};

/** Where an identity was first defined, and whether that definition was kept. */
interface Slot {
  readonly identity: string;
  readonly at: string;
}

export class ResourceCollector {
  readonly out: Collected = {
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
    rateLimitPolicies: [],
    grpcServices: [],
    grpcServiceBindings: [],
    grpcServiceClasses: [],
    telemetryPolicies: [],
    services: [],
    egressNetworks: [],
    outboundRoutes: [],
  };
  readonly problems: PolicyProblem[] = [];
  readonly rejected: RejectedObject[] = [];
  private readonly seen = new Map<string, { at: string; kept: boolean }>();

  /**
   * Registers the object's identity (group, kind, namespace, name: an HTTPRoute in
   * policy.linkerd.io and one in gateway.networking.k8s.io may share a name). Undefined when a
   * kept definition exists already: the duplicate is reported and not read.
   */
  claim(ctx: ReadContext, meta: ObjectMeta): Slot | undefined {
    const identity = `${meta.apiVersion.split('/')[0] ?? ''}/${meta.kind} ${meta.namespace}/${meta.name}`;
    const first = this.seen.get(identity);
    if (first?.kept === true) {
      ctx.fail(
        'POLICY_DUPLICATE_OBJECT',
        ['metadata', 'name'],
        `${ctx.object} is defined twice; the first definition (${first.at}) is used`,
      );
      pushAll(this.problems, ctx.problems);
      return undefined;
    }
    if (first !== undefined) {
      // The first definition was rejected, so it cannot be "the one used": this one is read
      // (as applying both files would leave it in the cluster), and the duplicate still reported.
      this.problems.push({
        severity: 'error',
        code: 'POLICY_DUPLICATE_OBJECT',
        object: ctx.object,
        file: ctx.doc.file,
        line: ctx.doc.lineOf(['metadata', 'name']),
        path: 'metadata.name',
        message: `${ctx.object} is defined twice; the first definition (${first.at}) has errors and is left out, so this one is used`,
      });
    }
    const at = `${meta.at.file}:${meta.at.line}`;
    if (first === undefined) this.seen.set(identity, { at, kept: false });
    return { identity, at };
  }

  /** Records the outcome of reading a claimed object, with its problems. */
  settle(ctx: ReadContext, meta: ObjectMeta, slot: Slot, kept: boolean): void {
    if (!kept) {
      const problem = ctx.problems[0];
      this.rejected.push({
        kind: meta.kind,
        namespace: meta.namespace,
        name: meta.name,
        code: problem?.code ?? 'POLICY_INVALID_FIELD',
        at: { file: problem?.file ?? meta.at.file, line: problem?.line ?? meta.at.line },
      });
    } else this.seen.set(slot.identity, { at: slot.at, kept: true });
    pushAll(this.problems, ctx.problems);
  }

  /** The resources, every list sorted by namespace, name, kind, apiVersion. */
  finish(): { resources: PolicyResources; problems: PolicyProblem[] } {
    for (const list of Object.values(this.out) as { meta: ObjectMeta }[][]) {
      list.sort(
        (a, b) =>
          compareText(a.meta.namespace, b.meta.namespace) ||
          compareText(a.meta.name, b.meta.name) ||
          compareText(a.meta.kind, b.meta.kind) ||
          compareText(a.meta.apiVersion, b.meta.apiVersion),
      );
    }
    this.rejected.sort(
      (a, b) =>
        compareText(a.kind, b.kind) ||
        compareText(a.namespace, b.namespace) ||
        compareText(a.name, b.name),
    );
    return { resources: { ...this.out, rejected: this.rejected }, problems: this.problems };
  }
}
