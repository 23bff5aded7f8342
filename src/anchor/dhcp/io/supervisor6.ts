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
import { StepLoop } from './step-loop.js';

export interface Supervisor6Deps {
  readonly open: (handlers: Transport6Handlers) => Promise<Dhcp6Transport>;
  readonly addressing: AddressingPort;
  readonly logger: Logger;
  readonly metrics: DhcpMetricsPort;
  readonly now?: () => number;
  readonly entropy?: () => number;
}

export class Dhcp6Supervisor {
  private readonly loop: StepLoop<Client6State, Client6Event, Client6Action>;
  private transport: Dhcp6Transport | undefined;

  constructor(
    private readonly iface: string,
    settings: Client6Settings,
    private readonly deps: Supervisor6Deps,
  ) {
    this.loop = new StepLoop<Client6State, Client6Event, Client6Action>(INITIAL_STATE6, {
      step: (state, event) => step6(state, event, settings),
      nextWakeup: nextWakeup6,
      perform: (action) => this.perform(action),
      transition: (before, after) =>
        this.deps.logger.debug(
          { family: 6, from: before.kind, to: after.kind },
          'dhcp client state',
        ),
      timerEvent: () => ({ type: 'timer', now: this.now(), entropy: this.entropy() }),
      now: () => this.now(),
    });
  }

  private get state(): Client6State {
    return this.loop.current();
  }

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
        this.loop.enqueue({ type: 'packet', now: this.now(), entropy: this.entropy(), packet }),
      onGarbage: (reason) => this.deps.logger.debug({ reason }, 'dhcp v6 message dropped'),
    });
    this.loop.enqueue({ type: 'start', now: this.now(), entropy: this.entropy() });
    await this.loop.settled();
  }

  async stop(): Promise<void> {
    if (this.loop.isStopped()) return this.loop.settled();
    await this.loop.stop({ type: 'stop', now: this.now(), entropy: 0 });
    await this.transport?.close();
    this.transport = undefined;
    this.deps.metrics.dhcpLeaseExpiry(undefined);
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
