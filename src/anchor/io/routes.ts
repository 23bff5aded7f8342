/**
 * The service-anchor's kernel and DNS edges: default routes through `ip route` (iproute2, argument
 * arrays, never a shell) and name lookups through the system resolver, which inside a container
 * on a user-defined network is Docker's embedded DNS (127.0.0.11).
 *
 * Only canonical addresses (re-validated here) and interface names matching a strict pattern
 * reach the `ip` arguments.
 */
import { lookup } from 'node:dns/promises';
import { LabelwiseError } from '../../base/errors.js';
import { validGlobalIpv6, validIpv4 } from '../addresses.js';
import type { Family } from '../model.js';
import type { DefaultRoute, RoutePort } from '../service-anchor.js';
import { runCommand } from './nft.js';

const DEVICE = /^[A-Za-z0-9_.-]{1,15}$/;

function familyFlag(family: Family): string {
  return family === 'ipv4' ? '-4' : '-6';
}

function checked(family: Family, gateway: string): string {
  const address = family === 'ipv4' ? validIpv4(gateway) : validGlobalIpv6(gateway);
  if (address === undefined) throw new Error('route with an unvalidated gateway address');
  return address;
}

async function ip(command: string, args: readonly string[]): Promise<string> {
  let result: Awaited<ReturnType<typeof runCommand>>;
  try {
    result = await runCommand(command, args);
  } catch (error) {
    throw new LabelwiseError('ANCHOR_TOOL_MISSING', `cannot run ip: ${(error as Error).message}`, {
      hint: 'install iproute2 in the anchor image',
      kind: 'unavailable',
    });
  }
  if (result.code !== 0) {
    throw new LabelwiseError(
      'ANCHOR_ROUTE_FAILED',
      `ip ${args.join(' ')} failed (exit ${result.code}): ${result.stderr.trim().slice(0, 500)}`,
      {
        hint: 'the service-anchor needs NET_ADMIN and the gateway on a directly attached network',
        kind: 'unavailable',
      },
    );
  }
  return result.stdout;
}

/** Default routes of this network namespace through `ip route`. */
export class IpRoutes implements RoutePort {
  /** @param command the iproute2 binary (tests point it at a failing program). */
  constructor(private readonly command = 'ip') {}

  async current(family: Family): Promise<DefaultRoute | undefined> {
    const text = await ip(this.command, [familyFlag(family), '-j', 'route', 'show', 'default']);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text === '' ? '[]' : text);
    } catch {
      return undefined;
    }
    if (!Array.isArray(parsed)) return undefined;
    for (const route of parsed as { gateway?: unknown; dev?: unknown }[]) {
      if (typeof route.gateway !== 'string') continue;
      const gateway = family === 'ipv4' ? validIpv4(route.gateway) : validGlobalIpv6(route.gateway);
      if (gateway === undefined) continue;
      const device =
        typeof route.dev === 'string' && DEVICE.test(route.dev) ? route.dev : undefined;
      return device === undefined ? { gateway } : { gateway, device };
    }
    return undefined;
  }

  async replace(family: Family, route: DefaultRoute): Promise<void> {
    const args = [familyFlag(family), 'route', 'replace', 'default', 'via'];
    args.push(checked(family, route.gateway));
    if (route.device !== undefined && DEVICE.test(route.device)) args.push('dev', route.device);
    await ip(this.command, args);
  }

  async remove(family: Family, gateway: string): Promise<void> {
    await ip(this.command, [
      familyFlag(family),
      'route',
      'del',
      'default',
      'via',
      checked(family, gateway),
    ]);
  }
}

/** Every address of a name, both families, in the resolver's order. */
export async function resolveHost(host: string): Promise<readonly string[]> {
  const found = await lookup(host, { all: true, verbatim: true });
  return found.map((entry) => entry.address);
}
