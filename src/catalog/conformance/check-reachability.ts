/**
 * The reachability proof: what the rendered CiliumNetworkPolicies let through equals what the
 * definitions declare. Two halves:
 *
 * 1. Concrete, over every endpoint that exists (see endpoints.ts): the flows computed from the
 *    policies (reachability.ts) against the declared flows (declared-flows.ts), pair by pair and
 *    port by port. A declared flow that does not go through, or a flow that goes through and is
 *    not declared, is a failure naming both endpoints and the ports.
 * 2. Symbolic, over every pod that could exist: each peer of an allow rule must lie inside a
 *    declared peer (`subsumes`), and its ports inside that peer's declared ports. Otherwise the
 *    failure carries a witness: a label set the rule admits that no declaration covers.
 */
import { EVERYTHING, matches, satisfiable, subsumes } from '../../selector/index.js';
import type { Labels, Selector } from '../../selector/index.js';
import type { KubeObject, Platform, ResolvedService } from '../types.js';
import type { Peer, PolicyRule, PortRange } from './cilium-policy.js';
import type { DeclaredRule, DeclaredService } from './declared-flows.js';
import { declaredFlows } from './declared-flows.js';
import { proveVpnEgress } from './check-vpn-egress.js';
import { FQDN_KEY } from './cilium-labels.js';
import type { Endpoint } from './endpoints.js';
import type { CheckResult, ConformanceInput } from './model.js';
import type { PortSet } from './port-sets.js';
import {
  ALL_PORTS,
  formatPorts,
  intersectPorts,
  normalizePorts,
  subtractPorts,
  unionPorts,
} from './port-sets.js';
import type { Reachability } from './reachability.js';
import { computeReachability, dnsMatches } from './reachability.js';

export const REACHABILITY_CHECK = 'reachability-matches-declared';
export const PEERS_PROVED_CHECK = 'policy-peers-within-declared';

/** The expected flows, `from>to` → ports. */
function expectedFlows(
  declared: ReadonlyMap<string, DeclaredService>,
  endpoints: readonly Endpoint[],
): Map<string, PortSet> {
  const egress = new Map<string, PortSet>();
  const ingress = new Map<string, PortSet>();
  const add = (map: Map<string, PortSet>, key: string, ports: PortSet) =>
    map.set(key, unionPorts(map.get(key) ?? [], ports));
  const ids = new Set(endpoints.map((e) => e.id));
  for (const e of endpoints) {
    if (e.service === undefined) continue;
    const d = declared.get(e.service);
    if (d === undefined) continue;
    const out =
      e.role === 'workload' ? d.egress : e.role === 'importer' ? d.importerEgress : d.otherEgress;
    for (const rule of out)
      for (const id of rule.peer.ids) if (ids.has(id)) add(egress, `${e.id}>${id}`, rule.ports);
    if (e.role === 'workload')
      for (const rule of d.ingress)
        for (const id of rule.peer.ids) if (ids.has(id)) add(ingress, `${id}>${e.id}`, rule.ports);
  }
  const catalog = new Set(endpoints.filter((e) => e.service !== undefined).map((e) => e.id));
  const expected = new Map<string, PortSet>();
  for (const key of new Set([...egress.keys(), ...ingress.keys()])) {
    const [from, to] = key.split('>') as [string, string];
    const e = catalog.has(from) ? egress.get(key) : undefined;
    const i = catalog.has(to) ? ingress.get(key) : undefined;
    const ports =
      catalog.has(from) && catalog.has(to)
        ? intersectPorts(e ?? [], i ?? [])
        : catalog.has(from)
          ? (e ?? [])
          : (i ?? []);
    if (ports.length > 0) expected.set(key, ports);
  }
  return expected;
}

function policyObject(service: string, reach: Reachability, endpointId: string): string {
  const named = reach.policiesOf(endpointId).find((p) => p.object.metadata.name === service);
  return named?.name ?? `CiliumNetworkPolicy ${service}/${service}`;
}

function compareFlows(reach: Reachability, expected: Map<string, PortSet>): CheckResult[] {
  const byId = new Map(reach.endpoints.map((e) => [e.id, e]));
  const actual = new Map(reach.flows.map((f) => [`${f.from.id}>${f.to.id}`, f.ports]));
  const results: CheckResult[] = [];
  const proved = new Map<string, number>();
  for (const key of [...new Set([...actual.keys(), ...expected.keys()])].sort()) {
    const [fromId, toId] = key.split('>') as [string, string];
    const from = byId.get(fromId) as Endpoint;
    const to = byId.get(toId) as Endpoint;
    const want = expected.get(key) ?? [];
    const got = actual.get(key) ?? [];
    const extra = subtractPorts(got, want);
    const missing = subtractPorts(want, got);
    const owner = (from.service ?? to.service) as string;
    if (extra.length === 0 && missing.length === 0) {
      proved.set(owner, (proved.get(owner) ?? 0) + 1);
      continue;
    }
    const halves = reach.halves(fromId, toId);
    const witness = { from: from.labels, to: to.labels };
    if (extra.length > 0) {
      // Blame the catalog side whose half lets more through than declared.
      const side =
        from.service !== undefined && subtractPorts(halves.egress, want).length > 0
          ? from
          : to.service !== undefined
            ? to
            : from;
      results.push({
        name: REACHABILITY_CHECK,
        ok: false,
        object: policyObject(side.service as string, reach, side.id),
        message: `${from.what} can reach ${to.what} on ${formatPorts(extra)}, which no definition declares`,
        witness: { ...witness, ports: formatPorts(extra) },
      });
    }
    if (missing.length > 0) {
      const blocked =
        subtractPorts(missing, halves.egress).length > 0 && from.service !== undefined;
      const side = blocked ? from : to.service !== undefined ? to : from;
      const which = blocked ? `${from.what}'s egress` : `${to.what}'s ingress`;
      results.push({
        name: REACHABILITY_CHECK,
        ok: false,
        object: policyObject(side.service as string, reach, side.id),
        message: `${from.what} cannot reach ${to.what} on ${formatPorts(missing)} as declared (${which} does not allow it)`,
        witness: { ...witness, ports: formatPorts(missing) },
      });
    }
  }
  for (const [service, count] of [...proved].sort((a, b) => (a[0] < b[0] ? -1 : 1)))
    if (!results.some((r) => r.object.includes(` ${service}/`)))
      results.push({
        name: REACHABILITY_CHECK,
        ok: true,
        object: `CiliumNetworkPolicy ${service}/${service}`,
        message: `${count} flow(s) to and from ${service}'s pods go through exactly as declared`,
      });
  return results;
}

function rulePorts(rule: PolicyRule, endpoint: Endpoint, direction: 'ingress' | 'egress'): PortSet {
  if (rule.ports === 'all') return ALL_PORTS;
  const out: PortRange[] = [];
  for (const p of rule.ports) {
    if (!('name' in p)) out.push(p);
    else if (direction === 'ingress') {
      const named = endpoint.namedPorts.get(p.name);
      if (named !== undefined) out.push(named);
    }
  }
  return normalizePorts(out);
}

/** Whether a peer lies inside a declared rule, and a witness when it does not. */
function covered(
  peer: Peer,
  rules: readonly DeclaredRule[],
): { rules: DeclaredRule[] } | { witness: Labels | undefined } {
  if (peer.fqdn !== undefined || peer.cidr !== undefined) {
    const inside = rules.filter(
      (r) =>
        r.peer.world === true ||
        (peer.cidr !== undefined && (r.peer.cidrs ?? []).includes(peer.cidr)) ||
        (peer.fqdn?.matchName !== undefined &&
          (r.peer.hosts ?? []).some((h) => dnsMatches(peer.fqdn as { matchName: string }, h))),
    );
    // The witness of an outside peer is the name or block it opens.
    const outside: Labels =
      peer.cidr !== undefined
        ? { 'reserved:world': '', cidr: peer.cidr }
        : {
            'reserved:world': '',
            [FQDN_KEY]: peer.fqdn?.matchName ?? peer.fqdn?.matchPattern ?? '',
          };
    return inside.length > 0 ? { rules: inside } : { witness: outside };
  }
  const inside = rules.filter((r) =>
    r.peer.selectors.some((d) => subsumes(d, peer.selector).subsumes),
  );
  if (inside.length > 0) return { rules: inside };
  for (const r of rules)
    for (const d of r.peer.selectors) {
      const result = subsumes(d, peer.selector);
      if (
        !result.subsumes &&
        rules.every((o) => o.peer.selectors.every((x) => !matches(x, result.counterexample)))
      )
        return { witness: result.counterexample };
    }
  return { witness: witnessOf(peer.selector) };
}

function witnessOf(selector: Selector): Labels | undefined {
  const s = satisfiable(selector);
  return s.satisfiable ? s.witness : undefined;
}

/** The declared rules an endpoint's policies are judged against, by its role. */
function declaredFor(
  endpoint: Endpoint,
  d: DeclaredService,
  direction: 'ingress' | 'egress',
): readonly DeclaredRule[] {
  if (direction === 'ingress') return endpoint.role === 'workload' ? d.ingress : [];
  if (endpoint.role === 'workload') return d.egress;
  return endpoint.role === 'importer' ? d.importerEgress : d.otherEgress;
}

function proveRules(
  reach: Reachability,
  declared: ReadonlyMap<string, DeclaredService>,
): CheckResult[] {
  const byObject = new Map<string, CheckResult>();
  const seen = new Set<string>();
  // One result per rule peer; a peer judged for several endpoints keeps its failure.
  const results = {
    push(result: CheckResult) {
      const before = byObject.get(result.object);
      if (before === undefined || (before.ok && !result.ok)) byObject.set(result.object, result);
    },
  };
  for (const endpoint of reach.endpoints) {
    if (endpoint.service === undefined) continue;
    const d = declared.get(endpoint.service);
    if (d === undefined) continue;
    for (const policy of reach.policiesOf(endpoint.id)) {
      for (const direction of ['ingress', 'egress'] as const) {
        const allowedRules = declaredFor(endpoint, d, direction);
        for (const rule of policy[direction]) {
          if (rule.verdict !== 'allow') continue;
          const peers: readonly Peer[] =
            rule.peers === 'any' ? [{ selector: EVERYTHING, where: rule.where }] : rule.peers;
          for (const peer of peers) {
            const key = `${policy.name} ${peer.where} ${endpoint.role}`;
            if (seen.has(key)) continue;
            seen.add(key);
            const object = `${policy.name} ${peer.where}`;
            const within = rule.peers === 'any' ? { witness: {} } : covered(peer, allowedRules);
            if ('witness' in within) {
              results.push({
                name: PEERS_PROVED_CHECK,
                ok: false,
                object,
                message: `${direction === 'ingress' ? `admits to ${endpoint.what}` : `lets ${endpoint.what} reach`} peers no definition declares${within.witness === undefined ? '' : `, e.g. one labelled ${JSON.stringify(within.witness)}`}`,
                ...(within.witness === undefined ? {} : { witness: within.witness }),
              });
              continue;
            }
            const ports = rulePorts(rule, endpoint, direction);
            const declaredPorts = within.rules.reduce<PortSet>(
              (acc, r) => unionPorts(acc, r.ports),
              [],
            );
            const beyond = subtractPorts(ports, declaredPorts);
            results.push({
              name: PEERS_PROVED_CHECK,
              ok: beyond.length === 0,
              object,
              message:
                beyond.length === 0
                  ? `every peer it selects is ${within.rules.map((r) => r.peer.what).join(' or ')}, on declared ports`
                  : `opens ${formatPorts(beyond)} to ${within.rules[0]?.peer.what ?? 'a peer'}, beyond the declared ${formatPorts(declaredPorts)}`,
            });
          }
        }
      }
      for (const problem of policy.problems) {
        const key = `${policy.name} problem ${problem}`;
        if (seen.has(key)) continue;
        seen.add(key);
        results.push({
          name: PEERS_PROVED_CHECK,
          ok: false,
          object: policy.name,
          message: problem,
        });
      }
    }
  }
  return [...byObject.values()];
}

/** The proof's result and the flows it computed (for the service graph). */
export function proveReachability(
  services: readonly ResolvedService[],
  objects: ReadonlyMap<string, readonly KubeObject[]>,
  platform: Platform,
): { results: CheckResult[]; reachability: Reachability } {
  const hosts = services.flatMap(
    (s) => (s as { importFrom?: readonly { host: string }[] }).importFrom?.map((h) => h.host) ?? [],
  );
  const reachability = computeReachability(objects, platform, hosts);
  const declared = declaredFlows(services, objects, platform, reachability.endpoints);
  const expected = expectedFlows(declared, reachability.endpoints);
  return {
    results: [
      ...compareFlows(reachability, expected),
      ...proveRules(reachability, declared),
      ...proveVpnEgress(services, objects, reachability),
    ],
    reachability,
  };
}

/** The check as the conformance runner calls it. */
export function checkReachability(input: ConformanceInput): CheckResult[] {
  return [
    ...(input.proof ?? proveReachability(input.services, input.objects, input.platform)).results,
  ];
}
