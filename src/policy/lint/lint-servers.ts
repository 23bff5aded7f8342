/**
 * Lints about Servers and authorizations: broken authentication references, policies whose
 * target does not exist, Servers that can select the same pod and port (with a witness pod from
 * the selector algebra), and probes that will be refused because routes are attached.
 */
import { compareText, pushAll } from '../../base/index.js';
import { formatSelector, matches, overlap } from '../../selector/index.js';
import { authorize, parseClient } from '../authorize.js';
import type { PolicyModel } from '../compile/model.js';
import { serverOrder } from '../compile/model.js';
import { refInvalid } from '../compile/rejections.js';
import { cidrContains, parseCidr } from '../networks.js';
import { objectName } from '../resources/read-context.js';
import { makeRequest } from '../routes/request.js';
import type { Location, ObjectMeta, PolicyProblem, PolicyResources, Server } from '../types.js';
import { overlapCandidates } from './overlap-candidates.js';

/**
 * AuthorizationPolicies dropped for a missing authentication (Linkerd fails closed, silently).
 * A reference to an authentication that is in the input but was rejected at load is reported
 * as such (`POLICY_REF_INVALID`), not as missing.
 */
export function lintMissingAuthentications(model: PolicyModel): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  const rejections = model.attachments.rejections;
  for (const { policy, missing } of model.dropped) {
    const ns = (r: (typeof missing)[number]): string => r.namespace ?? policy.meta.namespace;
    const absent = missing.filter((r) => rejections.find(r.kind, ns(r), r.name) === undefined);
    for (const r of missing) {
      const rejected = rejections.find(r.kind, ns(r), r.name);
      if (rejected === undefined) continue;
      out.push(
        refInvalid(
          objectName(policy.meta),
          r.at,
          'authentication',
          rejected,
          'this policy is ignored and authorizes nobody',
        ),
      );
    }
    if (absent.length === 0) continue;
    out.push({
      severity: 'error',
      code: 'POLICY_AUTHN_REF_MISSING',
      object: objectName(policy.meta),
      file: absent[0]?.at.file ?? policy.meta.at.file,
      line: absent[0]?.at.line ?? policy.meta.at.line,
      message: `${absent.map((r) => `${r.kind} ${ns(r)}/${r.name}`).join(', ')} does not exist, so this policy is ignored and authorizes nobody (Linkerd reports this nowhere)`,
      hint: 'fix the reference or create the authentication',
    });
  }
  return out;
}

interface TargetRef {
  readonly meta: ObjectMeta;
  readonly kind: string;
  readonly name: string;
  readonly at: Location;
  /** What the missing target means for the object. Default: it applies to nothing. */
  readonly consequence?: string;
}

/** `kind ns/name` of every object a policy may target: a lookup per policy, not a scan. */
function targetExists(r: PolicyResources): (ns: string, kind: string, name: string) => boolean {
  const known = new Set<string>();
  const add = (kind: string, meta: { namespace: string; name: string }): void => {
    known.add(`${kind} ${meta.namespace}/${meta.name}`);
  };
  for (const s of r.servers) add('Server', s.meta);
  for (const s of r.routes) add(s.kind, s.meta);
  for (const s of r.routeBindings) add('HttpRouteBinding', s.meta);
  for (const s of r.routeClasses) add('HttpRouteClass', s.meta);
  for (const s of r.grpcServices ?? []) add('GrpcService', s.meta);
  for (const s of r.grpcServiceBindings ?? []) add('GrpcServiceBinding', s.meta);
  for (const s of r.grpcServiceClasses ?? []) add('GrpcServiceClass', s.meta);
  const checked = new Set([
    'Server',
    'HTTPRoute',
    'GRPCRoute',
    'HttpRouteBinding',
    'HttpRouteClass',
    'GrpcService',
    'GrpcServiceBinding',
    'GrpcServiceClass',
  ]);
  return (ns, kind, name) => !checked.has(kind) || known.has(`${kind} ${ns}/${name}`);
}

/** Every reference by name to a target: policies, class Servers, ServerAuthorization Servers. */
function targetRefs(r: PolicyResources): TargetRef[] {
  return [
    ...r.authorizationPolicies.map((p) => ({
      meta: p.meta,
      kind: p.targetRef.kind,
      name: p.targetRef.name,
      at: p.targetRef.at,
    })),
    ...r.timeoutPolicies.map((p) => ({
      meta: p.meta,
      kind: p.target.kind,
      name: p.target.name,
      at: p.target.at,
    })),
    ...r.headerRewritePolicies.map((p) => ({
      meta: p.meta,
      kind: p.target.kind,
      name: p.target.name,
      at: p.target.at,
    })),
    ...(r.telemetryPolicies ?? []).map((p) => ({
      meta: p.meta,
      kind: p.target.kind,
      name: p.target.name,
      at: p.target.at,
    })),
    ...(r.grpcServiceClasses ?? []).map((c) => ({
      meta: c.meta,
      kind: 'GrpcService',
      name: c.service,
      at: c.meta.at,
      consequence: 'this class selects no method and policies targeting it apply to nothing',
    })),
    ...r.routeClasses.map((c) => ({
      meta: c.meta,
      kind: 'Server',
      name: c.server,
      at: c.meta.at,
      consequence: 'this class selects no route and policies targeting it apply to nothing',
    })),
    ...r.serverAuthorizations.flatMap((sa) =>
      'name' in sa.server
        ? [
            {
              meta: sa.meta,
              kind: 'Server',
              name: sa.server.name,
              at: sa.meta.at,
              consequence: 'this ServerAuthorization authorizes nothing',
            },
          ]
        : [],
    ),
  ];
}

/**
 * A selector over Server labels that selects none of the namespace's Servers is a missing
 * target too: the authorization silently applies to nothing.
 */
function lintEmptyServerSelectors(model: PolicyModel): PolicyProblem[] {
  const r = model.resources;
  const serversByNamespace = groupBy(r.servers, (s) => s.meta.namespace);
  const out: PolicyProblem[] = [];
  for (const sa of r.serverAuthorizations) {
    if ('name' in sa.server) continue;
    const selector = sa.server.selector;
    const any = (serversByNamespace.get(sa.meta.namespace) ?? []).some((s) =>
      matches(selector, s.meta.labels),
    );
    if (any) continue;
    const rejected = model.attachments.rejections.inNamespace('Server', sa.meta.namespace).length;
    out.push({
      severity: 'warning',
      code: 'POLICY_TARGET_MISSING',
      object: objectName(sa.meta),
      file: sa.meta.at.file,
      line: sa.meta.at.line,
      message: `server selector ${formatSelector(selector) || '{} (every Server)'} selects none of the Servers of namespace ${sa.meta.namespace}, so this ServerAuthorization authorizes nothing${rejected > 0 ? ` (${rejected} Server(s) of the namespace have errors and were not considered)` : ''}`,
    });
  }
  return out;
}

/** Policies, classes and ServerAuthorizations whose target does not exist in the input. */
export function lintMissingTargets(model: PolicyModel): PolicyProblem[] {
  const exists = targetExists(model.resources);
  const out: PolicyProblem[] = [];
  for (const p of targetRefs(model.resources)) {
    if (exists(p.meta.namespace, p.kind, p.name)) continue;
    const consequence = p.consequence ?? 'this policy applies to nothing';
    const rejected = model.attachments.rejections.find(p.kind, p.meta.namespace, p.name);
    if (rejected !== undefined) {
      out.push(refInvalid(objectName(p.meta), p.at, 'target', rejected, consequence));
      continue;
    }
    out.push({
      severity: 'warning',
      code: 'POLICY_TARGET_MISSING',
      object: objectName(p.meta),
      file: p.at.file,
      line: p.at.line,
      message: `target ${p.kind} ${p.meta.namespace}/${p.name} does not exist, so ${consequence}`,
    });
  }
  pushAll(out, lintEmptyServerSelectors(model));
  return out;
}

/**
 * Pairs of Servers that can select the same pod and port. Equal port numbers or names are
 * checked with the selector algebra (a witness pod's labels, or why they are disjoint); a name
 * against a number only where a pod in the input actually maps the name to that number.
 */
export function lintServerOverlaps(model: PolicyModel): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  const byNamespace = groupBy(model.resources.servers, (s) => s.meta.namespace);
  const podsByNamespace = groupBy(model.podList, (p) => p.meta.namespace);
  for (const [namespace, servers] of byNamespace) {
    const byPort = groupBy(servers, (s) => String(s.port));
    for (const group of byPort.values()) {
      group.sort(serverOrder);
      for (const [i, j] of overlapCandidates(group.map((s) => s.podSelector))) {
        const a = group[i] as Server;
        const b = group[j] as Server;
        const result = overlap(a.podSelector, b.podSelector);
        if (!result.overlap) continue;
        out.push(overlapFinding(a, b, `port ${a.port}`, { ...result.witness }));
      }
    }
    // A named port against a number: only real pods can tell.
    const seen = new Set<string>();
    for (const pod of podsByNamespace.get(namespace) ?? []) {
      const selecting = model.serversSelecting(pod);
      if (selecting.length < 2) continue;
      for (const port of model.portsOf(pod)) {
        const covering = selecting.filter((s) => model.serverCoversPort(s, pod, port));
        for (let i = 0; i < covering.length; i++) {
          for (let j = i + 1; j < covering.length; j++) {
            const a = covering[i] as Server;
            const b = covering[j] as Server;
            if (String(a.port) === String(b.port)) continue;
            const k = `${a.meta.name}|${b.meta.name}`;
            if (seen.has(k)) continue;
            seen.add(k);
            out.push(
              overlapFinding(a, b, `port ${port} (${a.port} / ${b.port}) of pod ${pod.meta.name}`, {
                ...pod.meta.labels,
              }),
            );
          }
        }
      }
    }
  }
  return out;
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = keyOf(item);
    const list = out.get(k);
    if (list === undefined) out.set(k, [item]);
    else list.push(item);
  }
  return out;
}

function overlapFinding(
  a: Server,
  b: Server,
  what: string,
  witness: Record<string, string>,
): PolicyProblem {
  const [winner, loser] = serverOrder(a, b) <= 0 ? [a, b] : [b, a];
  return {
    severity: 'warning',
    code: 'POLICY_SERVER_OVERLAP',
    object: objectName(loser.meta),
    file: loser.meta.at.file,
    line: loser.meta.at.line,
    message: `Servers ${winner.meta.name} (${formatSelector(winner.podSelector) || 'every pod'}) and ${loser.meta.name} (${formatSelector(loser.podSelector) || 'every pod'}) can both select ${what}; ${winner.meta.name} wins as the ${winner.meta.created !== loser.meta.created ? 'older' : 'first by name'}, so ${loser.meta.name} is ignored there`,
    hint: 'make the pod selectors disjoint or merge the Servers',
    witness: {
      pod: Object.fromEntries(Object.entries(witness).sort(([x], [y]) => compareText(x, y))),
    },
  };
}

/** A representative kubelet address: inside the probe networks, preferably in a cluster network. */
export function probeClientAddress(model: PolicyModel): string | undefined {
  const probes = model.settings.probeNetworks.map(parseCidr).filter((c) => c !== undefined);
  const candidates = [...model.settings.clusterNetworks, ...model.settings.probeNetworks];
  for (const text of candidates) {
    const c = parseCidr(text);
    if (c === undefined) continue;
    const address = c.v4
      ? [
          (c.base >>> 24) & 255,
          (c.base >>> 16) & 255,
          (c.base >>> 8) & 255,
          (c.base & 255) + (c.mask === 0xffffffff ? 0 : 1),
        ].join('.')
      : undefined;
    if (address === undefined) continue;
    const parsed = parseClient(address);
    if (parsed !== undefined && probes.some((p) => cidrContains(p, parsed.address))) return address;
  }
  return undefined;
}

/** Probes that will get 404 (or 403, or a refused connection) under the compiled policy. */
export function lintProbes(model: PolicyModel): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  const address = probeClientAddress(model) ?? '10.0.0.1';
  const client = parseClient(address);
  if (client === undefined) return out;
  for (const pod of model.podList) {
    for (const port of model.portsOf(pod)) {
      const paths = model.probePaths(pod, port);
      if (paths.length === 0) continue;
      const policy = model.portPolicy(pod, port);
      for (const path of paths) {
        const decision = authorize(policy, makeRequest({ method: 'GET', path }), client, {
          trace: false,
        });
        if (decision.decision === 'allow') continue;
        const why =
          decision.decision === 'not-found'
            ? `404: routes are attached to ${policy.server}, which removes the default probe route, and none matches`
            : decision.decision === 'deny'
              ? `403: route ${decision.route ?? ''} matches but no authorization admits an unauthenticated client from ${address}`
              : `refused: port ${port} is ${policy.protocol}`;
        out.push({
          severity: 'warning',
          code: 'POLICY_PROBE_NOT_ROUTED',
          object: objectName(pod.meta),
          file: pod.meta.at.file,
          line: pod.meta.at.line,
          message: `probe GET ${path} on port ${port} will fail with ${why}`,
          hint: 'add a route for the probe path with an AuthorizationPolicy for unauthenticated clients from the probe networks',
        });
      }
    }
  }
  return out;
}
