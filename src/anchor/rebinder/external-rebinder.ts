/**
 * The `external-rebinder` mode (anchord SPEC F-48, internal/rebinder Watcher): keep one follower
 * container attached to a network *name* that another stack recreates, so that the follower never
 * holds a stale network ID.
 *
 * Two hazards shape it, both from anchord's incidents: a follower pinned to the network blocks
 * the other stack's `network rm` ("has active endpoints"), so the moment the follower is the only
 * endpoint left it is released ("parked"); and reattaching while the other stack is still
 * assigning static addresses collides with them, so a reattach after `create` waits until the
 * network's foreign endpoint count has held steady, and the connect retries on address-in-use.
 * Steps run one at a time; events that arrive during a settle wait are handled after it.
 */
import type { Logger } from 'pino';
import { durationText } from './rebinder-config.js';
import type { ExternalRebinderConfig } from './rebinder-config.js';
import {
  isAddressInUse,
  isAlreadyConnected,
  isAlreadyNotAttached,
  membershipOf,
  resolveFollower,
  shortId,
} from './follow-rules.js';
import type { FollowContainer, FollowNetwork, Membership } from './follow-rules.js';
import { RetryingStream } from './event-stream.js';
import { errorText } from '../../base/errors.js';

/** A Docker network event for any network; the rebinder keeps those of its network's name. */
export interface NetworkEvent {
  readonly action: string;
  readonly networkId: string;
  readonly name: string;
  /** `Actor.Attributes.container` on connect and disconnect. */
  readonly containerId: string;
}

export interface ExternalRebinderPort {
  inspectNetwork(name: string): Promise<FollowNetwork>;
  list(): Promise<FollowContainer[]>;
  /** The container's networks: name → the network ID recorded at attach time. */
  containerNetworks(id: string): Promise<Readonly<Record<string, string>>>;
  connect(networkId: string, containerId: string): Promise<void>;
  disconnect(networkName: string, containerId: string): Promise<void>;
  restart(containerId: string): Promise<void>;
  watchNetworks(
    onEvent: (event: NetworkEvent) => void,
    onEnd: (error: unknown) => void,
  ): Promise<{ stop(): void }>;
}

/** anchord's settle and retry constants; tests shorten them. */
export interface SettleTimings {
  readonly pollMs: number;
  readonly quietMs: number;
  readonly maxWaitMs: number;
  readonly connectAttempts: number;
}

export const DEFAULT_SETTLE: SettleTimings = {
  pollMs: 1000,
  quietMs: 3000,
  maxWaitMs: 90_000,
  connectAttempts: 4,
};

export interface ExternalRebinderDeps {
  readonly docker: ExternalRebinderPort;
  readonly logger: Logger;
  readonly settle?: SettleTimings;
  readonly retryDelayMs?: number;
}

type SettleOutcome = 'ready' | 'timed-out' | 'aborted' | 'cancelled';

export class ExternalRebinder {
  private parked = false;
  private queue: Promise<void> = Promise.resolve();
  private readonly events: RetryingStream<NetworkEvent>;
  private readonly sleepers = new Set<() => void>();
  private stopped = false;
  private readonly settle: SettleTimings;
  private resolveDone!: (code: number) => void;
  readonly done: Promise<number> = new Promise((resolve) => (this.resolveDone = resolve));

  constructor(
    private readonly config: ExternalRebinderConfig,
    private readonly deps: ExternalRebinderDeps,
  ) {
    this.settle = deps.settle ?? DEFAULT_SETTLE;
    this.events = new RetryingStream({
      open: (onEvent, onEnd) => deps.docker.watchNetworks(onEvent, onEnd),
      onEvent: (event) => void this.enqueue(() => this.handle(event)),
      logger: deps.logger,
      failureMessage: 'rebinder event stream error, retrying',
      retryDelayMs: deps.retryDelayMs,
    });
  }

  /** Whether the follower is released and waiting to be reattached. */
  isParked(): boolean {
    return this.parked;
  }

  settled(): Promise<void> {
    return this.queue;
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    this.deps.logger.info(
      {
        follow_network: this.config.followNetwork,
        follow_target: this.config.followTarget,
        restart: this.config.restart,
        event_backoff: durationText(this.config.eventBackoffMs),
        settle_quiet_window: durationText(this.settle.quietMs),
        settle_max_wait: durationText(this.settle.maxWaitMs),
      },
      'external-rebinder starting',
    );
    await this.enqueue(() => this.bootstrapRecheck());
    await this.events.subscribe();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.events.stop();
    for (const wake of this.sleepers) wake();
    await this.queue;
    this.resolveDone(0);
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(() => (this.stopped ? undefined : step()));
    return this.queue;
  }

  /** Waits `ms`, or less when stopped; resolves whether it slept out or not. */
  private sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }

  /** One network event of the followed name. */
  async handle(event: NetworkEvent): Promise<void> {
    if (event.name !== this.config.followNetwork) return;
    const log = this.deps.logger;
    if (event.action === 'create') {
      log.info(
        { network: event.name, network_id: event.networkId },
        'target network created; waiting for target stack to settle before reattach',
      );
      await this.settleAndReattach('event/create');
    } else if (event.action === 'destroy') {
      this.parked = true;
      log.info(
        { network: event.name },
        'target network destroyed; follower released, awaiting next create',
      );
    } else if (event.action === 'disconnect') {
      await this.maybePark(event);
    } else if (event.action === 'connect') {
      if (this.parked) {
        log.info(
          { network: event.name, container: shortId(event.containerId) },
          'connect on target network while parked; target may be returning, settling',
        );
        await this.settleAndReattach('event/connect-while-parked');
      } else {
        log.debug(
          { network: event.name, container: shortId(event.containerId) },
          'rebinder observed connect on target network',
        );
      }
    }
  }

  /** Start-up: a follower whose stored network ID is not the live one is reattached now. */
  async bootstrapRecheck(): Promise<void> {
    const { followNetwork: network, followTarget: target, selfProject } = this.config;
    const log = this.deps.logger;
    let live: FollowNetwork;
    try {
      live = await this.deps.docker.inspectNetwork(network);
    } catch (error) {
      log.warn(
        { network, err: errorText(error) },
        'bootstrap recheck: target network not inspectable; will wait for events',
      );
      return;
    }
    let all: FollowContainer[];
    try {
      all = await this.deps.docker.list();
    } catch (error) {
      log.warn(
        { err: errorText(error) },
        'bootstrap recheck: container list failed; will wait for events',
      );
      return;
    }
    const followerId = resolveFollower(all, target, selfProject);
    if (followerId === '') {
      log.warn(
        { target, self_project: selfProject },
        'bootstrap recheck: follower not found; will wait for events',
      );
      return;
    }
    let networks: Readonly<Record<string, string>>;
    try {
      networks = await this.deps.docker.containerNetworks(followerId);
    } catch (error) {
      log.warn(
        { target, err: errorText(error) },
        'bootstrap recheck: follower inspect failed; will wait for events',
      );
      return;
    }
    const storedId = Object.hasOwn(networks, network) ? networks[network] : undefined;
    if (storedId === live.id) {
      log.info(
        { target, network_id: live.id },
        'bootstrap recheck: follower already attached to current network ID',
      );
      return;
    }
    log.info(
      {
        target,
        network,
        stored_id: storedId ?? '',
        current_id: live.id,
        attached: storedId !== undefined,
      },
      'bootstrap recheck: divergence detected, reattaching',
    );
    await this.reattach('bootstrap');
  }

  private async membership(): Promise<Membership | undefined> {
    try {
      const network = await this.deps.docker.inspectNetwork(this.config.followNetwork);
      const all = await this.deps.docker.list();
      return membershipOf(network, all, this.config.followTarget, this.config.selfProject);
    } catch (error) {
      this.deps.logger.debug(
        { network: this.config.followNetwork, err: errorText(error) },
        'membership: network inspect failed',
      );
      return undefined;
    }
  }

  /** Release-before-recreate: the follower alone on the network lets go of it. */
  private async maybePark(event: NetworkEvent): Promise<void> {
    if (this.parked) return;
    const m = await this.membership();
    if (m === undefined) return;
    const network = this.config.followNetwork;
    if (!m.followerAttached) {
      this.parked = true;
      this.deps.logger.info(
        { network, trigger_container: shortId(event.containerId) },
        'park: follower no longer attached to target network; marking released',
      );
      return;
    }
    if (m.foreignCount > 0) {
      this.deps.logger.debug(
        { network, foreign_endpoints: m.foreignCount },
        'disconnect on target network; target still has endpoints, staying attached',
      );
      return;
    }
    const reason = 'sole-remaining-endpoint';
    try {
      await this.deps.docker.disconnect(network, m.followerId);
    } catch (error) {
      if (!isAlreadyNotAttached(error)) {
        this.deps.logger.warn(
          { network, follower: m.followerId, reason, err: errorText(error) },
          'park: disconnect of sole-remaining follower failed',
        );
        return;
      }
    }
    this.parked = true;
    this.deps.logger.info(
      { network, follower: m.followerId, reason },
      'park: released follower to unblock target network teardown',
    );
  }

  private async settleAndReattach(source: string): Promise<void> {
    const outcome = await this.waitForSettle();
    const log = this.deps.logger;
    if (outcome === 'cancelled') return;
    if (outcome === 'aborted') {
      log.info(
        { source },
        'settle aborted: target network not inspectable mid-settle; awaiting next event',
      );
      return;
    }
    if (outcome === 'timed-out') {
      log.warn(
        { source, max_wait: durationText(this.settle.maxWaitMs) },
        'settle timed out; reattaching anyway (connect-retry backstop covers residual collisions)',
      );
    } else {
      log.info({ source }, 'target stack settled; reattaching follower');
    }
    await this.reattach(source);
  }

  /**
   * Until the foreign endpoint count has been non-zero and unchanged for the quiet window, after
   * the event back-off floor. Time is counted in poll steps, not read from a clock, as anchord
   * does, so the outcome depends only on what the network showed at each probe.
   */
  private async waitForSettle(): Promise<SettleOutcome> {
    await this.sleep(this.config.eventBackoffMs);
    if (this.stopped) return 'cancelled';
    let last = -1;
    let stable = 0;
    let elapsed = 0;
    for (;;) {
      const m = await this.membership();
      if (m === undefined) return 'aborted';
      if (m.foreignCount > 0 && m.foreignCount === last) {
        stable += this.settle.pollMs;
        if (stable >= this.settle.quietMs) return 'ready';
      } else {
        if (m.foreignCount !== last) {
          this.deps.logger.debug(
            { network: this.config.followNetwork, from: last, to: m.foreignCount },
            'settle: target endpoint count changed',
          );
        }
        last = m.foreignCount;
        stable = 0;
      }
      if (elapsed >= this.settle.maxWaitMs) return 'timed-out';
      await this.sleep(this.settle.pollMs);
      if (this.stopped) return 'cancelled';
      elapsed += this.settle.pollMs;
    }
  }

  /** Disconnect (best effort) and connect the freshly resolved follower to the live network ID. */
  async reattach(source: string): Promise<void> {
    const { followNetwork: network, followTarget: target, selfProject } = this.config;
    const log = this.deps.logger;
    let live: FollowNetwork;
    let all: FollowContainer[];
    try {
      live = await this.deps.docker.inspectNetwork(network);
    } catch (error) {
      log.warn({ network, source, err: errorText(error) }, 'reattach: network inspect failed');
      return;
    }
    try {
      all = await this.deps.docker.list();
    } catch (error) {
      log.warn({ source, err: errorText(error) }, 'reattach: container list failed');
      return;
    }
    const followerId = resolveFollower(all, target, selfProject);
    if (followerId === '') {
      log.warn({ target, self_project: selfProject, source }, 'reattach: follower not found');
      return;
    }
    try {
      await this.deps.docker.disconnect(network, followerId);
    } catch (error) {
      if (!isAlreadyNotAttached(error))
        log.info(
          { network, follower: followerId, source, err: errorText(error) },
          'reattach: disconnect returned error (continuing)',
        );
    }
    const networkId = await this.connectWithRetry(live.id, followerId, source);
    if (networkId === undefined) return;
    this.parked = false;
    log.info(
      { network, network_id: networkId, follower: followerId, source },
      'reattach: follower connected to current network ID',
    );
    if (!this.config.restart) return;
    try {
      await this.deps.docker.restart(followerId);
      log.info({ follower: followerId, source }, 'reattach: follower restarted');
    } catch (error) {
      log.warn(
        { follower: followerId, source, err: errorText(error) },
        'reattach: follower restart failed',
      );
    }
  }

  /** The network ID connected to, or undefined after a terminal failure (logged). */
  private async connectWithRetry(
    firstId: string,
    followerId: string,
    source: string,
  ): Promise<string | undefined> {
    const network = this.config.followNetwork;
    let networkId = firstId;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.deps.docker.connect(networkId, followerId);
        return networkId;
      } catch (error) {
        if (isAlreadyConnected(error)) return networkId;
        if (!isAddressInUse(error) || attempt >= this.settle.connectAttempts) {
          this.deps.logger.warn(
            { network, network_id: networkId, follower: followerId, source, err: errorText(error) },
            'reattach: connect failed',
          );
          return undefined;
        }
        this.deps.logger.warn(
          {
            network,
            network_id: networkId,
            follower: followerId,
            source,
            attempt,
            of: this.settle.connectAttempts,
            backoff: durationText(this.config.eventBackoffMs),
          },
          'reattach: connect hit address-in-use; target still assigning IPs, retrying after backoff',
        );
        await this.sleep(this.config.eventBackoffMs);
        if (this.stopped) return undefined;
        // The other stack may have recreated the network again meanwhile: take the newest ID.
        networkId = await this.deps.docker.inspectNetwork(network).then(
          (n) => n.id,
          () => networkId,
        );
      }
    }
  }
}
