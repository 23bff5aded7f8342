/**
 * The VPN kill-switch, proved from the rendered objects: a VPN-class workload reaches the
 * internet over IPv4, every outside address it reaches over IPv4 is one a
 * CiliumEgressGatewayPolicy selecting its pods steers through the gateway (not an excluded
 * block), and it reaches no IPv6 address at all, since the gateway steers IPv4 only. A failure
 * names the flow that breaks it as the witness: both endpoints' labels and the open ports.
 */
import ipaddr from 'ipaddr.js';
import { matches } from '../../selector/index.js';
import type { Selector } from '../../selector/index.js';
import type { KubeObject, ResolvedService } from '../types.js';
import { clusterSelector } from './cilium-labels.js';
import type { Endpoint } from './endpoints.js';
import type { CheckResult } from './model.js';
import { asArray, describeObject, field } from './model.js';
import { formatPorts } from './port-sets.js';
import type { Flow, Reachability } from './reachability.js';

export const VPN_EGRESS_CHECK = 'vpn-egress-only-through-gateway';

type Block = [ipaddr.IPv4 | ipaddr.IPv6, number];

interface Gateway {
  readonly name: string;
  readonly selectors: readonly Selector[];
  readonly destinations: readonly Block[];
  readonly excluded: readonly Block[];
}

function blocks(value: unknown): Block[] {
  return asArray(value).flatMap((c) => {
    try {
      return [ipaddr.parseCIDR(String(c))];
    } catch {
      return [];
    }
  });
}

function gatewaysOf(objects: readonly KubeObject[]): Gateway[] {
  return objects
    .filter((o) => o.kind === 'CiliumEgressGatewayPolicy')
    .map((o) => ({
      name: describeObject(o),
      selectors: asArray(field(o, 'spec', 'selectors')).flatMap((s, i) => {
        const read = clusterSelector(field(s, 'podSelector'), `spec.selectors[${i}].podSelector`);
        return 'selector' in read ? [read.selector] : [];
      }),
      destinations: blocks(field(o, 'spec', 'destinationCIDRs')),
      excluded: blocks(field(o, 'spec', 'excludedCIDRs')),
    }));
}

const within = (cidr: string, list: readonly Block[]): boolean => {
  const [address] = ipaddr.parseCIDR(cidr);
  return list.some(([n, bits]) => n.kind() === address.kind() && address.match(n, bits));
};

/** Why a flow from a VPN-class workload leaves outside the gateway, or undefined. */
function bypass(flow: Flow, gateways: readonly Gateway[]): string | undefined {
  const to: Endpoint = flow.to;
  if (to.role !== 'world' && to.role !== 'external') return undefined;
  // A host known by name is dialled at an address the model does not know: the gateway steers it.
  if (to.cidr === undefined) return undefined;
  if (ipaddr.parseCIDR(to.cidr)[0].kind() === 'ipv6')
    return 'over IPv6, which the egress gateway does not steer';
  if (
    !gateways.some(
      (g) => within(to.cidr as string, g.destinations) && !within(to.cidr as string, g.excluded),
    )
  )
    return 'directly: no egress gateway policy steers that address';
  return undefined;
}

function proveService(
  service: ResolvedService,
  objects: readonly KubeObject[],
  reach: Reachability,
): CheckResult {
  const id = `${service.name}/workload`;
  const workload = reach.endpoints.find((e) => e.id === id);
  const gateways =
    workload === undefined
      ? []
      : gatewaysOf(objects).filter((g) => g.selectors.some((s) => matches(s, workload.labels)));
  const object = gateways[0]?.name ?? `CiliumEgressGatewayPolicy ${service.name}-vpn`;
  const fail = (message: string, flow?: Flow): CheckResult => ({
    name: VPN_EGRESS_CHECK,
    ok: false,
    object,
    message,
    ...(flow === undefined
      ? {}
      : {
          witness: { from: flow.from.labels, to: flow.to.labels, ports: formatPorts(flow.ports) },
        }),
  });
  if (workload === undefined) return fail(`${service.name} renders no workload pods to prove`);
  const flows = reach.flows.filter((f) => f.from.id === id);
  if (gateways.length === 0) {
    const outside = flows.find((f) => f.to.role === 'world' || f.to.role === 'external');
    return fail(
      `no CiliumEgressGatewayPolicy selects the workload pods of ${service.name}${outside === undefined ? '' : `, so it reaches ${outside.to.what} directly`}`,
      outside,
    );
  }
  for (const flow of flows) {
    const why = bypass(flow, gateways);
    if (why !== undefined)
      return fail(
        `${service.name} reaches ${flow.to.what} on ${formatPorts(flow.ports)} ${why}`,
        flow,
      );
  }
  if (!flows.some((f) => f.to.id === 'external/internet-ipv4'))
    return fail(
      `${service.name} cannot reach the internet: its network policy allows no IPv4 world egress`,
    );
  return {
    name: VPN_EGRESS_CHECK,
    ok: true,
    object,
    message: `${service.name} reaches the internet only through the gateway; never over IPv6`,
  };
}

/** One result per VPN-class service with rendered objects. */
export function proveVpnEgress(
  services: readonly ResolvedService[],
  objects: ReadonlyMap<string, readonly KubeObject[]>,
  reach: Reachability,
): CheckResult[] {
  return services
    .filter((s) => s.egress === 'vpn' && objects.has(s.name))
    .map((s) => proveService(s, objects.get(s.name) ?? [], reach));
}
