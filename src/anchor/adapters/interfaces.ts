/**
 * The local network interfaces and their MAC addresses, read from /sys/class/net (every
 * interface, with or without an address), falling back to os.networkInterfaces().
 */
import { readdir, readFile } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import { normalMac } from '../addresses.js';

/** MAC address (lower case) → interface name, for the interfaces of this network namespace. */
export async function localInterfacesByMac(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  try {
    for (const name of (await readdir('/sys/class/net')).sort()) {
      const mac = normalMac(
        (await readFile(`/sys/class/net/${name}/address`, 'utf8').catch(() => '')).trim(),
      );
      if (mac !== undefined && mac !== '00:00:00:00:00:00' && !out.has(mac)) out.set(mac, name);
    }
  } catch {
    // Not Linux or no sysfs: fall through to what Node reports.
  }
  if (out.size === 0) {
    for (const [name, addresses] of Object.entries(networkInterfaces())) {
      const mac = normalMac(addresses?.[0]?.mac);
      if (mac !== undefined && mac !== '00:00:00:00:00:00' && !out.has(mac)) out.set(mac, name);
    }
  }
  return out;
}
