/**
 * The network-anchor daemon: the state around the pure core. It serializes reconciles (one in
 * flight, at most one queued, so bursts of Docker events coalesce), keeps the last applied
 * rules when Docker fails (fail static), reconnects the event stream with backoff, and applies
 * a new nft script only when the rendered state changed.
 *
 * Log `msg` values are an interface (operators grep them): `reconciled`, `invalid expose
 * labels`, `no usable IP for container`, `shared network re-picked`, `backend port conflict`,
 * `docker unavailable; keeping last applied rules`, `docker event stream lost`, `nft apply
 * failed`, `conntrack flush failed`, `nft fib expression unavailable; …`, `fatal`. Errors go in
 * the `err` attribute and families are `v4`/`v6`, as anchord writes them.
 */
import type { Logger } from 'pino';
import { errorText, LabelwiseError, quote } from '../base/errors.js';
import type { DiscoveryPort } from './io/docker-discovery.js';
import type { KernelPort } from './io/nft.js';
import type { AnchorConfig } from './config.js';
import { conntrackFlushes } from './conntrack-plan.js';
import { metricFamily } from './metrics.js';
import type { AnchorMetrics, TriggerSource } from './metrics.js';
import type { ContainerInfo, DnatEntry, Family, Notice, Proto, Snapshot } from './model.js';
import { renderDeleteScript, renderNftScript } from './nft-script.js';
import { plan } from './plan.js';

export interface DaemonDeps {
  readonly discovery: DiscoveryPort;
  readonly kernel: KernelPort;
  /** MAC → interface name of this network namespace. */
  readonly interfaces: () => Promise<ReadonlyMap<string, string>>;
  readonly logger: Logger;
  readonly metrics: AnchorMetrics;
  /** Backoff bounds for Docker retries and event-stream reconnects. Default: 500 ms to 30 s. */
  readonly backoff?: { readonly minMs: number; readonly maxMs: number };
  /** Told the outside interface on every reconcile that finds it (dhcp-refresh starts on it). */
  readonly onOutside?: (iface: string) => void;
}

/** What one reconcile did. */
export interface ReconcileOutcome {
  readonly result: 'ok' | 'noop' | 'error' | 'fatal';
  readonly backends: number;
  readonly entries: number;
  readonly conntrackFlushed: number;
  readonly applied: boolean;
}

const FATAL_CODES = new Set([
  'ANCHOR_SELF_NOT_FOUND',
  'ANCHOR_NO_SHARED_NETWORK',
  'ANCHOR_SHARED_NETWORK_NOT_ATTACHED',
  'ANCHOR_EXT_NETWORK_NOT_ATTACHED',
  'ANCHOR_EXT_IFACE_NOT_FOUND',
  'ANCHOR_TOOL_MISSING',
]);

function noticeKey(notice: Notice): string {
  return `${notice.level}|${notice.msg}|${JSON.stringify(notice.attrs)}`;
}

export class AnchorDaemon {
  private selfId: string | undefined;
  private lastScript: string | undefined;
  private lastEntries: readonly DnatEntry[] = [];
  private lockedShared: string | undefined;
  private previousShared: string | undefined;
  private previousNotices = new Set<string>();
  private previousConflicts = new Set<string>();
  private tablesInstalled = false;
  private fibFamilies: readonly Family[] | undefined;
  private reconciled = false;
  private stopped = false;
  private running: Promise<void> | undefined;
  private queued = false;
  /** Containers whose `start` event arrived since the last reconcile began. */
  private readonly startedIds = new Set<string>();
  /** The last full snapshot: a start event's reconcile plans it plus the started container. */
  private lastSnapshot: Snapshot | undefined;
  private lastOutcome: ReconcileOutcome | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private retryDelay: number;
  private reconnectDelay: number;
  private events: { stop(): void } | undefined;
  private resolveDone!: (code: number) => void;
  /** Resolves with the exit code: 0 after {@link stop}, 1 after a fatal error. */
  readonly done: Promise<number> = new Promise((resolve) => (this.resolveDone = resolve));

  constructor(
    private readonly config: AnchorConfig,
    private readonly deps: DaemonDeps,
  ) {
    this.retryDelay = this.backoff.minMs;
    this.reconnectDelay = this.backoff.minMs;
  }

  private get backoff(): { minMs: number; maxMs: number } {
    return this.deps.backoff ?? { minMs: 500, maxMs: 30_000 };
  }

  /** Readiness for `/readyz`: tables installed and one reconcile succeeded. */
  readiness(): { tablesInstalled: boolean; reconciled: boolean } {
    return { tablesInstalled: this.tablesInstalled, reconciled: this.reconciled };
  }

  /** The entries last written to the kernel. */
  appliedEntries(): readonly DnatEntry[] {
    return this.lastEntries;
  }

  /** Starts the poll timer and the event stream, and runs the first reconcile. */
  async start(): Promise<void> {
    if (this.stopped) return;
    this.pollTimer = setInterval(() => this.trigger('poll'), this.config.pollIntervalMs);
    void this.connectEvents(false);
    await this.reconcileNow('start');
  }

  /**
   * Asks for a reconcile. If one is running, at most one more is queued (bursts coalesce).
   * Never throws.
   */
  trigger(source: TriggerSource): void {
    if (this.stopped) return;
    this.deps.metrics.dockerEvents.inc({ source });
    if (this.running !== undefined) {
      this.queued = true;
      return;
    }
    this.running = this.loop().finally(() => (this.running = undefined));
  }

  /** Triggers a reconcile and waits until no reconcile is running or queued. */
  async reconcileNow(source: TriggerSource = 'start'): Promise<ReconcileOutcome | undefined> {
    this.trigger(source);
    while (this.running !== undefined) await this.running;
    return this.lastOutcome;
  }

  private async loop(): Promise<void> {
    do {
      this.queued = false;
      this.lastOutcome = await this.reconcileOnce();
    } while (this.queued && !this.stopped);
  }

  private async connectEvents(isReconnect: boolean): Promise<void> {
    if (this.stopped) return;
    try {
      const events = await this.deps.discovery.watch(
        this.config.scope,
        (event) => {
          if (event?.action === 'start') this.startedIds.add(event.id);
          this.trigger('event');
        },
        (error) => {
          this.events = undefined;
          if (this.stopped) return;
          this.deps.logger.warn(
            { err: errorText(error), retry_ms: this.reconnectDelay },
            'docker event stream lost',
          );
          this.scheduleReconnect();
        },
      );
      if (this.stopped) {
        events.stop();
        return;
      }
      this.events = events;
      this.reconnectDelay = this.backoff.minMs;
      // Events may have been missed while the stream was down.
      if (isReconnect) this.trigger('reconnect');
    } catch (error) {
      if (this.stopped) return;
      this.deps.logger.warn(
        { err: errorText(error), retry_ms: this.reconnectDelay },
        'docker event stream lost',
      );
      this.scheduleReconnect();
    }
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer !== undefined) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, this.backoff.maxMs);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connectEvents(true);
    }, delay);
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer !== undefined) return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(this.retryDelay * 2, this.backoff.maxMs);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.trigger('retry');
    }, delay);
  }

  private failed(result: 'error' | 'fatal'): ReconcileOutcome {
    this.deps.metrics.reconcileTotal.inc({ result: 'error' });
    return { result, backends: 0, entries: 0, conntrackFlushed: 0, applied: false };
  }

  /** One reconcile: observe, plan, apply when changed, report. */
  private async reconcileOnce(): Promise<ReconcileOutcome> {
    const started = process.hrtime.bigint();
    const startedIds = [...this.startedIds];
    this.startedIds.clear();
    const fast = startedIds.length > 0 ? await this.observeStarted(startedIds) : undefined;
    // The fast path saw only the started containers: the full list follows, to confirm it.
    if (fast !== undefined) this.queued = true;
    const observed = fast ?? (await this.observe());
    if ('result' in observed) return observed;
    const planned = this.planFor(observed.snapshot, observed.macs);
    if ('result' in planned) return planned;
    let fibFamilies: readonly Family[];
    try {
      fibFamilies = await this.probeFib();
    } catch (error) {
      this.fatal(error); // nft itself is missing: nothing can ever be applied
      return this.failed('fatal');
    }
    const script = renderNftScript(planned.plan.entries, {
      extIface: planned.extIface,
      fibFamilies,
      masqueradeInbound: this.config.masqueradeInbound,
    });
    // An identical script means no nft call at all.
    const changed = script !== this.lastScript;
    const change = changed ? await this.apply(script, planned.plan) : { flushed: 0 };
    if ('result' in change) return change;
    return this.finish(planned.plan, changed, change.flushed, started);
  }

  /** The interfaces and the Docker snapshot; Docker errors keep the last rules and retry. */
  private async observe(): Promise<
    { snapshot: Snapshot; macs: ReadonlyMap<string, string> } | ReconcileOutcome
  > {
    try {
      const macs = await this.deps.interfaces();
      if (this.selfId === undefined)
        this.selfId = (await this.deps.discovery.findSelf(new Set(macs.keys()))).id;
      const snapshot = await this.deps.discovery.snapshot(this.selfId, this.config.scope);
      this.lastSnapshot = snapshot;
      return { snapshot, macs };
    } catch (error) {
      if (error instanceof LabelwiseError && !FATAL_CODES.has(error.code)) {
        this.deps.logger.warn(
          { err: error.message, retry_ms: this.retryDelay },
          'docker unavailable; keeping last applied rules',
        );
        this.scheduleRetry();
        return this.failed('error');
      }
      this.fatal(error);
      return this.failed('fatal');
    }
  }

  /**
   * The last snapshot with the containers just started read by one inspect each, or undefined
   * to take the full path: no snapshot yet, an adapter without the inspect, a container that
   * shares another's namespace (its peer would need reading too), or any Docker error (the full
   * path reports it).
   */
  private async observeStarted(
    ids: readonly string[],
  ): Promise<{ snapshot: Snapshot; macs: ReadonlyMap<string, string> } | undefined> {
    const last = this.lastSnapshot;
    const inspect = this.deps.discovery.inspectContainer?.bind(this.deps.discovery);
    if (last === undefined || inspect === undefined) return undefined;
    try {
      const [macs, ...found] = await Promise.all([
        this.deps.interfaces(),
        ...ids.map((id) => inspect(id)),
      ]);
      const started = found as (ContainerInfo | undefined)[];
      if (started.some((c) => c === undefined || c.networkContainer !== undefined))
        return undefined;
      const fresh = new Set(started.map((c) => (c as ContainerInfo).id));
      const containers = [
        ...last.containers.filter((c) => !fresh.has(c.id)),
        ...(started as ContainerInfo[]),
      ];
      return { snapshot: { ...last, containers }, macs: macs as ReadonlyMap<string, string> };
    } catch {
      return undefined;
    }
  }

  /** The plan for a snapshot, its notices logged and its conflicts counted. */
  private planFor(
    snapshot: Snapshot,
    macs: ReadonlyMap<string, string>,
  ): { plan: ReturnType<typeof plan>; extIface: string } | ReconcileOutcome {
    let extIface: string;
    let planned: ReturnType<typeof plan>;
    try {
      const outside = this.outside(snapshot, macs);
      extIface = outside.extIface;
      this.deps.onOutside?.(extIface);
      planned = plan(snapshot, {
        scope: this.config.scope,
        excludeNetworks: outside.exclude,
        pinnedSharedNetwork: this.config.sharedNetwork,
        lockedSharedNetwork: this.lockedShared,
        previousSharedNetwork: this.previousShared,
      });
    } catch (error) {
      this.fatal(error);
      return this.failed('fatal');
    }
    this.logNotices(planned.notices);
    this.countConflicts(
      planned.conflicts.flatMap((c) =>
        c.losers.map((l) => `${c.family}/${c.proto}/${c.port}/${c.winner}/${l}`),
      ),
    );
    return { plan: planned, extIface };
  }

  /** Applies a changed script in one transaction, then cuts connections to moved backends. */
  private async apply(
    script: string,
    planned: ReturnType<typeof plan>,
  ): Promise<{ applied: true; flushed: number } | ReconcileOutcome> {
    try {
      await this.deps.kernel.apply(script);
    } catch (error) {
      if (error instanceof LabelwiseError && error.code === 'ANCHOR_TOOL_MISSING') {
        this.fatal(error);
        return this.failed('fatal');
      }
      this.deps.logger.error({ err: errorText(error) }, 'nft apply failed');
      this.scheduleRetry();
      return this.failed('error');
    }
    this.tablesInstalled = true;
    const flushes =
      this.lastScript === undefined ? [] : conntrackFlushes(this.lastEntries, planned.entries);
    this.lastScript = script;
    this.lastEntries = planned.entries;
    let flushed = 0;
    for (const flush of flushes) {
      try {
        flushed += await this.deps.kernel.flush(flush);
        this.deps.metrics.conntrackFlushes.inc({ family: metricFamily(flush.family) });
      } catch (error) {
        this.deps.logger.warn(
          { err: errorText(error), family: metricFamily(flush.family) },
          'conntrack flush failed',
        );
      }
    }
    this.deps.metrics.setEntries(countEntries(planned.entries));
    return { applied: true, flushed };
  }

  /** Records a successful reconcile: state, metrics and the `reconciled` line. */
  private finish(
    planned: ReturnType<typeof plan>,
    applied: boolean,
    flushed: number,
    started: bigint,
  ): ReconcileOutcome {
    if (planned.lockShared) this.lockedShared = planned.sharedNetwork;
    this.previousShared = planned.sharedNetwork;
    this.retryDelay = this.backoff.minMs;
    this.reconciled = true;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    this.deps.metrics.reconcileDuration.observe(seconds);
    // anchord counts every successful reconcile as ok, whether or not the maps changed.
    this.deps.metrics.reconcileTotal.inc({ result: 'ok' });
    const outcome: ReconcileOutcome = {
      result: applied ? 'ok' : 'noop',
      backends: planned.backends.length,
      entries: planned.entries.length,
      conntrackFlushed: flushed,
      applied,
    };
    this.deps.logger.info(
      {
        backends: outcome.backends,
        entries: outcome.entries,
        conntrack_flushed: flushed,
        applied,
        shared_network: planned.sharedNetwork,
        duration_ms: Math.round(seconds * 1e6) / 1e3,
      },
      'reconciled',
    );
    return outcome;
  }

  /**
   * Which families' kernels have the `fib` expression, asked once. A kernel without the IPv6 one
   * (WSL2, some distributions) would make nft refuse the whole transaction, IPv4 included; such
   * a family gets anchord's rule instead (DNAT what arrives on the outside interface), so it only
   * loses hairpin access from the bridge.
   */
  private async probeFib(): Promise<readonly Family[]> {
    if (this.fibFamilies !== undefined) return this.fibFamilies;
    const probe = this.deps.kernel.probeFib?.bind(this.deps.kernel);
    const supported: Family[] = [];
    for (const family of ['ipv4', 'ipv6'] as const) {
      if (probe === undefined || (await probe(family))) {
        supported.push(family);
        continue;
      }
      this.deps.logger.warn(
        { family: metricFamily(family) },
        'nft fib expression unavailable; DNAT limited to traffic arriving on the outside interface',
      );
    }
    this.fibFamilies = supported;
    return supported;
  }

  /** The outside interface and the networks that must never be the shared one. */
  private outside(
    snapshot: Snapshot,
    macs: ReadonlyMap<string, string>,
  ): { extIface: string; exclude: string[] } {
    const extNetwork = this.config.extNetwork;
    if (extNetwork !== undefined) {
      const attachment = snapshot.self.networks.find((n) => n.name === extNetwork);
      if (attachment === undefined) {
        throw new LabelwiseError(
          'ANCHOR_EXT_NETWORK_NOT_ATTACHED',
          `the anchor is not attached to the outside network ${quote(extNetwork)}`,
          { source: { env: 'ANCHORD_EXT_NETWORK' } },
        );
      }
      const iface = attachment.mac === undefined ? undefined : macs.get(attachment.mac);
      if (iface === undefined || !/^[A-Za-z0-9_.-]{1,15}$/.test(iface)) {
        throw new LabelwiseError(
          'ANCHOR_EXT_IFACE_NOT_FOUND',
          `no local interface has the MAC address ${quote(attachment.mac ?? '')} Docker reports for ${quote(extNetwork)}`,
          { source: { env: 'ANCHORD_EXT_NETWORK' } },
        );
      }
      return { extIface: iface, exclude: [extNetwork] };
    }
    const iface = this.config.extIface;
    const exclude = snapshot.self.networks
      .filter((n) => n.mac !== undefined && macs.get(n.mac) === iface)
      .map((n) => n.name);
    return { extIface: iface, exclude };
  }

  private logNotices(notices: readonly Notice[]): void {
    // A warning repeats every poll while its cause lasts; log it when it first appears.
    const current = new Set<string>();
    for (const notice of notices) {
      const key = noticeKey(notice);
      current.add(key);
      if (this.previousNotices.has(key)) continue;
      this.deps.logger[notice.level]({ ...notice.attrs }, notice.msg);
    }
    this.previousNotices = current;
  }

  private countConflicts(keys: readonly string[]): void {
    const current = new Set(keys);
    for (const key of current)
      if (!this.previousConflicts.has(key)) this.deps.metrics.backendConflicts.inc();
    this.previousConflicts = current;
  }

  private fatal(error: unknown): void {
    if (this.stopped) return;
    const attrs =
      error instanceof LabelwiseError
        ? {
            code: error.code,
            err: error.message,
            ...(error.hint !== undefined ? { hint: error.hint } : {}),
            ...error.source,
          }
        : { err: errorText(error), stack: error instanceof Error ? error.stack : undefined };
    this.deps.logger.fatal(attrs, 'fatal');
    this.halt();
    this.resolveDone(1);
  }

  private halt(): void {
    this.stopped = true;
    clearInterval(this.pollTimer);
    clearTimeout(this.retryTimer);
    clearTimeout(this.reconnectTimer);
    this.events?.stop();
    this.events = undefined;
  }

  /**
   * Stops watching, waits for a running reconcile, and removes both tables. Resolves `done`
   * with 0. Safe to call twice.
   */
  async stop(): Promise<void> {
    const wasStopped = this.stopped;
    this.halt();
    while (this.running !== undefined) await this.running;
    if (!wasStopped || this.tablesInstalled) {
      try {
        await this.deps.kernel.apply(renderDeleteScript());
        this.tablesInstalled = false;
        this.lastScript = undefined;
      } catch (error) {
        this.deps.logger.error({ err: errorText(error) }, 'nft apply failed');
      }
    }
    this.resolveDone(0);
  }
}

function countEntries(entries: readonly DnatEntry[]): Map<`${Family}/${Proto}`, number> {
  const counts = new Map<`${Family}/${Proto}`, number>();
  for (const entry of entries) {
    const key = `${entry.family}/${entry.proto}` as const;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
