/**
 * The network interfaces of this process's network namespace and their MAC addresses.
 *
 * os.networkInterfaces() asks the kernel (getifaddrs) in the current namespace. /sys/class/net
 * would not do: it shows the namespace sysfs was mounted in, which differs when the anchor is
 * started with nsenter. It lists only interfaces with an address; in dhcp-refresh the outside
 * interface has none between a lost lease and the next one, so there `ip -j link` (netlink, the
 * same namespace) fills in the rest. Only there: it costs a process start per reconcile.
 */
import { networkInterfaces } from 'node:os';
import { normalMac } from '../addresses.js';
import { runCommand } from './nft.js';

const DEVICE = /^[A-Za-z0-9_.-]{1,15}$/;

/** MAC → name of every link `ip -j link` shows; empty when ip is missing or fails. */
async function linksByMac(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let parsed: unknown;
  try {
    const result = await runCommand('ip', ['-j', 'link', 'show']);
    parsed = result.code === 0 ? JSON.parse(result.stdout) : [];
  } catch {
    return out;
  }
  for (const link of Array.isArray(parsed) ? (parsed as Record<string, unknown>[]) : []) {
    const mac = typeof link.address === 'string' ? normalMac(link.address) : undefined;
    const name = link.ifname;
    if (mac !== undefined && typeof name === 'string' && DEVICE.test(name) && !out.has(mac))
      out.set(mac, name);
  }
  return out;
}

/** Options of {@link localInterfacesByMac}. */
export interface InterfaceOptions {
  /** Also list interfaces without an address (through `ip -j link`). Default: false. */
  readonly withoutAddress?: boolean;
}

/** MAC address (lower case) → interface name. */
export async function localInterfacesByMac(
  options: InterfaceOptions = {},
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const all = networkInterfaces();
  for (const name of Object.keys(all).sort()) {
    for (const address of all[name] ?? []) {
      const mac = normalMac(address.mac);
      if (mac !== undefined && mac !== '00:00:00:00:00:00' && !out.has(mac)) out.set(mac, name);
    }
  }
  if (options.withoutAddress !== true) return out;
  for (const [mac, name] of await linksByMac())
    if (mac !== '00:00:00:00:00:00' && !out.has(mac)) out.set(mac, name);
  return out;
}
