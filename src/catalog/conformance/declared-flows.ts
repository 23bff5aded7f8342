/**
 * What the definitions declare may talk to what, written from the ServiceDefinition contract
 * (docs/catalog.md) without the renderer's code, so a renderer bug cannot hide in both:
 *
 * - every pod of a catalog namespace resolves names through the cluster DNS (UDP and TCP 53);
 * - a workload may send to each dependency's workload on the declared port; the flow goes
 *   through when the target also lists it in `inClusterClients` (otherwise the target's policy
 *   drops it, which the loader warns about); it reaches the outside world on every port with
 *   `egress: internet`, and with `egress: vpn` every IPv4 address outside the VPN's excluded
 *   blocks (the gateway steers those) and no IPv6 address;
 * - a workload admits each declared in-cluster client on the ports it exposes (with forward
 *   auth: the proxy's port instead of the app ports it fronts), the Gateway on the routed ports
 *   (the proxy's port with forward auth) and Prometheus on the metrics port only.
 *
 * Each declared flow is also given as selectors over identities, for the symbolic half of the
 * proof (no pod outside these selectors may be admitted).
 */
import ipaddr from 'ipaddr.js';
import { requirement, selectorOf } from '../../selector/index.js';
import { COMPONENT_LABEL, NAME_LABEL, WORKLOAD_COMPONENT } from '../render/labels.js';
import type { Selector } from '../../selector/index.js';
import type { KubeObject, Platform, ResolvedService } from '../types.js';
import { NAMESPACE_KEY, entitySelectors, sourcedKey } from './cilium-labels.js';
import type { PortRange } from './cilium-policy.js';
import type { Endpoint } from './endpoints.js';
import { issuerHost, urlPort } from './endpoints.js';
import type { PortSet } from './port-sets.js';
import { ALL_PORTS, normalizePorts, port } from './port-sets.js';

/** A declared peer: the endpoints it stands for, and the selectors any such pod satisfies. */
export interface DeclaredPeer {
  readonly what: string;
  readonly ids: readonly string[];
  readonly selectors: readonly Selector[];
  /** Outside destinations known by name. */
  readonly hosts?: readonly string[];
  /** Outside address blocks (the LAN). */
  readonly cidrs?: readonly string[];
  readonly world?: boolean;
}

export interface DeclaredRule {
  readonly peer: DeclaredPeer;
  readonly ports: PortSet;
  readonly why: string;
}

export interface DeclaredService {
  readonly service: string;
  /** Rules for the workload pods. */
  readonly ingress: readonly DeclaredRule[];
  readonly egress: readonly DeclaredRule[];
  /** Rules for every other pod of the namespace (anything else): DNS only. */
  readonly otherEgress: readonly DeclaredRule[];
  /** Rules for the CDI importer pods: DNS and the image source. */
  readonly importerEgress: readonly DeclaredRule[];
}

function labelSelector(matchLabels: Readonly<Record<string, string>>, namespace: string): Selector {
  const requirements = Object.entries(matchLabels).map(([k, v]) =>
    requirement(sourcedKey(k), 'In', [v]),
  );
  return selectorOf([...requirements, requirement(NAMESPACE_KEY, 'In', [namespace])]);
}

/**
 * "The pods of service X": its namespace and the frozen workload selector of the contract
 * (`app.kubernetes.io/name: X`, `app.kubernetes.io/component: workload`), which the selector
 * check proves selects the workload's pods and nothing else.
 */
function workloadPeer(service: string): DeclaredPeer {
  return {
    what: `the workload pods of ${service}`,
    ids: [`${service}/workload`],
    selectors: [
      labelSelector({ [NAME_LABEL]: service, [COMPONENT_LABEL]: WORKLOAD_COMPONENT }, service),
    ],
  };
}

export function dnsPeer(platform: Platform): DeclaredPeer {
  return {
    what: 'the cluster DNS',
    ids: ['platform/dns'],
    selectors: [labelSelector(platform.clusterDns.podSelector, platform.clusterDns.namespace)],
  };
}

function gatewayPeer(platform: Platform): DeclaredPeer {
  const gateway = platform.gateway.cilium;
  return {
    what: 'the Gateway',
    ids: ['platform/gateway'],
    selectors:
      'entity' in gateway
        ? (entitySelectors(gateway.entity) ?? [])
        : [labelSelector(gateway.podSelector, gateway.namespace)],
  };
}

function prometheusPeer(platform: Platform): DeclaredPeer {
  return {
    what: 'Prometheus',
    ids: ['platform/prometheus'],
    selectors: [labelSelector(platform.prometheus.podSelector, platform.prometheus.namespace)],
  };
}

function worldPeer(endpoints: readonly Endpoint[]): DeclaredPeer {
  const outside = endpoints.filter((e) => e.role === 'world' || e.role === 'external');
  return {
    what: 'the outside world',
    ids: outside.map((e) => e.id),
    selectors: entitySelectors('world') ?? [],
    world: true,
  };
}

const DNS_PORTS: PortSet = [port('TCP', 53), port('UDP', 53)];

/**
 * The ports a service's declared in-cluster clients reach: the app's own ports, including one
 * the forward-auth proxy fronts (a client's call carries no browser session, so through the
 * proxy it would get a redirect or a 401), never the proxy's login port.
 */
export function clientPorts(service: ResolvedService): PortRange[] {
  return normalizePorts(service.ports.map((p) => port(p.protocol, p.port)));
}

/** Outside hosts the definition needs by name: `{host, port}`. */
interface HostNeed {
  readonly host: string;
  readonly port: number;
}

/** Where a VM's CDI importer downloads its root disk from (resolved with the definition). */
function importHosts(service: ResolvedService): readonly HostNeed[] {
  return (service as { importFrom?: readonly HostNeed[] }).importFrom ?? [];
}

function hostPeer(need: HostNeed, endpoints: readonly Endpoint[]): DeclaredPeer {
  return {
    what: need.host,
    ids: endpoints.filter((e) => e.host === need.host).map((e) => e.id),
    selectors: [],
    hosts: [need.host],
  };
}

function gatewayPorts(service: ResolvedService, platform: Platform): PortRange[] {
  if (service.ingressRoutes.length === 0) return [];
  if (service.auth.mode === 'forward-auth') return [port('TCP', platform.forwardAuth.port)];
  return normalizePorts(service.ingressRoutes.map((r) => port('TCP', r.port.port)));
}

/**
 * A VPN-class workload's world: every IPv4 address outside the excluded blocks, which the
 * gateway steers, and the hosts known only by name. Never an IPv6 address.
 */
function vpnWorldPeer(platform: Platform, endpoints: readonly Endpoint[]): DeclaredPeer {
  const excluded = platform.vpn.excludedCIDRs.flatMap((c) => {
    try {
      return [ipaddr.parseCIDR(c)];
    } catch {
      return [];
    }
  });
  const steered = (cidr: string): boolean => {
    const [address] = ipaddr.parseCIDR(cidr);
    return (
      address.kind() === 'ipv4' &&
      !excluded.some(([n, bits]) => n.kind() === 'ipv4' && address.match(n, bits))
    );
  };
  const ids = endpoints
    .filter(
      (e) =>
        e.role === 'external' || (e.role === 'world' && e.cidr !== undefined && steered(e.cidr)),
    )
    .map((e) => e.id);
  return {
    what: 'the internet over IPv4, through the VPN gateway',
    ids,
    selectors: [],
    cidrs: ['0.0.0.0/0'],
  };
}

/** What one workload may send to, and why. */
function declaredEgress(
  service: ResolvedService,
  byName: ReadonlyMap<string, ResolvedService>,
  platform: Platform,
  endpoints: readonly Endpoint[],
): DeclaredRule[] {
  const egress: DeclaredRule[] = [DNS_RULE(platform)];
  for (const dependency of service.dependencies) {
    // The egress half is declared by the dependency alone; the flow also needs the target to
    // list the caller in inClusterClients (the ingress half), which the loader warns about.
    if (!byName.has(dependency.to)) continue;
    egress.push({
      peer: workloadPeer(dependency.to),
      ports: [port(dependency.protocol, dependency.port)],
      why: `dependency on ${dependency.to}`,
    });
  }
  if (service.egress === 'internet')
    egress.push({ peer: worldPeer(endpoints), ports: ALL_PORTS, why: 'egress: internet' });
  else
    egress.push({
      peer: vpnWorldPeer(platform, endpoints),
      ports: ALL_PORTS,
      why: 'egress: vpn',
    });
  // The forward-auth proxy exits at start when it cannot reach the issuer: whatever the egress
  // class, the workload reaches the issuer on its port.
  const issuer = issuerHost(platform);
  if (service.auth.mode === 'forward-auth' && issuer !== undefined)
    egress.push({
      peer: hostPeer({ host: issuer, port: urlPort(platform.forwardAuth.issuerUrl) }, endpoints),
      ports: [port('TCP', urlPort(platform.forwardAuth.issuerUrl))],
      why: 'the forward-auth issuer',
    });
  return egress;
}

/** Who may send to one workload, and why. */
function declaredIngress(
  service: ResolvedService,
  byName: ReadonlyMap<string, ResolvedService>,
  platform: Platform,
): DeclaredRule[] {
  const ingress: DeclaredRule[] = [];
  const routed = gatewayPorts(service, platform);
  if (routed.length > 0)
    ingress.push({ peer: gatewayPeer(platform), ports: routed, why: 'ingressRoutes' });
  const lan = platform.lan;
  const lanPorts = service.ports.filter((p) => (p as { lan?: boolean }).lan === true);
  if (lan !== undefined && lanPorts.length > 0)
    ingress.push({
      peer: {
        what: 'the LAN',
        ids: lan.sourceCIDRs.map((c) => `external/lan/${c}`),
        selectors: [],
        cidrs: lan.sourceCIDRs,
      },
      ports: normalizePorts(lanPorts.map((p) => port(p.protocol, p.port))),
      why: 'ports exposed on the LAN address',
    });
  const exposed = clientPorts(service);
  for (const client of service.inClusterClients) {
    if (!byName.has(client) || exposed.length === 0) continue;
    ingress.push({
      peer: workloadPeer(client),
      ports: exposed,
      why: `inClusterClients lists ${client}`,
    });
  }
  const metrics = service.observability.metricsEndpoint;
  if (metrics !== undefined)
    ingress.push({
      peer: prometheusPeer(platform),
      ports: [port(metrics.port.protocol, metrics.port.port)],
      why: 'metricsEndpoint',
    });
  return ingress;
}

const DNS_RULE = (platform: Platform): DeclaredRule => ({
  peer: dnsPeer(platform),
  ports: DNS_PORTS,
  why: 'name resolution',
});

/** The declared flows of every service, by name. */
export function declaredFlows(
  services: readonly ResolvedService[],
  objects: ReadonlyMap<string, readonly KubeObject[]>,
  platform: Platform,
  endpoints: readonly Endpoint[],
): Map<string, DeclaredService> {
  const byName = new Map(services.map((s) => [s.name, s]));
  const dns = DNS_RULE(platform);
  const out = new Map<string, DeclaredService>();
  for (const service of services) {
    if (!objects.has(service.name)) continue;
    const importer: DeclaredRule[] = importHosts(service).map((need) => ({
      peer: hostPeer(need, endpoints),
      ports: [port('TCP', need.port)],
      why: 'the VM image source',
    }));
    out.set(service.name, {
      service: service.name,
      ingress: declaredIngress(service, byName, platform),
      egress: declaredEgress(service, byName, platform, endpoints),
      otherEgress: [dns],
      importerEgress: [dns, ...importer],
    });
  }
  return out;
}
