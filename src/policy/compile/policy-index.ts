/**
 * AuthorizationPolicies by target, compiled once: what each Server, route, binding or class
 * gets, and which policies targeting it were dropped for a missing or rejected authentication
 * (Linkerd fails closed and reports it nowhere; the trace and `compile` do).
 */
import type { IgnoredPolicy } from '../routes/route-table.js';
import type { AuthorizationPolicy, ClusterSettings, PolicyResources } from '../types.js';
import { AuthenticationIndex } from './authorizations.js';
import type { Authorization, DroppedPolicy } from './authorizations.js';
import { describeRejected } from './rejections.js';
import type { Rejections } from './rejections.js';

export class PolicyIndex {
  /** Every dropped policy with its missing references, in input order. */
  readonly dropped: DroppedPolicy[] = [];
  private readonly byTarget = new Map<string, AuthorizationPolicy[]>();
  private readonly compiled = new Map<AuthorizationPolicy, Authorization>();
  private readonly droppedReasons = new Map<AuthorizationPolicy, string>();

  constructor(resources: PolicyResources, settings: ClusterSettings, rejections: Rejections) {
    const authentications = new AuthenticationIndex(resources, settings);
    for (const policy of resources.authorizationPolicies) {
      const t = policy.targetRef;
      const k = targetKey(policy.meta.namespace, t.kind, t.name, t.group);
      const list = this.byTarget.get(k);
      if (list === undefined) this.byTarget.set(k, [policy]);
      else list.push(policy);
      const compiled = authentications.compilePolicy(policy);
      if (compiled !== undefined) {
        this.compiled.set(policy, compiled);
        continue;
      }
      const missing = authentications.missingRefs(policy);
      this.dropped.push({ policy, missing });
      this.droppedReasons.set(
        policy,
        missing
          .map((r) => {
            const ns = r.namespace ?? policy.meta.namespace;
            const rejected = rejections.find(r.kind, ns, r.name);
            return rejected === undefined
              ? `${r.kind} ${ns}/${r.name} does not exist`
              : describeRejected(rejected);
          })
          .join(', '),
      );
    }
  }

  /** Compiled authorizations of the policies targeting one object, in input order. */
  authorizations(namespace: string, kind: string, name: string, group?: string): Authorization[] {
    const out: Authorization[] = [];
    for (const policy of this.byTarget.get(targetKey(namespace, kind, name, group)) ?? []) {
      const compiled = this.compiled.get(policy);
      if (compiled !== undefined) out.push(compiled);
    }
    return out;
  }

  /** Dropped policies targeting one object, with why, in input order. */
  ignored(namespace: string, kind: string, name: string, group?: string): IgnoredPolicy[] {
    const out: IgnoredPolicy[] = [];
    for (const policy of this.byTarget.get(targetKey(namespace, kind, name, group)) ?? []) {
      const reason = this.droppedReasons.get(policy);
      if (reason !== undefined)
        out.push({ name: `authorizationpolicy/${policy.meta.name}`, reason });
    }
    return out;
  }
}

/**
 * Where policies for a target are filed. Routes are told apart by API group too (Linkerd keys
 * them by group, kind and name): an HTTPRoute `web` in policy.linkerd.io and one in
 * gateway.networking.k8s.io are two targets. Without a group, HTTPRoute means the Gateway API's.
 */
function targetKey(namespace: string, kind: string, name: string, group?: string): string {
  if (kind !== 'HTTPRoute') return `${namespace}/${kind}/${name}`;
  return `${namespace}/${kind}.${group ?? 'gateway.networking.k8s.io'}/${name}`;
}
