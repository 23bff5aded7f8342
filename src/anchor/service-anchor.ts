/**
 * Service-anchor mode: the sidecar whose network namespace a backend shares
 * (`network_mode: service:<it>` or `container:<it>`), keeping that namespace's default route
 * pointed at the network anchor so replies to outside clients go back through the anchor that
 * DNATed them (the client's source address is kept, so the backend must route back via it).
 *
 * As anchord's internal/serviceanchor: resolve `ANCHORD_GATEWAY_HOSTNAME` through Docker's DNS
 * (or take `ANCHORD_GATEWAY_IP`), replace the default route of each family that resolved,
 * re-resolve every interval and replace the route when the address changes; a failed lookup
 * keeps the last route (last-known-good beats no routing). On stop, remove our routes and put
 * back the default routes the namespace had before (Docker's bridge gateway), so the backend
 * keeps its egress after the sidecar is gone.
 *
 * Log `msg` values are anchord's: `service-anchor starting`, `gateway DNS lookup failed`,
 * `default route install failed`, `default route updated`, `default route removed`.
 */
import type { Logger } from 'pino';
import { metricFamily } from './metrics.js';
import type { AnchorMetrics } from './metrics.js';
import type { Family } from './model.js';
import type { ServiceAnchorConfig } from './service-anchor-config.js';
import { validGlobalIpv6, validIpv4 } from './addresses.js';
import { errorText } from '../base/errors.js';

/** A default route as the namespace had it: the gateway, and the device when one was named. */
export interface DefaultRoute {
  readonly gateway: string;
  readonly device?: string;
}

/** What the service-anchor needs from the kernel; the real one runs `ip route`. */
export interface RoutePort {
  /** The current default route of a family, if any. */
  current(family: Family): Promise<DefaultRoute | undefined>;
  /** Replaces (or adds) the default route of a family. Throws when the kernel refuses. */
  replace(family: Family, route: DefaultRoute): Promise<void>;
  /** Removes the default route via this gateway. Throws when there is none. */
  remove(family: Family, gateway: string): Promise<void>;
}

/** Looks a name up; returns its addresses (both families) or throws. */
export type Resolver = (host: string) => Promise<readonly string[]>;

export interface ServiceAnchorDeps {
  readonly routes: RoutePort;
  readonly resolve: Resolver;
  readonly logger: Logger;
  readonly metrics: AnchorMetrics;
}

/** The first usable address of each family in a lookup result (the resolver's order). */
export function pickGateways(addresses: readonly string[]): { ipv4?: string; ipv6?: string } {
  const out: { ipv4?: string; ipv6?: string } = {};
  for (const address of addresses) {
    const v4 = validIpv4(address);
    if (v4 !== undefined) {
      out.ipv4 ??= v4;
      continue;
    }
    const v6 = validGlobalIpv6(address);
    if (v6 !== undefined) out.ipv6 ??= v6;
  }
  return out;
}

export class ServiceAnchor {
  private readonly current = new Map<Family, string>();
  private readonly previous = new Map<Family, DefaultRoute>();
  private routeInstalled = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private resolveDone!: (code: number) => void;
  /** Resolves with the exit code (0) once {@link stop} has restored the routes. */
  readonly done: Promise<number> = new Promise((resolve) => (this.resolveDone = resolve));

  constructor(
    private readonly config: ServiceAnchorConfig,
    private readonly deps: ServiceAnchorDeps,
  ) {}

  /** `/readyz`: ready once one default route was installed (anchord F-35). */
  readiness(): { route_installed: boolean } {
    return { route_installed: this.routeInstalled };
  }

  /** The gateway installed per family. */
  gateways(): ReadonlyMap<Family, string> {
    return this.current;
  }

  /** Logs the start line, runs the first reconcile, and re-runs it every interval. */
  async start(): Promise<void> {
    if (this.stopped) return;
    const ips = this.config.gatewayIps;
    this.deps.logger.info(
      {
        gateway_hostname: this.config.gatewayHostname,
        gateway_ip: [ips.ipv4, ips.ipv6].filter((ip) => ip !== undefined).join(','),
        resolve_interval: `${this.config.resolveIntervalMs / 1000}s`,
      },
      'service-anchor starting',
    );
    this.timer = setInterval(() => void this.reconcile(), this.config.resolveIntervalMs);
    await this.reconcile();
  }

  /** One pass: resolve, then replace routes whose gateway changed. Never throws. */
  reconcile(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running !== undefined) return this.running; // a slow lookup: do not pile up
    this.running = this.reconcileOnce().finally(() => (this.running = undefined));
    return this.running;
  }

  private async reconcileOnce(): Promise<void> {
    let gateways = this.config.gatewayIps;
    if (gateways.ipv4 === undefined && gateways.ipv6 === undefined) {
      try {
        gateways = pickGateways(await this.deps.resolve(this.config.gatewayHostname));
      } catch (error) {
        // One failed lookup says nothing about either family: count an error for both.
        for (const family of ['v4', 'v6'] as const)
          this.deps.metrics.gatewayResolve.inc({ family, outcome: 'error' });
        this.deps.logger.warn(
          { host: this.config.gatewayHostname, err: errorText(error) },
          'gateway DNS lookup failed',
        );
        return;
      }
    }
    for (const family of ['ipv4', 'ipv6'] as const) {
      const gateway = family === 'ipv4' ? gateways.ipv4 : gateways.ipv6;
      this.deps.metrics.gatewayResolve.inc({
        family: metricFamily(family),
        outcome: gateway === undefined ? 'error' : 'ok',
      });
      if (gateway !== undefined && !this.stopped) await this.apply(family, gateway);
    }
  }

  private async apply(family: Family, gateway: string): Promise<void> {
    if (this.current.get(family) === gateway) return;
    const label = metricFamily(family);
    try {
      if (!this.current.has(family) && !this.previous.has(family)) {
        const before = await this.deps.routes.current(family);
        if (before !== undefined && before.gateway !== gateway) this.previous.set(family, before);
      }
      await this.deps.routes.replace(family, { gateway });
    } catch (error) {
      this.deps.logger.warn(
        { family: label, gw: gateway, err: errorText(error) },
        'default route install failed',
      );
      return;
    }
    this.current.set(family, gateway);
    this.deps.metrics.gatewayRouteReplaces.inc({ family: label });
    this.deps.metrics.defaultRoutePresent.set({ family: label }, 1);
    this.routeInstalled = true;
    this.deps.logger.info({ family: label, gateway }, 'default route updated');
  }

  /** Stops the timer, removes our routes and restores the previous ones. Safe to call twice. */
  async stop(): Promise<void> {
    if (this.stopped) {
      this.resolveDone(0);
      return;
    }
    this.stopped = true;
    clearInterval(this.timer);
    while (this.running !== undefined) await this.running;
    for (const [family, gateway] of [...this.current]) {
      const label = metricFamily(family);
      try {
        await this.deps.routes.remove(family, gateway);
        this.deps.metrics.defaultRoutePresent.set({ family: label }, 0);
        this.deps.logger.info({ family: label, gateway }, 'default route removed');
      } catch (error) {
        this.deps.logger.debug(
          { family: label, gw: gateway, err: errorText(error) },
          'default route cleanup',
        );
      }
      const before = this.previous.get(family);
      if (before !== undefined) {
        try {
          await this.deps.routes.replace(family, before);
          this.deps.logger.info(
            { family: label, gateway: before.gateway },
            'default route restored',
          );
        } catch (error) {
          this.deps.logger.warn(
            { family: label, gw: before.gateway, err: errorText(error) },
            'default route restore failed',
          );
        }
      }
    }
    this.current.clear();
    this.resolveDone(0);
  }
}
