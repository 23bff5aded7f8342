/**
 * Every endpoint the reachability proof reasons about, as Cilium identities: the pods the
 * rendered objects create (workload pods, VM launcher pods, CDI importer pods, and an unlabelled
 * pod standing for anything else started in a catalog namespace), the platform's pods the
 * policies name (cluster DNS, Prometheus, a Gateway given by pod selector), the reserved
 * identities (the `ingress` Gateway proxy), the outside world (an internet address per family,
 * the platform's LAN blocks) and outside destinations known by name (the forward-auth issuer,
 * VM image sources). Derived from the rendered objects and the platform
 * settings only, never from the definitions.
 */
import ipaddr from 'ipaddr.js';
import { compareText } from '../../base/index.js';
import { labelsFrom } from '../../selector/index.js';
import type { Labels } from '../../selector/index.js';
import type { KubeObject, Platform } from '../types.js';
import { FQDN_KEY, podIdentity, reservedIdentity } from './cilium-labels.js';
import type { PortRange, Proto } from './cilium-policy.js';
import { importerPods, podTemplateLabels } from './check-selectors.js';
import { asArray, asRecord, field, workloadOf } from './model.js';

export type EndpointRole =
  'workload' | 'importer' | 'other-pod' | 'dns' | 'prometheus' | 'gateway' | 'world' | 'external';

export interface Endpoint {
  /** Stable id, e.g. `sonarr/workload`, `platform/dns`, `external/auth.example.net`. */
  readonly id: string;
  /** The catalog service whose namespace holds it; undefined outside the catalog. */
  readonly service: string | undefined;
  readonly role: EndpointRole;
  /** For people: `the workload pods of sonarr`. */
  readonly what: string;
  readonly labels: Labels;
  /** Container ports by name, for named ports in policies. */
  readonly namedPorts: ReadonlyMap<string, PortRange>;
  /** The host name of an outside destination. */
  readonly host?: string;
  /** The address block of an outside client (the LAN). */
  readonly cidr?: string;
}

function hostOf(url: string): string | undefined {
  const match = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(url);
  return match?.[1] === undefined || match[1] === '' ? undefined : match[1].toLowerCase();
}

/** The host of the forward-auth issuer, as the proxy dials it. */
export function issuerHost(platform: Platform): string | undefined {
  return hostOf(platform.forwardAuth.issuerUrl);
}

/** The port an `https://` or `http://` URL is dialled on. */
export function urlPort(url: string): number {
  const explicit = /^[a-z]+:\/\/(?:[^@/]*@)?[^:/?#]*:([0-9]+)/i.exec(url)?.[1];
  if (explicit !== undefined) return Number(explicit);
  return url.toLowerCase().startsWith('http://') ? 80 : 443;
}

/** The URLs a VM's CDI importer pods download from. */
export function importSources(objects: readonly KubeObject[]): string[] {
  const urls: string[] = [];
  for (const vm of objects.filter((o) => o.kind === 'VirtualMachine'))
    for (const template of asArray(field(vm, 'spec', 'dataVolumeTemplates'))) {
      const source = asRecord(field(template, 'spec', 'source')) ?? {};
      for (const kind of ['http', 'registry', 's3', 'gcs', 'imageio', 'vddk']) {
        const url = field(source, kind, 'url');
        if (typeof url === 'string') urls.push(url);
      }
    }
  return urls;
}

function namedPortsOf(workload: KubeObject): Map<string, PortRange> {
  const ports = new Map<string, PortRange>();
  for (const container of asArray(field(workload, 'spec', 'template', 'spec', 'containers')))
    for (const port of asArray(field(container, 'ports'))) {
      const name = field(port, 'name');
      const number = field(port, 'containerPort');
      const proto = (field(port, 'protocol') ?? 'TCP') as Proto;
      if (typeof name === 'string' && typeof number === 'number')
        ports.set(name, { proto, from: number, to: number });
    }
  return ports;
}

function namespaceLabels(objects: readonly KubeObject[], service: string): Labels {
  const ns = objects.find((o) => o.kind === 'Namespace' && o.metadata.name === service);
  const labels = asRecord(field(ns, 'metadata', 'labels')) ?? {};
  return labelsFrom(
    Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

function launcherLabels(vm: KubeObject): Labels {
  // virt-launcher pods carry the VMI template's labels plus KubeVirt's own.
  return labelsFrom({
    ...podTemplateLabels(vm),
    'kubevirt.io': 'virt-launcher',
    'vm.kubevirt.io/name': vm.metadata.name,
  });
}

const NO_PORTS: ReadonlyMap<string, PortRange> = new Map();

/** The pods one catalog namespace holds: the workload's, CDI importers', and any other pod. */
function namespaceEndpoints(service: string, list: readonly KubeObject[]): Endpoint[] {
  const out: Endpoint[] = [];
  const nsLabels = namespaceLabels(list, service);
  const pod = (
    role: EndpointRole,
    id: string,
    what: string,
    labels: Labels,
    namedPorts: ReadonlyMap<string, PortRange> = NO_PORTS,
  ) =>
    out.push({
      id,
      service,
      role,
      what,
      labels: podIdentity(labels, service, nsLabels),
      namedPorts,
    });
  const workload = workloadOf(list);
  if (workload !== undefined) {
    const labels =
      workload.kind === 'VirtualMachine' ? launcherLabels(workload) : podTemplateLabels(workload);
    pod(
      'workload',
      `${service}/workload`,
      `the workload pods of ${service}`,
      labels,
      namedPortsOf(workload),
    );
  }
  const blank = list
    .filter((o) => o.kind === 'VirtualMachine')
    .flatMap((vm) => asArray(field(vm, 'spec', 'dataVolumeTemplates')))
    .map((t) => field(t, 'spec', 'source', 'blank') !== undefined);
  importerPods(list).forEach((labels, i) =>
    // A blank disk's importer only writes an empty image: it downloads nothing.
    pod(
      blank[i] === true ? 'other-pod' : 'importer',
      `${service}/importer-${i}`,
      blank[i] === true
        ? `the CDI importer pod of ${service}'s blank disk #${i}`
        : `the CDI importer pod of ${service}'s disk #${i}`,
      labels,
    ),
  );
  pod('other-pod', `${service}/other`, `an unlabelled pod in ${service}`, {});
  return out;
}

/** The platform's pods and identities the policies name: cluster DNS, Prometheus, the Gateway. */
function platformEndpoints(platform: Platform): Endpoint[] {
  const platformPod = (role: EndpointRole, what: string, namespace: string, labels: Labels) => ({
    id: `platform/${role}`,
    service: undefined,
    role,
    what,
    labels: podIdentity(labels, namespace),
    namedPorts: NO_PORTS,
  });
  const gateway = platform.gateway.cilium;
  return [
    platformPod(
      'dns',
      'the cluster DNS pods',
      platform.clusterDns.namespace,
      platform.clusterDns.podSelector,
    ),
    platformPod(
      'prometheus',
      'the Prometheus pods',
      platform.prometheus.namespace,
      platform.prometheus.podSelector,
    ),
    'entity' in gateway
      ? {
          id: 'platform/gateway',
          service: undefined,
          role: 'gateway',
          what: `the Gateway (Cilium entity ${gateway.entity})`,
          labels: reservedIdentity(gateway.entity),
          namedPorts: NO_PORTS,
        }
      : platformPod('gateway', 'the Gateway pods', gateway.namespace, gateway.podSelector),
  ];
}

/** Addresses that stand for the internet: public, and inside none of the platform's blocks. */
const INTERNET_CANDIDATES: Readonly<Record<'ipv4' | 'ipv6', readonly string[]>> = {
  ipv4: ['198.51.100.7/32', '203.0.113.7/32', '192.0.2.7/32', '1.1.1.1/32'],
  ipv6: ['2001:db8::7/128', '2001:db8:ffff::7/128', '2606:4700::1111/128'],
};

function inside(cidr: string, blocks: readonly string[]): boolean {
  const [address] = ipaddr.parseCIDR(cidr);
  return blocks.some((block) => {
    try {
      const [network, bits] = ipaddr.parseCIDR(block);
      return network.kind() === address.kind() && address.match(network, bits);
    } catch {
      return false;
    }
  });
}

/** An outside address block: its identity is `world` and, in a dual-stack cluster, its family. */
function outsideAddress(id: string, what: string, cidr: string): Endpoint {
  const family = ipaddr.parseCIDR(cidr)[0].kind() === 'ipv6' ? 'world-ipv6' : 'world-ipv4';
  return {
    id,
    service: undefined,
    role: 'world',
    what,
    labels: reservedIdentity('world', { [`reserved:${family}`]: '' }),
    namedPorts: NO_PORTS,
    cidr,
  };
}

/**
 * The outside world: one internet address per family, each LAN block the platform names (LAN
 * clients, the VPN's excluded CIDRs), and the hosts known by name.
 */
function outsideEndpoints(platform: Platform, hosts: ReadonlySet<string>): Endpoint[] {
  const blocks = [...(platform.lan?.sourceCIDRs ?? []), ...platform.vpn.excludedCIDRs].filter((b) =>
    ipaddr.isValidCIDR(b),
  );
  const out: Endpoint[] = [];
  for (const family of ['ipv4', 'ipv6'] as const) {
    const cidr = INTERNET_CANDIDATES[family].find((c) => !inside(c, blocks));
    if (cidr !== undefined)
      out.push(
        outsideAddress(
          `external/internet-${family}`,
          `the internet over ${family === 'ipv4' ? 'IPv4' : 'IPv6'}`,
          cidr,
        ),
      );
  }
  for (const cidr of [...new Set(blocks)])
    out.push(outsideAddress(`external/lan/${cidr}`, `a LAN address in ${cidr}`, cidr));
  for (const host of [...hosts].sort())
    out.push({
      id: `external/${host}`,
      service: undefined,
      role: 'external',
      what: `${host} (outside the cluster)`,
      labels: reservedIdentity('world', { [FQDN_KEY]: host }),
      namedPorts: NO_PORTS,
      host,
    });
  return out;
}

/** Every endpoint of the rendered set and the platform, in a stable order. */
export function endpointsOf(
  objects: ReadonlyMap<string, readonly KubeObject[]>,
  platform: Platform,
  /** Further outside hosts to place (a definition's redirect targets of an image source). */
  extraHosts: readonly string[] = [],
): Endpoint[] {
  const hosts = new Set<string>(extraHosts.map((h) => h.toLowerCase()));
  const out: Endpoint[] = [];
  for (const [service, list] of [...objects].sort((a, b) => compareText(a[0], b[0]))) {
    for (const e of namespaceEndpoints(service, list)) out.push(e);
    for (const url of importSources(list)) {
      const host = hostOf(url);
      if (host !== undefined) hosts.add(host);
    }
  }
  const issuer = issuerHost(platform);
  if (issuer !== undefined) hosts.add(issuer);
  for (const e of platformEndpoints(platform)) out.push(e);
  for (const e of outsideEndpoints(platform, hosts)) out.push(e);
  return out;
}
