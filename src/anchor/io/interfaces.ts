/**
 * The network interfaces of this process's network namespace and their MAC addresses.
 *
 * os.networkInterfaces() asks the kernel (getifaddrs) in the current namespace. /sys/class/net
 * would not do: it shows the namespace sysfs was mounted in, which differs when the anchor is
 * started with nsenter. Interfaces without an address are not listed, which is fine: the outside
 * and shared interfaces both carry the addresses Docker assigned.
 */
import { networkInterfaces } from 'node:os';
import { normalMac } from '../addresses.js';

/** MAC address (lower case) → interface name. */
export async function localInterfacesByMac(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const all = networkInterfaces();
  for (const name of Object.keys(all).sort()) {
    for (const address of all[name] ?? []) {
      const mac = normalMac(address.mac);
      if (mac !== undefined && mac !== '00:00:00:00:00:00' && !out.has(mac)) out.set(mac, name);
    }
  }
  return out;
}
