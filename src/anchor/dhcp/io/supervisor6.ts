/**
 * Runs the DHCPv6 client (client6.ts) on the outside interface: socket messages and timer
 * expiries in, actions out, one at a time. Log lines are anchord's: `dhcp v6 lease acquired`
 * (iface, addrs), `dhcp client lost lease, retrying` (family 6, err, backoff).
 */
import type { Logger } from 'pino';
import { LabelwiseError } from '../../../base/errors.js';
import { INITIAL_STATE6, nextWakeup6, step6 } from '../client6.js';
import type { Client6Action, Client6Event, Client6Settings, Client6State } from '../client6.js';
import type { AddressingPort } from './addressing.js';
import type { Dhcp6Transport, Transport6Handlers } from './socket6.js';
import type { DhcpMetricsPort } from './supervisor.js';
import { goDuration } from './supervisor.js';

export interface Supervisor6Deps {
  readonly open: (handlers: Transport6Handlers) => Promise<Dhcp6Transport>;
  readonly addressing: AddressingPort;
  readonly logger: Logger;
  readonly metrics: DhcpMetricsPort;
  readonly now?: () => number;
  readonly entropy?: () => number;
}

export class Dhcp6Supervisor {
  private state: Client6State = INITIAL_STATE6;
  private transport: Dhcp6Transport | undefined;
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly iface: string,
    private readonly settings: Client6Settings,
    private readonly deps: Supervisor6Deps,
  ) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  private entropy(): number {
    return (this.deps.entropy ?? (() => Math.floor(Math.random() * 2 ** 24)))();
  }

  current(): Client6State {
    return this.state;
  }

  async start(): Promise<void> {
    this.transport = await this.deps.open({
      onPacket: (packet) =>
        this.enqueue({ type: 'packet', now: this.now(), entropy: this.entropy(), packet }),
      onGarbage: (reason) => this.deps.logger.debug({ reason }, 'dhcp v6 message dropped'),
    });
    this.enqueue({ type: 'start', now: this.now(), entropy: this.entropy() });
    await this.queue;
  }

  async stop(): Promise<void> {
    if (this.stopped) return this.queue;
    this.stopped = true;
    clearTimeout(this.timer);
    this.enqueue({ type: 'stop', now: this.now(), entropy: 0 }, true);
    await this.queue;
    await this.transport?.close();
    this.transport = undefined;
    this.deps.metrics.dhcpLeaseExpiry(undefined);
  }

  private enqueue(event: Client6Event, evenIfStopped = false): void {
    this.queue = this.queue.then(async () => {
      if (this.stopped && !evenIfStopped) return;
      const before = this.state;
      const result = step6(this.state, event, this.settings);
      this.state = result.state;
      if (before.kind !== result.state.kind)
        this.deps.logger.debug(
          { family: 6, from: before.kind, to: result.state.kind },
          'dhcp client state',
        );
      for (const action of result.actions) await this.perform(action);
      this.schedule();
    });
  }

  private schedule(): void {
    clearTimeout(this.timer);
    const at = nextWakeup6(this.state);
    if (at === undefined || this.stopped) return;
    const delay = Math.min(Math.max(0, at - this.now()), 2 ** 31 - 1);
    this.timer = setTimeout(
      () => this.enqueue({ type: 'timer', now: this.now(), entropy: this.entropy() }),
      delay,
    );
    this.timer.unref?.();
  }

  private async perform(action: Client6Action): Promise<void> {
    try {
      await this.performUnchecked(action);
    } catch (error) {
      if (!(error instanceof LabelwiseError)) throw error;
      this.deps.logger.warn(
        { code: error.code, err: error.message, iface: this.iface },
        'dhcp v6 lease apply failed',
      );
    }
  }

  private async performUnchecked(action: Client6Action): Promise<void> {
    switch (action.type) {
      case 'send':
        // A lost send is a lost packet: the timers resend.
        await this.transport
          ?.send(action.packet)
          .catch((error: Error) =>
            this.deps.logger.debug({ err: error.message }, 'dhcp v6 send failed'),
          );
        return;
      case 'configure':
        await this.deps.addressing.configure6(
          this.iface,
          action.lease.addresses,
          action.lease.validSeconds,
        );
        this.deps.metrics.dhcpLeaseExpiry(action.lease.expiresAt);
        if (action.previous === undefined)
          this.deps.logger.info(
            { iface: this.iface, addrs: action.lease.addresses.join(',') },
            'dhcp v6 lease acquired',
          );
        else
          this.deps.logger.debug(
            { iface: this.iface, addrs: action.lease.addresses.join(',') },
            'dhcp v6 lease renewed',
          );
        return;
      case 'unconfigure':
        await this.deps.addressing.unconfigure6(this.iface, action.lease.addresses);
        this.deps.metrics.dhcpLeaseExpiry(undefined);
        return;
      case 'acquired':
        this.deps.metrics.dhcpAcquired(action.outcome);
        if (action.outcome === 'error') {
          const backoff = this.state.kind === 'backoff' ? this.state.waitMs : 0;
          this.deps.logger.warn(
            { family: 6, err: action.reason ?? '', backoff: goDuration(backoff) },
            'dhcp client lost lease, retrying',
          );
        }
        return;
      case 'restart':
        this.deps.metrics.dhcpRestart();
        return;
    }
  }
}
