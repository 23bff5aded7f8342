/**
 * Renders the anchor's nftables state as one `nft -f` script. Pure: entries in, text out.
 *
 * Layout (the names are an interface shared with the original anchord):
 *
 * ```
 * table ip anchord_v4 / table ip6 anchord_v6
 *   map dnat_tcp, dnat_udp   outside port : backend address . backend port
 *   chain prerouting  (nat, dstnat)  fib daddr type local → dnat via the maps
 *   chain postrouting (nat, srcnat)  masquerade DNATed traffic that did not arrive on the
 *                                    outside interface (hairpin), and egress leaving on it
 * ```
 *
 * Port translation uses concatenated map values (`address . port`): one map lookup per packet
 * and no per-entry rules, so a change of entries is a change of map elements only.
 *
 * Atomicity: each script creates both tables if missing, deletes them and declares them anew,
 * all in one transaction, so the kernel swaps the whole state at once (readers never see a
 * half-applied state) and repeated applies never duplicate rules. Existing connections keep
 * their NAT binding in conntrack; only new connections read the maps.
 *
 * Only numbers from the planner and canonical addresses (validated again here) are written, and
 * the interface name is checked against a strict pattern: no label text reaches the script.
 */
import { validGlobalIpv6, validIpv4 } from './addresses.js';
import type { DnatEntry, Family, Proto } from './model.js';

export const TABLE_V4 = 'anchord_v4';
export const TABLE_V6 = 'anchord_v6';
const IFACE_NAME = /^[A-Za-z0-9_.-]{1,15}$/;

export interface RenderOptions {
  /** The outside interface, e.g. `eth0`. */
  readonly extIface: string;
  /**
   * Families whose kernel has the `fib` expression. A family not listed matches DNAT on
   * `iifname <extIface>` instead (anchord's rule; no hairpin from the bridge). Default: both.
   */
  readonly fibFamilies?: readonly Family[];
  /**
   * Masquerade every DNATed connection, not only hairpin traffic: backends then answer the
   * anchor, so they need no route back through it (no service-anchor), but they see the
   * anchor's address instead of the client's. Default: false.
   */
  readonly masqueradeInbound?: boolean;
}

function validPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}

function checkEntry(entry: DnatEntry): string {
  if (!validPort(entry.port) || !validPort(entry.backendPort))
    throw new Error(`renderNftScript: invalid port in entry ${entry.port}`);
  const address =
    entry.family === 'ipv4' ? validIpv4(entry.address) : validGlobalIpv6(entry.address);
  if (address === undefined)
    throw new Error('renderNftScript: unvalidated address reached the renderer');
  return `${entry.port} : ${address} . ${entry.backendPort}`;
}

/** The checked map elements of one family and protocol, in entry order. */
type Elements = Readonly<Record<`${Family}/${Proto}`, readonly string[]>>;

function tableBlock(family: Family, byMap: Elements, options: RenderOptions): string {
  const iface = options.extIface;
  const nftFamily = family === 'ipv4' ? 'ip' : 'ip6';
  const table = family === 'ipv4' ? TABLE_V4 : TABLE_V6;
  const addrType = family === 'ipv4' ? 'ipv4_addr' : 'ipv6_addr';
  const map = (proto: Proto): string => {
    const elements = byMap[`${family}/${proto}`];
    const body =
      elements.length === 0 ? '' : `\n\t\telements = {\n\t\t\t${elements.join(',\n\t\t\t')}\n\t\t}`;
    return `\tmap dnat_${proto} {\n\t\ttype inet_service : ${addrType} . inet_service${body}\n\t}\n`;
  };
  const fib = (options.fibFamilies ?? ['ipv4', 'ipv6']).includes(family);
  const match = fib ? 'fib daddr type local' : `iifname "${iface}"`;
  return [
    `table ${nftFamily} ${table} {}\n`,
    `delete table ${nftFamily} ${table}\n`,
    `table ${nftFamily} ${table} {\n`,
    map('tcp'),
    map('udp'),
    `\tchain prerouting {\n`,
    `\t\ttype nat hook prerouting priority dstnat; policy accept;\n`,
    `\t\t${match} dnat ${nftFamily} to tcp dport map @dnat_tcp\n`,
    `\t\t${match} dnat ${nftFamily} to udp dport map @dnat_udp\n`,
    `\t}\n`,
    `\tchain postrouting {\n`,
    `\t\ttype nat hook postrouting priority srcnat; policy accept;\n`,
    options.masqueradeInbound === true
      ? `\t\tct status dnat masquerade\n`
      : `\t\tct status dnat iifname != "${iface}" masquerade\n`,
    `\t\toifname "${iface}" masquerade\n`,
    `\t}\n`,
    `}\n`,
  ].join('');
}

/**
 * The full state of both tables as one transaction. Deterministic: same entries (in any order)
 * and interface, same bytes — the daemon compares scripts to skip applies that change nothing.
 * Throws a plain Error (a bug) if an entry holds an unvalidated address or port.
 */
export function renderNftScript(entries: readonly DnatEntry[], options: RenderOptions): string {
  if (!IFACE_NAME.test(options.extIface))
    throw new Error('renderNftScript: invalid interface name');
  const sorted = [...entries].sort((a, b) =>
    a.family !== b.family
      ? a.family < b.family
        ? -1
        : 1
      : a.proto !== b.proto
        ? a.proto < b.proto
          ? -1
          : 1
        : a.port - b.port,
  );
  // One pass over the entries, not one per map: a render runs on every reconcile.
  const byMap: Record<`${Family}/${Proto}`, string[]> = {
    'ipv4/tcp': [],
    'ipv4/udp': [],
    'ipv6/tcp': [],
    'ipv6/udp': [],
  };
  for (const entry of sorted) {
    const bucket = byMap[`${entry.family}/${entry.proto}`] as string[] | undefined;
    if (bucket === undefined) throw new Error('renderNftScript: unknown family or protocol');
    bucket.push(checkEntry(entry));
  }
  return `#!/usr/sbin/nft -f\n${tableBlock('ipv4', byMap, options)}${tableBlock('ipv6', byMap, options)}`;
}

/**
 * A script that only asks whether the kernel accepts `fib daddr type local` for a family, for
 * `nft --check` (nothing is applied). Names a scratch table of its own.
 */
export function renderFibProbeScript(family: Family): string {
  const nftFamily = family === 'ipv4' ? 'ip' : 'ip6';
  return `table ${nftFamily} anchord_fib_probe {\n\tchain probe {\n\t\ttype nat hook prerouting priority dstnat; policy accept;\n\t\tfib daddr type local accept\n\t}\n}\n`;
}

/** Removes both tables (creating them first so the delete cannot fail): used at shutdown. */
export function renderDeleteScript(): string {
  return `table ip ${TABLE_V4} {}\ndelete table ip ${TABLE_V4}\ntable ip6 ${TABLE_V6} {}\ndelete table ip6 ${TABLE_V6}\n`;
}
