/**
 * The `wrap-rebinder` mode's loop (anchord SPEC F-49, internal/wraprebinder Watcher.Run): build
 * the pool of wrap-anchors at start and recreate the drifted ones, then follow `container start`
 * events and a periodic recheck until stopped. The decisions are the pure functions of
 * wrap-target-pool.ts; this class owns ordering, the rapid-recreate window and the logs.
 *
 * Everything runs one step at a time, as anchord's single consume goroutine does: an event that
 * arrives while a recreate is under way waits for it, so two recreates of one anchor never race.
 * Log `msg` values and attributes are anchord's.
 */
import type { Logger } from 'pino';
import { durationText } from './rebinder-config.js';
import type { WrapRebinderConfig } from './rebinder-config.js';
import { buildTargetPool, driftedAnchors, onStart } from './wrap-target-pool.js';
import type { StartEvent, TargetPool, WrapContainer } from './wrap-target-pool.js';
import { RetryingStream } from './event-stream.js';
import { errorText } from '../../base/errors.js';

/** The Docker calls the rebinder makes; the real one is in io/wrap-rebinder-docker.ts. */
export interface WrapRebinderPort {
  /** Every container Docker knows, running or not. */
  list(): Promise<WrapContainer[]>;
  /** Removes `anchorId`, creates it again with `networkMode`, starts it; the new ID. */
  recreate(anchorId: string, networkMode: string, stopTimeoutMs: number): Promise<string>;
  /** Calls `onStart` per `container start` event until `stop()`; `onEnd` when the stream fails. */
  watchStarts(
    onStart: (event: StartEvent) => void,
    onEnd: (error: unknown) => void,
  ): Promise<{ stop(): void }>;
}

export interface WrapRebinderDeps {
  readonly docker: WrapRebinderPort;
  readonly logger: Logger;
  /** The rebinder's own container ID (its hostname in Docker), left out of the pool. */
  readonly selfId: string;
  /** Milliseconds; the rapid-recreate window reads it. Default `Date.now`. */
  readonly now?: () => number;
  /** Waits before the event stream is opened again (anchord: 2 s). */
  readonly retryDelayMs?: number;
}

/** Two recreates of one anchor for one owner within this window are one (anchord: 1 s). */
export const RAPID_RECREATE_WINDOW_MS = 1000;

export class WrapRebinder {
  private pool: TargetPool = new Map();
  private readonly lastRecreatedAt = new Map<string, number>();
  private queue: Promise<void> = Promise.resolve();
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly events: RetryingStream<StartEvent>;
  private stopped = false;
  private resolveDone!: (code: number) => void;
  /** Resolves with the exit code (0) once {@link stop} has run. */
  readonly done: Promise<number> = new Promise((resolve) => (this.resolveDone = resolve));

  constructor(
    private readonly config: WrapRebinderConfig,
    private readonly deps: WrapRebinderDeps,
  ) {
    this.events = new RetryingStream({
      open: (onEvent, onEnd) => deps.docker.watchStarts(onEvent, onEnd),
      onEvent: (event) => void this.enqueue(() => this.handleStart(event)),
      logger: deps.logger,
      failureMessage: 'wrap-rebinder event stream error, retrying',
      retryDelayMs: deps.retryDelayMs,
    });
  }

  /** The pool as the rebinder holds it now: owner name → wrap-anchor IDs. */
  targets(): TargetPool {
    return this.pool;
  }

  /** Logs the start line, enumerates and rechecks, then follows events and the poll timer. */
  async start(): Promise<void> {
    if (this.stopped) return;
    this.deps.logger.info(
      {
        project: this.config.selfProject,
        poll_interval: durationText(this.config.pollIntervalMs),
        restart_timeout: durationText(this.config.restartTimeoutMs),
      },
      'wrap-rebinder starting',
    );
    await this.enqueue(() => this.enumerateAndRecheck('startup'));
    if (this.stopped) return;
    this.pollTimer = setInterval(
      () => void this.enqueue(() => this.enumerateAndRecheck('poll')),
      this.config.pollIntervalMs,
    );
    await this.events.subscribe();
  }

  /** Stops the stream and the timer, lets a step under way finish, and resolves `done`. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.pollTimer);
    this.events.stop();
    await this.queue;
    this.resolveDone(0);
  }

  /** Resolves when every step queued so far has run. */
  settled(): Promise<void> {
    return this.queue;
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(() => (this.stopped ? undefined : step()));
    return this.queue;
  }

  /** A start event: recreate the anchors of a pooled owner, then re-enumerate for a sibling. */
  async handleStart(event: StartEvent): Promise<void> {
    const decision = onStart(this.pool, event, this.config.selfProject);
    if (decision.recreate.length > 0) {
      this.deps.logger.info(
        { target: event.containerName, anchors: decision.recreate.map((r) => r.anchorId) },
        'tracked target started, recreating affected wrap-anchors',
      );
      for (const r of decision.recreate)
        await this.recreateAnchor(r.anchorId, r.target, 'event/target-start');
    }
    if (decision.reenumerate) {
      this.deps.logger.debug(
        { sibling: event.containerName },
        'own-project sibling started; re-enumerating target pool',
      );
      await this.enumerate();
    }
  }

  /** The start-up and periodic step: rebuild the pool, then recreate what drifted. */
  async enumerateAndRecheck(source: string): Promise<void> {
    await this.enumerate();
    await this.recheck(source);
  }

  private async enumerate(): Promise<void> {
    let all: WrapContainer[];
    try {
      all = await this.deps.docker.list();
    } catch (error) {
      this.deps.logger.warn(
        { err: errorText(error) },
        'wrap-rebinder: container list failed during pool enumeration',
      );
      return;
    }
    const { pool, orphans } = buildTargetPool(all, this.config.selfProject, this.deps.selfId);
    this.pool = pool;
    for (const orphan of orphans) {
      this.deps.logger.warn(
        { anchor: orphan.anchorId, stored_ref: orphan.storedRef },
        'wrap-rebinder: anchor has stale netmode whose target ID no longer exists; manual recreate required',
      );
    }
    if (pool.size === 0) {
      this.deps.logger.info('wrap-rebinder: target pool is empty; nothing to track yet');
      return;
    }
    this.deps.logger.info({ targets: pool.size }, 'wrap-rebinder: target pool refreshed');
  }

  private async recheck(source: string): Promise<void> {
    if (this.pool.size === 0) return;
    const pool = this.pool;
    let all: WrapContainer[];
    try {
      all = await this.deps.docker.list();
    } catch (error) {
      this.deps.logger.warn(
        { err: errorText(error), source },
        'wrap-rebinder: bootstrap recheck list failed',
      );
      return;
    }
    for (const r of driftedAnchors(pool, all)) {
      const anchor = all.find((c) => c.id === r.anchorId);
      const owner = all.find((c) => c.names.some((n) => n.replace(/^\//, '') === r.target));
      this.deps.logger.info(
        {
          target: r.target,
          anchor: r.anchorId,
          stored_ref: anchor?.networkMode.slice('container:'.length).trim() ?? '',
          current_id: owner?.id ?? '',
          source,
        },
        'wrap-rebinder: drift detected, recreating wrap-anchor',
      );
      await this.recreateAnchor(r.anchorId, r.target, source);
    }
  }

  /**
   * Recreates one anchor against `container:<target>`, unless the same anchor was recreated for
   * the same owner within the rapid window (an owner in a crash loop). Failures are logged; the
   * next event or poll retries.
   */
  async recreateAnchor(anchorId: string, target: string, source: string): Promise<void> {
    const now = (this.deps.now ?? Date.now)();
    const key = `target:${target}|anchor:${anchorId}`;
    const last = this.lastRecreatedAt.get(key);
    if (last !== undefined && now - last < RAPID_RECREATE_WINDOW_MS) {
      this.deps.logger.warn(
        { anchor: anchorId, target, since_last: `${now - last}ms`, source },
        'wrap-rebinder: suppressing rapid recreate',
      );
      return;
    }
    // Every recreate mints a new anchor ID: forget keys past the window so the map stays small.
    for (const [k, at] of this.lastRecreatedAt)
      if (now - at >= RAPID_RECREATE_WINDOW_MS) this.lastRecreatedAt.delete(k);
    this.lastRecreatedAt.set(key, now);
    try {
      const newId = await this.deps.docker.recreate(
        anchorId,
        `container:${target}`,
        this.config.restartTimeoutMs,
      );
      this.deps.logger.info(
        { old_id: anchorId, new_id: newId, target, source },
        'wrap-rebinder: anchor recreated against live target',
      );
    } catch (error) {
      this.deps.logger.warn(
        { anchor: anchorId, target, source, err: errorText(error) },
        'wrap-rebinder: recreate failed',
      );
    }
  }
}
