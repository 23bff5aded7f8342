/**
 * Runs the DHCPv4 client on the outside interface: feeds the pure state machine (client.ts)
 * with socket messages and timer expiries, and carries out its actions one at a time, in order.
 *
 * Log lines are anchord's (internal/dhcp): `dhcp v4 lease acquired` (iface, ip, server, lease),
 * `dhcp v4 lease renewed` (debug), `dhcp client lost lease, retrying` (family, err, backoff).
 */
import type { Logger } from 'pino';
import { LabelwiseError } from '../../../base/errors.js';
import { INITIAL_STATE, nextWakeup, step } from '../client.js';
import type { ClientAction, ClientEvent, ClientSettings, ClientState } from '../client.js';
import type { Lease } from '../lease.js';
import type { DhcpPacket } from '../packet.js';
import type { AddressingPort } from './addressing.js';
import type { DhcpTransport, TransportHandlers } from './socket.js';
import { StepLoop } from './step-loop.js';

/** The anchord_dhcp_* series the supervisor moves (src/anchor/metrics.ts). */
export interface DhcpMetricsPort {
  dhcpAcquired(outcome: 'ok' | 'error'): void;
  dhcpRestart(): void;
  /** The lease's end (ms since the epoch), or undefined when no lease is held. */
  dhcpLeaseExpiry(expiresAt: number | undefined): void;
}

export interface SupervisorDeps {
  readonly open: (handlers: TransportHandlers) => Promise<DhcpTransport>;
  readonly addressing: AddressingPort;
  readonly logger: Logger;
  readonly metrics: DhcpMetricsPort;
  /** Default: Date.now. */
  readonly now?: () => number;
  /** A random 32-bit transaction id. Default: Math.random. */
  readonly entropy?: () => number;
}

/** Where the leased default route comes from when the lease carries no router. */
export interface RouteSettings {
  /** `ANCHORD_EXT_GATEWAY_IP`'s IPv4 pin, used until (and unless) option 3 names a router. */
  readonly pin?: string;
}

/** A duration as Go's time.Duration prints it (`1s`, `2m30s`, `1h0m0s`, `500ms`): anchord's `backoff`. */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  return `${hours > 0 ? `${hours}h` : ''}${hours > 0 || minutes > 0 ? `${minutes}m` : ''}${seconds}s`;
}

export class DhcpSupervisor {
  private readonly loop: StepLoop<ClientState, ClientEvent, ClientAction>;
  private transport: DhcpTransport | undefined;
  private routedVia: string | undefined;

  constructor(
    private readonly iface: string,
    settings: ClientSettings,
    private readonly deps: SupervisorDeps,
    private readonly route: RouteSettings = {},
  ) {
    this.loop = new StepLoop<ClientState, ClientEvent, ClientAction>(INITIAL_STATE, {
      step: (state, event) => step(state, event, settings),
      nextWakeup,
      perform: (action, before) => this.perform(action, before),
      transition: (before, after) =>
        this.deps.logger.debug({ from: before.kind, to: after.kind }, 'dhcp client state'),
      timerEvent: () => ({ type: 'timer', now: this.now(), entropy: this.entropy() }),
      now: () => this.now(),
    });
  }

  private get state(): ClientState {
    return this.loop.current();
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  private entropy(): number {
    return (this.deps.entropy ?? (() => Math.floor(Math.random() * 2 ** 32)))();
  }

  /** The client's current state (for tests and logs). */
  current(): ClientState {
    return this.state;
  }

  /** Prepares the interface, opens the socket and sends the first DISCOVER. Throws a LabelwiseError. */
  async start(): Promise<void> {
    await this.deps.addressing.prepare(this.iface);
    this.transport = await this.deps.open({
      onPacket: (packet) =>
        this.loop.enqueue({ type: 'packet', now: this.now(), entropy: this.entropy(), packet }),
      onGarbage: (reason) => this.deps.logger.debug({ reason }, 'dhcp message dropped'),
    });
    // The pin is the route until a lease names a router; a refusal must not leave the socket
    // open behind a failed start, so it is logged like any other apply failure.
    if (this.route.pin !== undefined)
      await this.perform({ type: 'route', gateway: this.route.pin }, this.state);
    this.loop.enqueue({ type: 'start', now: this.now(), entropy: this.entropy() });
    await this.loop.settled();
  }

  /** Releases a held lease, removes its address, closes the socket. Safe to call twice. */
  async stop(): Promise<void> {
    if (this.loop.isStopped()) return this.loop.settled();
    await this.loop.stop({ type: 'stop', now: this.now(), entropy: this.entropy() });
    await this.transport?.close();
    this.transport = undefined;
    await this.deps.addressing.finish(this.iface).catch(() => undefined);
    this.deps.metrics.dhcpLeaseExpiry(undefined);
  }

  private async perform(action: ClientAction, before: ClientState): Promise<void> {
    try {
      await this.performUnchecked(action, before);
    } catch (error) {
      if (!(error instanceof LabelwiseError)) throw error;
      // The next renewal applies the lease again; the data plane does not depend on it.
      this.deps.logger.warn(
        { code: error.code, err: error.message, iface: this.iface },
        'dhcp v4 lease apply failed',
      );
    }
  }

  private async performUnchecked(action: ClientAction, before: ClientState): Promise<void> {
    switch (action.type) {
      case 'send':
        await this.send(action.packet, action.to);
        return;
      case 'configure':
        await this.deps.addressing.configure(this.iface, action.lease);
        this.logLease(action.lease, action.previous);
        this.deps.metrics.dhcpLeaseExpiry(action.lease.expiresAt);
        return;
      case 'unconfigure':
        await this.deps.addressing.unconfigure(this.iface, action.lease);
        this.deps.metrics.dhcpLeaseExpiry(undefined);
        return;
      case 'route':
        await this.setRoute(action.gateway);
        return;
      case 'acquired':
        this.deps.metrics.dhcpAcquired(action.outcome);
        if (action.outcome === 'error') this.logLost(action.reason ?? '', before);
        return;
      case 'restart':
        this.deps.metrics.dhcpRestart();
        return;
    }
  }

  private async send(packet: DhcpPacket, to: string): Promise<void> {
    try {
      await this.transport?.send(packet, to);
    } catch (error) {
      // A send that fails (no route yet, interface down) is a lost packet: the timers resend.
      this.deps.logger.debug({ err: (error as Error).message, to }, 'dhcp send failed');
    }
  }

  private async setRoute(gateway: string): Promise<void> {
    await this.deps.addressing.defaultRoute(this.iface, gateway);
    this.deps.logger.info(
      { family: 'v4', gw: gateway, iface: this.iface },
      'ext default route enforced',
    );
  }

  private logLease(lease: Lease, previous: Lease | undefined): void {
    const attrs = {
      iface: this.iface,
      ip: lease.address,
      server: lease.serverId,
      lease: `${lease.leaseSeconds}s`,
    };
    if (previous === undefined) this.deps.logger.info(attrs, 'dhcp v4 lease acquired');
    else this.deps.logger.debug(attrs, 'dhcp v4 lease renewed');
  }

  private logLost(reason: string, before: ClientState): void {
    const backoff = this.state.kind === 'backoff' ? this.state.waitMs : 0;
    this.deps.logger.warn(
      {
        family: 4,
        err: reason,
        backoff: goDuration(backoff),
        state: before.kind,
      },
      'dhcp client lost lease, retrying',
    );
  }
}
