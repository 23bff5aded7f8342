/**
 * A rendered CiliumNetworkPolicy read the way the agent reads it (pkg/policy/utils/parserules.go,
 * pkg/k8s/apis/cilium.io/utils/utils.go): one entry per ingress/egress (deny) rule, its peers as
 * selectors over endpoint identities, its ports, and whether it puts the endpoint into
 * default-deny for its direction.
 *
 * - A direction is enforced for an endpoint when some selecting policy has at least one rule in
 *   it whose `enableDefaultDeny.<direction>` is absent or true. An `enableDefaultDeny` with no
 *   rule creates no entry, so it denies nothing: that is why the baseline carries `ingress: [{}]`.
 * - A rule with no peer field at all selects every peer when it has `toPorts` (an L4-only rule),
 *   and nothing when it has none (`{}`). A peer field that is an empty list selects nothing.
 * - `toPorts` without `ports`, a port `"0"` or an absent port means every port; an absent protocol
 *   means `ANY` (TCP, UDP and SCTP). A non-numeric port is a named port, resolved against the
 *   destination pod's container ports.
 * - ICMP rules, L7 HTTP rules and authentication are outside the model: an L7 rule still lets the
 *   connection through at L4, which is what reachability is about.
 */
import type { Selector } from '../../selector/index.js';
import type { KubeObject } from '../types.js';
import type { SelectorRead } from './cilium-labels.js';
import { entitySelectors, peerSelector, subjectSelector } from './cilium-labels.js';
import { asArray, asRecord, describeObject, field } from './model.js';
import { pushAll } from '../../base/index.js';

export type Proto = 'TCP' | 'UDP' | 'SCTP';
export const PROTOCOLS: readonly Proto[] = ['TCP', 'UDP', 'SCTP'];

/** A closed range of ports of one protocol. */
export interface PortRange {
  readonly proto: Proto;
  readonly from: number;
  readonly to: number;
}

/** A port as a policy writes it: a range, or a named port of the destination pod. */
export type PortMatch = PortRange | { readonly protos: readonly Proto[]; readonly name: string };

/** One `rules.dns` entry: the names the DNS proxy lets the endpoint look up. */
export interface DnsMatch {
  readonly matchName?: string;
  readonly matchPattern?: string;
}

export interface Peer {
  readonly selector: Selector;
  readonly where: string;
  /** `toFQDNs` entries instead of a selector (egress only). */
  readonly fqdn?: DnsMatch;
  /** `toCIDR`/`fromCIDR`/`…CIDRSet`: outside addresses. */
  readonly cidr?: string;
  /** A CIDR set's `except`: blocks inside `cidr` the rule does not select. */
  readonly except?: readonly string[];
}

export interface PolicyRule {
  readonly where: string;
  readonly verdict: 'allow' | 'deny';
  /** The peers; `'any'` for an L4-only rule. */
  readonly peers: readonly Peer[] | 'any';
  /** `'all'` when the rule does not restrict ports. */
  readonly ports: readonly PortMatch[] | 'all';
  /** DNS proxy rules on these ports (egress to a DNS server). */
  readonly dns: readonly DnsMatch[];
  readonly defaultDeny: boolean;
}

export interface ParsedPolicy {
  readonly object: KubeObject;
  readonly name: string;
  readonly namespace: string;
  readonly subject: Selector | undefined;
  readonly ingress: readonly PolicyRule[];
  readonly egress: readonly PolicyRule[];
  /** What could not be read; the policy is then judged by what could. */
  readonly problems: readonly string[];
}

const INGRESS_PEERS = ['fromEndpoints', 'fromEntities', 'fromCIDR', 'fromCIDRSet', 'fromNodes'];
const EGRESS_PEERS = [
  'toEndpoints',
  'toEntities',
  'toCIDR',
  'toCIDRSet',
  'toFQDNs',
  'toNodes',
  'toServices',
];
const ANY_WORLD: Selector | undefined = entitySelectors('world')?.[0];

function parsePort(entry: unknown, where: string, problems: string[]): PortMatch[] {
  const raw = field(entry, 'port');
  const protocol = field(entry, 'protocol');
  const protos: readonly Proto[] =
    protocol === undefined || protocol === 'ANY'
      ? PROTOCOLS
      : PROTOCOLS.includes(protocol as Proto)
        ? [protocol as Proto]
        : [];
  if (protos.length === 0) {
    problems.push(`${where}.protocol ${JSON.stringify(protocol)} is not TCP, UDP, SCTP or ANY`);
    return [];
  }
  const text = raw === undefined ? '0' : String(raw);
  if (!/^[0-9]+$/.test(text)) return [{ protos, name: text }];
  const from = Number(text);
  const end = field(entry, 'endPort');
  if (from === 0) return protos.map((proto) => ({ proto, from: 1, to: 65535 }));
  const to = typeof end === 'number' && end >= from ? end : from;
  return protos.map((proto) => ({ proto, from, to }));
}

function parsePorts(
  value: unknown,
  where: string,
  problems: string[],
): { ports: PortMatch[] | 'all'; dns: DnsMatch[] } {
  if (value === undefined) return { ports: 'all', dns: [] };
  const ports: PortMatch[] = [];
  const dns: DnsMatch[] = [];
  let all = false;
  asArray(value).forEach((rule, i) => {
    const list = field(rule, 'ports');
    if (list === undefined || asArray(list).length === 0) all = true;
    asArray(list).forEach((p, j) =>
      pushAll(ports, parsePort(p, `${where}[${i}].ports[${j}]`, problems)),
    );
    for (const d of asArray(field(rule, 'rules', 'dns'))) {
      const name = field(d, 'matchName');
      const pattern = field(d, 'matchPattern');
      dns.push({
        ...(typeof name === 'string' ? { matchName: name } : {}),
        ...(typeof pattern === 'string' ? { matchPattern: pattern } : {}),
      });
    }
  });
  return { ports: all ? 'all' : ports, dns };
}

function peersOf(
  rule: unknown,
  keys: readonly string[],
  namespace: string,
  where: string,
  problems: string[],
): Peer[] | 'any' {
  const present = keys.filter((k) => field(rule, k) !== undefined);
  if (present.length === 0) return 'any';
  const peers: Peer[] = [];
  const add = (read: SelectorRead, at: string) => {
    if ('problem' in read) problems.push(`${at}: ${read.problem}`);
    else peers.push({ selector: read.selector, where: at });
  };
  for (const key of present) {
    asArray(field(rule, key)).forEach((value, i) => {
      const at = `${where}.${key}[${i}]`;
      if (key === 'fromEndpoints' || key === 'toEndpoints')
        add(peerSelector(value, namespace, at), at);
      else if (key === 'fromEntities' || key === 'toEntities') {
        const selectors = entitySelectors(String(value));
        if (selectors === undefined)
          problems.push(`${at}: unknown entity ${JSON.stringify(value)}`);
        else for (const selector of selectors) peers.push({ selector, where: at });
      } else if (key === 'toFQDNs') {
        const name = field(value, 'matchName');
        const pattern = field(value, 'matchPattern');
        if (ANY_WORLD !== undefined)
          peers.push({
            selector: ANY_WORLD,
            where: at,
            fqdn: {
              ...(typeof name === 'string' ? { matchName: name } : {}),
              ...(typeof pattern === 'string' ? { matchPattern: pattern } : {}),
            },
          });
      } else if (key === 'toCIDR' || key === 'fromCIDR') {
        if (ANY_WORLD !== undefined)
          peers.push({ selector: ANY_WORLD, where: at, cidr: String(value) });
      } else if (key === 'toCIDRSet' || key === 'fromCIDRSet') {
        const cidr = field(value, 'cidr') ?? field(value, 'cidrGroupRef');
        const except = asArray(field(value, 'except')).map(String);
        if (ANY_WORLD !== undefined)
          peers.push({
            selector: ANY_WORLD,
            where: at,
            cidr: String(cidr),
            ...(except.length > 0 ? { except } : {}),
          });
      } else {
        // toNodes, fromNodes, toServices: nodes and Services are not catalog pods; the proof
        // reports them as peers it cannot place.
        problems.push(`${at}: ${key} is not part of the reachability model`);
      }
    });
  }
  return peers;
}

function rulesOf(
  policy: KubeObject,
  direction: 'ingress' | 'egress',
  namespace: string,
  problems: string[],
): PolicyRule[] {
  const explicit = field(policy, 'spec', 'enableDefaultDeny', direction);
  const defaultDeny = explicit !== false;
  const keys = direction === 'ingress' ? INGRESS_PEERS : EGRESS_PEERS;
  const rules: PolicyRule[] = [];
  for (const [list, verdict] of [
    [direction, 'allow'],
    [`${direction}Deny`, 'deny'],
  ] as const) {
    asArray(field(policy, 'spec', list)).forEach((rule, i) => {
      const where = `spec.${list}[${i}]`;
      const { ports, dns } = parsePorts(field(rule, 'toPorts'), `${where}.toPorts`, problems);
      const peers = peersOf(rule, keys, namespace, where, problems);
      // An L4-only rule selects every peer; with no L4 either (`{}`) it selects nothing.
      const effective: readonly Peer[] | 'any' =
        peers === 'any' && field(rule, 'toPorts') === undefined ? [] : peers;
      rules.push({ where, verdict, peers: effective, ports, dns, defaultDeny });
    });
  }
  return rules;
}

/** Reads one CiliumNetworkPolicy. Never throws. */
export function parsePolicy(policy: KubeObject): ParsedPolicy {
  const problems: string[] = [];
  const namespace = policy.metadata.namespace ?? '';
  const spec = asRecord(field(policy, 'spec'));
  let subject: Selector | undefined;
  if (spec === undefined) problems.push('has no spec');
  else if (field(spec, 'nodeSelector') !== undefined)
    problems.push('selects nodes (nodeSelector), which are not catalog pods');
  else {
    const read = subjectSelector(spec.endpointSelector, namespace, 'spec.endpointSelector');
    if ('problem' in read) problems.push(read.problem);
    else subject = read.selector;
  }
  if (field(policy, 'specs') !== undefined)
    problems.push('uses specs, which the proof does not read');
  return {
    object: policy,
    name: describeObject(policy),
    namespace,
    subject,
    ingress: rulesOf(policy, 'ingress', namespace, problems),
    egress: rulesOf(policy, 'egress', namespace, problems),
    problems,
  };
}
