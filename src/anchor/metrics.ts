/**
 * The anchor's Prometheus metrics (prom-client), on a registry of its own so several daemons
 * (tests, benchmarks) can live in one process. Label values are fixed enumerations: never a
 * container name, an address or a port.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Family, Proto } from './model.js';

/** What triggered a reconcile, for `anchord_docker_events_total{source}`. */
export type TriggerSource = 'start' | 'event' | 'poll' | 'retry' | 'reconnect';

export class AnchorMetrics {
  readonly registry = new Registry();
  readonly reconcileTotal = new Counter({
    name: 'anchord_reconcile_total',
    help: 'Reconciles by result (ok, noop, error).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly reconcileDuration = new Histogram({
    name: 'anchord_reconcile_duration_seconds',
    help: 'Time from snapshot to applied rules.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly dnatEntries = new Gauge({
    name: 'anchord_dnat_entries',
    help: 'DNAT map elements installed, by family and protocol.',
    labelNames: ['family', 'proto'] as const,
    registers: [this.registry],
  });
  readonly conntrackFlushes = new Counter({
    name: 'anchord_conntrack_flushes_total',
    help: 'conntrack -D calls for changed or removed backends, by family.',
    labelNames: ['family'] as const,
    registers: [this.registry],
  });
  readonly dockerEvents = new Counter({
    name: 'anchord_docker_events_total',
    help: 'Reconcile triggers by source (event: Docker event stream; poll: safety-net timer; start; retry; reconnect).',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });
  readonly backendConflicts = new Counter({
    name: 'anchord_backend_conflicts_total',
    help: 'Newly seen conflicts: two backends claiming one family/protocol/outside port.',
    registers: [this.registry],
  });
  readonly residentMemory = new Gauge({
    name: 'anchord_process_resident_memory_bytes',
    help: 'Resident set size of the anchor process.',
    registers: [this.registry],
    collect() {
      this.set(process.memoryUsage.rss());
    },
  });

  constructor() {
    for (const family of ['ipv4', 'ipv6'] as const) {
      this.conntrackFlushes.inc({ family }, 0);
      for (const proto of ['tcp', 'udp'] as const) this.dnatEntries.set({ family, proto }, 0);
    }
    for (const result of ['ok', 'noop', 'error'] as const) this.reconcileTotal.inc({ result }, 0);
    this.backendConflicts.inc(0);
  }

  /** Sets the entry gauges from the applied entries. */
  setEntries(counts: ReadonlyMap<`${Family}/${Proto}`, number>): void {
    for (const family of ['ipv4', 'ipv6'] as const) {
      for (const proto of ['tcp', 'udp'] as const)
        this.dnatEntries.set({ family, proto }, counts.get(`${family}/${proto}`) ?? 0);
    }
  }
}
