/**
 * Which endpoint reaches which, on which ports, from the rendered CiliumNetworkPolicies alone.
 * A connection from `s` to `d` on a port goes through when `s`'s egress allows `d` on it and
 * `d`'s ingress allows `s` on it. Each side is decided by the policies selecting the endpoint:
 * not enforced (no selecting policy has a default-deny rule in that direction) → everything;
 * enforced → the union of the allow rules whose peers match, minus the deny rules whose peers
 * match. Endpoints outside the catalog namespaces (the platform's pods, the Gateway proxy, the
 * outside world) are not governed by the rendered policies: their side is taken as allowing,
 * so what is proved is exactly what the catalog's own policies let through.
 *
 * Selectors are matched with `src/selector` over an index of every endpoint, so each rule is one
 * index query rather than a scan.
 */
import ipaddr from 'ipaddr.js';
import { LabelIndex, matches } from '../../selector/index.js';
import type { KubeObject, Platform } from '../types.js';
import type { DnsMatch, ParsedPolicy, Peer, PolicyRule, PortRange } from './cilium-policy.js';
import { parsePolicy } from './cilium-policy.js';
import type { Endpoint } from './endpoints.js';
import { endpointsOf } from './endpoints.js';
import type { PortSet } from './port-sets.js';
import { ALL_PORTS, intersectPorts, normalizePorts, subtractPorts } from './port-sets.js';
import { pushAll } from '../../base/index.js';

export interface Flow {
  readonly from: Endpoint;
  readonly to: Endpoint;
  readonly ports: readonly PortRange[];
}

export interface Reachability {
  readonly endpoints: readonly Endpoint[];
  readonly policies: readonly ParsedPolicy[];
  /** Every pair with at least one open port, sorted by source then destination id. */
  readonly flows: readonly Flow[];
  /** What each half allows between two endpoints (by id): `from`'s egress, `to`'s ingress. */
  readonly halves: (from: string, to: string) => { egress: PortSet; ingress: PortSet };
  /** The policies selecting an endpoint (by id). */
  readonly policiesOf: (id: string) => readonly ParsedPolicy[];
}

interface Side {
  readonly enforced: boolean;
  readonly rules: readonly PolicyRule[];
  /** Names the DNS proxy lets this endpoint resolve (egress only). */
  readonly dns: readonly DnsMatch[];
}

/** `*` stands for any run of DNS characters within a label; a lone `*` for every name. */
export function dnsMatches(match: DnsMatch, host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (match.matchName !== undefined)
    return match.matchName.toLowerCase().replace(/\.$/, '') === name;
  if (match.matchPattern === undefined) return false;
  const pattern = match.matchPattern.toLowerCase().replace(/\.$/, '');
  if (pattern === '*') return true;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[-a-z0-9_]*');
  return new RegExp(`^${source}$`).test(name);
}

/**
 * Whether block `outer` holds the outside endpoint. A /0 holds every address of its family, and
 * a named host (whose addresses the model does not know) of either; no block holds an address
 * of the other family: in a dual-stack cluster `0.0.0.0/0` is `reserved:world-ipv4` alone.
 */
function cidrContains(outer: string, inner: string | undefined): boolean {
  try {
    const [network, bits] = ipaddr.parseCIDR(outer);
    if (inner === undefined) return bits === 0;
    const [address, innerBits] = ipaddr.parseCIDR(inner);
    return address.kind() === network.kind() && innerBits >= bits && address.match(network, bits);
  } catch {
    return false;
  }
}

/** Whether a CIDR peer selects the endpoint: inside its block and outside every `except`. */
function cidrSelects(peer: Peer, endpoint: Endpoint): boolean {
  if (peer.cidr === undefined || !cidrContains(peer.cidr, endpoint.cidr)) return false;
  return (
    endpoint.cidr === undefined || !(peer.except ?? []).some((e) => cidrContains(e, endpoint.cidr))
  );
}

function portsFor(rule: PolicyRule, destination: Endpoint): PortRange[] {
  if (rule.ports === 'all') return [...ALL_PORTS];
  const out: PortRange[] = [];
  for (const p of rule.ports) {
    if ('name' in p) {
      const named = destination.namedPorts.get(p.name);
      if (named !== undefined && p.protos.includes(named.proto)) out.push(named);
    } else out.push(p);
  }
  return normalizePorts(out);
}

function ruleMatches(rule: PolicyRule, peer: Endpoint, dns: readonly DnsMatch[]): boolean {
  if (rule.peers === 'any') return true;
  return rule.peers.some((p) => {
    if (!matches(p.selector, peer.labels)) return false;
    if (p.fqdn !== undefined)
      return (
        peer.host !== undefined &&
        dnsMatches(p.fqdn, peer.host) &&
        dns.some((d) => dnsMatches(d, peer.host as string))
      );
    if (p.cidr !== undefined) return cidrSelects(p, peer);
    return true;
  });
}

/** The ports `side` lets through to or from `peer`; `destination` resolves named ports. */
function allowed(side: Side | undefined, peer: Endpoint, destination: Endpoint): PortSet {
  if (side === undefined) return ALL_PORTS;
  let allow: PortRange[] = side.enforced ? [] : [...ALL_PORTS];
  const deny: PortRange[] = [];
  for (const rule of side.rules) {
    if (!ruleMatches(rule, peer, side.dns)) continue;
    if (rule.verdict === 'allow') pushAll(allow, portsFor(rule, destination));
    else pushAll(deny, portsFor(rule, destination));
  }
  allow = normalizePorts(allow);
  return deny.length === 0 ? allow : subtractPorts(allow, deny);
}

function sideOf(policies: readonly ParsedPolicy[], direction: 'ingress' | 'egress'): Side {
  const rules = policies.flatMap((p) => p[direction]);
  const dns =
    direction === 'egress' ? rules.filter((r) => r.verdict === 'allow').flatMap((r) => r.dns) : [];
  return { enforced: rules.some((r) => r.defaultDeny), rules, dns };
}

/** Computes every flow the rendered policies allow. Pure and deterministic. */
export function computeReachability(
  objects: ReadonlyMap<string, readonly KubeObject[]>,
  platform: Platform,
  extraHosts: readonly string[] = [],
): Reachability {
  const policies = [...objects.values()]
    .flatMap((list) => list.filter((o) => o.kind === 'CiliumNetworkPolicy'))
    .map(parsePolicy);
  return reachabilityOf(endpointsOf(objects, platform, extraHosts), policies);
}

/**
 * The flows between `endpoints` under `policies`. Policies govern only the endpoints that have
 * a `service` (the catalog's namespaces); the others' side is taken as allowing.
 */
export function reachabilityOf(
  endpoints: readonly Endpoint[],
  policies: readonly ParsedPolicy[],
): Reachability {
  const index = new LabelIndex<number>();
  endpoints.forEach((e, i) => index.add(i, e.labels));
  const selecting = new Map<number, ParsedPolicy[]>();
  for (const policy of policies) {
    if (policy.subject === undefined) continue;
    for (const i of index.select(policy.subject)) {
      if (endpoints[i]?.service === undefined) continue;
      let list = selecting.get(i);
      if (list === undefined) selecting.set(i, (list = []));
      list.push(policy);
    }
  }
  const ingress = new Map<number, Side>();
  const egress = new Map<number, Side>();
  endpoints.forEach((e, i) => {
    if (e.service === undefined) return;
    const list = selecting.get(i) ?? [];
    ingress.set(i, sideOf(list, 'ingress'));
    egress.set(i, sideOf(list, 'egress'));
  });
  const candidates = (side: Side | undefined): Iterable<number> => {
    if (side === undefined || !side.enforced || side.rules.some((r) => r.peers === 'any'))
      return endpoints.keys();
    const found = new Set<number>();
    for (const rule of side.rules)
      if (rule.verdict === 'allow' && rule.peers !== 'any')
        for (const peer of rule.peers) for (const i of index.select(peer.selector)) found.add(i);
    return found;
  };
  const pairs = new Set<number>();
  const n = endpoints.length;
  endpoints.forEach((e, s) => {
    if (e.service === undefined) return;
    for (const d of candidates(egress.get(s))) pairs.add(s * n + d);
    for (const from of candidates(ingress.get(s)))
      if (endpoints[from]?.service === undefined) pairs.add(from * n + s);
  });
  const flows: Flow[] = [];
  for (const key of [...pairs].sort((a, b) => a - b)) {
    const s = Math.floor(key / n);
    const d = key % n;
    const from = endpoints[s] as Endpoint;
    const to = endpoints[d] as Endpoint;
    if (s === d || (from.service === undefined && to.service === undefined)) continue;
    const ports = intersectPorts(allowed(egress.get(s), to, to), allowed(ingress.get(d), from, to));
    if (ports.length > 0) flows.push({ from, to, ports });
  }
  flows.sort((a, b) =>
    a.from.id !== b.from.id ? (a.from.id < b.from.id ? -1 : 1) : a.to.id < b.to.id ? -1 : 1,
  );
  const position = new Map(endpoints.map((e, i) => [e.id, i]));
  const halves = (fromId: string, toId: string) => {
    const s = position.get(fromId);
    const d = position.get(toId);
    if (s === undefined || d === undefined) return { egress: [], ingress: [] };
    const from = endpoints[s] as Endpoint;
    const to = endpoints[d] as Endpoint;
    return { egress: allowed(egress.get(s), to, to), ingress: allowed(ingress.get(d), from, to) };
  };
  const policiesOf = (id: string) => selecting.get(position.get(id) ?? -1) ?? [];
  return { endpoints, policies, flows, halves, policiesOf };
}
