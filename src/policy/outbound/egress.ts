/**
 * Which EgressNetwork governs a destination address (Linkerd's `resolve_egress_network`):
 *
 * 1. Only EgressNetworks in the client's namespace are candidates; when there are none there,
 *    those in the global egress namespace (`linkerd-egress` by default).
 * 2. A candidate matches when one of its networks holds the address (inside `cidr`, outside
 *    every `except`). Without `networks` it holds everything outside the cluster networks.
 * 3. The most specific matching network wins (smallest block), then the oldest object, then
 *    namespace and name in order.
 */
import type { Address, Cidr } from '../networks.js';
import { cidrContains, compileNetworks, parseCidr } from '../networks.js';
import type { NetworkSpec } from '../types.js';
import type { EgressNetwork } from './types.js';

/** The networks of an EgressNetwork that writes none: everything but the cluster networks. */
export function defaultEgressNetworks(clusterNetworks: readonly string[]): NetworkSpec[] {
  const v4 = clusterNetworks.filter((c) => !c.includes(':'));
  const v6 = clusterNetworks.filter((c) => c.includes(':'));
  return [
    { cidr: '0.0.0.0/0', except: v4 },
    { cidr: '::/0', except: v6 },
  ];
}

/** log2 of a block's size: a smaller number is a more specific network. */
function blockBits(cidr: Cidr): number {
  return cidr.v4 ? 32 - Math.clz32(~cidr.mask >>> 0) : 128 - cidr.prefix;
}

/** The size (as bits) of the smallest network of `specs` that holds the address, or undefined. */
function matchedBits(specs: readonly NetworkSpec[], address: Address): number | undefined {
  let best: number | undefined;
  for (const term of compileNetworks(specs)) {
    if (!cidrContains(term.cidr, address)) continue;
    if (term.except.some((e) => cidrContains(e, address))) continue;
    const bits = blockBits(term.cidr);
    if (best === undefined || bits < best) best = bits;
  }
  return best;
}

function older(a: string, b: string): number {
  // An absent timestamp sorts first here, as Rust orders `None` before `Some`.
  return a === b ? 0 : a < b ? -1 : 1;
}

/** The EgressNetworks a client of `clientNamespace` may be governed by (step 1 above). */
export function egressCandidates(
  networks: readonly EgressNetwork[],
  clientNamespace: string,
  globalNamespace: string,
): EgressNetwork[] {
  const local = networks.filter((n) => n.meta.namespace === clientNamespace);
  return local.length > 0 ? local : networks.filter((n) => n.meta.namespace === globalNamespace);
}

/** The EgressNetwork for `address` seen from `clientNamespace`, or undefined (no egress policy). */
export function resolveEgressNetwork(
  networks: readonly EgressNetwork[],
  address: Address,
  clientNamespace: string,
  globalNamespace: string,
  clusterNetworks: readonly string[],
): EgressNetwork | undefined {
  const pool = egressCandidates(networks, clientNamespace, globalNamespace);
  let best: { net: EgressNetwork; bits: number } | undefined;
  for (const net of pool) {
    const bits = matchedBits(net.networks ?? defaultEgressNetworks(clusterNetworks), address);
    if (bits === undefined) continue;
    if (best === undefined || better(net, bits, best.net, best.bits)) best = { net, bits };
  }
  return best?.net;
}

function better(a: EgressNetwork, aBits: number, b: EgressNetwork, bBits: number): boolean {
  if (aBits !== bBits) return aBits < bBits;
  const age = older(a.meta.created, b.meta.created);
  if (age !== 0) return age < 0;
  if (a.meta.namespace !== b.meta.namespace) return a.meta.namespace < b.meta.namespace;
  return a.meta.name < b.meta.name;
}

/** Is `address` inside one of the cluster networks (so never egress)? */
export function inClusterNetworks(address: Address, clusterNetworks: readonly string[]): boolean {
  return clusterNetworks.some((text) => {
    const cidr = parseCidr(text);
    return cidr !== undefined && cidrContains(cidr, address);
  });
}
