/**
 * The leased address and the default route on the outside interface, through `ip` (iproute2,
 * argument arrays, never a shell). Only canonical IPv4 addresses (re-validated here) and
 * interface names of a strict pattern reach the arguments.
 */
import { LabelwiseError } from '../../../base/errors.js';
import { validGlobalIpv6, validIpv4 } from '../../addresses.js';
import { runCommand } from '../../io/nft.js';
import type { Lease } from '../lease.js';

const DEVICE = /^[A-Za-z0-9_.-]{1,15}$/;

/** What the DHCP supervisor changes in the network namespace. */
export interface AddressingPort {
  /** Makes broadcasts to 255.255.255.255 leave through the outside interface. */
  prepare(iface: string): Promise<void>;
  /** Puts the leased address on the interface and removes every other IPv4 address there. */
  configure(iface: string, lease: Lease): Promise<void>;
  /** Removes the leased address. */
  unconfigure(iface: string, lease: Lease): Promise<void>;
  /** `ip route replace default via <gateway> dev <iface>`. */
  defaultRoute(iface: string, gateway: string): Promise<void>;
  /** Undoes {@link prepare}. */
  finish(iface: string): Promise<void>;
  /** Adds (or refreshes) DHCPv6 /128 host addresses with their valid lifetime. */
  configure6(iface: string, addresses: readonly string[], validSeconds: number): Promise<void>;
  /** Removes DHCPv6 host addresses. */
  unconfigure6(iface: string, addresses: readonly string[]): Promise<void>;
}

function device(iface: string): string {
  if (!DEVICE.test(iface)) throw new Error('an unvalidated interface name reached ip');
  return iface;
}

function address(text: string): string {
  const checked = validIpv4(text);
  if (checked === undefined) throw new Error('an unvalidated address reached ip');
  return checked;
}

function address6(text: string): string {
  const checked = validGlobalIpv6(text);
  if (checked === undefined) throw new Error('an unvalidated IPv6 address reached ip');
  return checked;
}

/** `valid_lft`/`preferred_lft` so the kernel itself drops the address if the anchor dies. */
function lifetime(lease: Lease): string {
  return lease.expiresAt === Number.POSITIVE_INFINITY ? 'forever' : String(lease.leaseSeconds);
}

/** `ip addr replace` of one address, valid and preferred for `lft` (seconds or `forever`). */
function replaceAddress(family: '-4' | '-6', cidr: string, iface: string, lft: string): string[] {
  return [
    family,
    'addr',
    'replace',
    cidr,
    'dev',
    device(iface),
    'valid_lft',
    lft,
    'preferred_lft',
    lft,
  ];
}

/** The address changes through the `ip` command. */
export class IpAddressing implements AddressingPort {
  /** @param command the iproute2 binary (tests point it at a failing program). */
  constructor(private readonly command = 'ip') {}

  private async ip(args: readonly string[], tolerate?: RegExp): Promise<string> {
    let result: Awaited<ReturnType<typeof runCommand>>;
    try {
      result = await runCommand(this.command, args);
    } catch (error) {
      throw new LabelwiseError(
        'ANCHOR_TOOL_MISSING',
        `cannot run ip: ${(error as Error).message}`,
        {
          hint: 'install iproute2 in the anchor image',
          kind: 'unavailable',
        },
      );
    }
    if (result.code !== 0 && !(tolerate?.test(result.stderr) ?? false)) {
      throw new LabelwiseError(
        'ANCHOR_DHCP_FAILED',
        `ip ${args.join(' ')} failed (exit ${result.code}): ${result.stderr.trim().slice(0, 500)}`,
        { hint: 'the anchor needs NET_ADMIN to configure the leased address', kind: 'unavailable' },
      );
    }
    return result.stdout;
  }

  async prepare(iface: string): Promise<void> {
    await this.ip(['-4', 'route', 'replace', '255.255.255.255/32', 'dev', device(iface)]);
  }

  async finish(iface: string): Promise<void> {
    await this.ip(
      ['-4', 'route', 'del', '255.255.255.255/32', 'dev', device(iface)],
      /No such process|not found/i,
    );
  }

  async configure(iface: string, lease: Lease): Promise<void> {
    const cidr = `${address(lease.address)}/${lease.prefixLength}`;
    const lft = lifetime(lease);
    // The others go first: deleting a primary address takes its subnet's secondaries with it
    // (unless promote_secondaries is on, which a container cannot set), and the lease would be
    // a secondary of Docker's bootstrap address. As in anchord, the lease replaces that address.
    for (const other of await this.addresses(iface)) {
      if (other === cidr) continue;
      await this.ip(['-4', 'addr', 'del', other, 'dev', device(iface)], /Cannot assign/i);
    }
    await this.ip(replaceAddress('-4', cidr, iface, lft));
  }

  async unconfigure(iface: string, lease: Lease): Promise<void> {
    const cidr = `${address(lease.address)}/${lease.prefixLength}`;
    await this.ip(['-4', 'addr', 'del', cidr, 'dev', device(iface)], /Cannot assign/i);
  }

  async defaultRoute(iface: string, gateway: string): Promise<void> {
    await this.ip([
      '-4',
      'route',
      'replace',
      'default',
      'via',
      address(gateway),
      'dev',
      device(iface),
    ]);
  }

  async configure6(
    iface: string,
    addresses: readonly string[],
    validSeconds: number,
  ): Promise<void> {
    const lft = validSeconds >= 0xffffffff ? 'forever' : String(validSeconds);
    for (const a of addresses)
      await this.ip([...replaceAddress('-6', `${address6(a)}/128`, iface, lft), 'nodad']);
  }

  async unconfigure6(iface: string, addresses: readonly string[]): Promise<void> {
    for (const a of addresses)
      await this.ip(
        ['-6', 'addr', 'del', `${address6(a)}/128`, 'dev', device(iface)],
        /Cannot assign|not found/i,
      );
  }

  /** The interface's IPv4 addresses as `a.b.c.d/len`. */
  private async addresses(iface: string): Promise<string[]> {
    const text = await this.ip(['-j', '-4', 'addr', 'show', 'dev', device(iface)]);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text === '' ? '[]' : text);
    } catch {
      return [];
    }
    const out: string[] = [];
    for (const link of Array.isArray(parsed) ? (parsed as { addr_info?: unknown }[]) : []) {
      for (const info of Array.isArray(link.addr_info)
        ? (link.addr_info as Record<string, unknown>[])
        : []) {
        const local = typeof info.local === 'string' ? validIpv4(info.local) : undefined;
        const prefix = info.prefixlen;
        if (local !== undefined && typeof prefix === 'number') out.push(`${local}/${prefix}`);
      }
    }
    return out;
  }
}
