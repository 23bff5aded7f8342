/**
 * The anchor's Prometheus metrics (prom-client), on a registry of its own so several daemons
 * (tests, benchmarks) can live in one process. Names, label names and label values are
 * anchord's (internal/metrics): dashboards and alerts written for anchord keep working. Label
 * values are fixed enumerations: never a container name, an address or a port.
 *
 * Every series with bounded labels exists from the start with value 0, as anchord's warm-up
 * does: an alert on `rate(anchord_reconcile_total{result="error"}[5m])` needs a baseline, and a
 * counter that was never touched is missing from the scrape. Both modes register every family
 * (anchord keeps one registry for both), so one dashboard serves network and service anchors.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Family, Proto } from './model.js';

/** What triggered a reconcile, for `anchord_docker_events_total{source}`. */
export type TriggerSource = 'start' | 'event' | 'poll' | 'retry' | 'reconnect';

/** anchord's family label values. */
export type MetricFamily = 'v4' | 'v6';

/** The version reported by `anchord_build_info`. */
export const BUILD_VERSION = '0.1.0';

/** Our family names (also `conntrack -f` values) to anchord's label values. */
export function metricFamily(family: Family): MetricFamily {
  return family === 'ipv4' ? 'v4' : 'v6';
}

const FAMILIES: readonly MetricFamily[] = ['v4', 'v6'];
const SOURCES: readonly TriggerSource[] = ['event', 'poll', 'start', 'retry', 'reconnect'];

export interface BuildInfo {
  readonly version: string;
  /** Short commit id, or `unknown` (anchord's value when the build carries none). */
  readonly commit: string;
}

export class AnchorMetrics {
  readonly registry = new Registry();
  readonly reconcileTotal = new Counter({
    name: 'anchord_reconcile_total',
    help: 'Total reconciles, partitioned by outcome (ok, error).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly reconcileDuration = new Histogram({
    name: 'anchord_reconcile_duration_seconds',
    help: 'Time from reconcile start to nftables maps written.',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly dnatEntries = new Gauge({
    name: 'anchord_dnat_entries',
    help: 'Current size of each DNAT map.',
    labelNames: ['family', 'proto'] as const,
    registers: [this.registry],
  });
  readonly conntrackFlushes = new Counter({
    name: 'anchord_conntrack_flushes_total',
    help: 'Conntrack flushes triggered by backend IP changes.',
    labelNames: ['family'] as const,
    registers: [this.registry],
  });
  readonly dockerEvents = new Counter({
    name: 'anchord_docker_events_total',
    help: 'Discovery snapshots, partitioned by trigger source (event, poll; also start, retry, reconnect).',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });
  readonly backendConflicts = new Counter({
    name: 'anchord_backend_conflicts_total',
    help: 'Newly seen conflicts: two backends claiming one family/protocol/outside port.',
    registers: [this.registry],
  });
  readonly gatewayResolve = new Counter({
    name: 'anchord_gateway_resolve_total',
    help: 'Gateway-hostname DNS lookups, partitioned by outcome.',
    labelNames: ['family', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly gatewayRouteReplaces = new Counter({
    name: 'anchord_gateway_route_replaces_total',
    help: 'Default-route replacements driven by a changed gateway address.',
    labelNames: ['family'] as const,
    registers: [this.registry],
  });
  readonly defaultRoutePresent = new Gauge({
    name: 'anchord_default_route_present',
    help: '1 if the service-anchor currently has a default route installed for this family, else 0.',
    labelNames: ['family'] as const,
    registers: [this.registry],
  });
  // ---- anchord_dhcp_* (ANCHORD_ADDRESS_MODE=dhcp-refresh; src/anchor/dhcp) ----
  /** When each family's lease ends (ms since the epoch); absent while no lease is held. */
  readonly dhcpLeaseExpiry = new Map<MetricFamily, number>();
  readonly dhcpAcquired = new Counter({
    name: 'anchord_dhcp_acquired_total',
    help: 'DHCP lease acquisition attempts, partitioned by outcome.',
    labelNames: ['family', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly dhcpClientRestarts = new Counter({
    name: 'anchord_dhcp_client_restarts_total',
    help: 'DHCP client restarts (parent-link flap or rebind failure).',
    labelNames: ['family'] as const,
    registers: [this.registry],
  });
  readonly dhcpLeaseRemaining = new Gauge({
    name: 'anchord_dhcp_lease_remaining_seconds',
    help: 'Seconds until the current DHCP lease expires. Zero when no lease is held.',
    labelNames: ['family'] as const,
    registers: [this.registry],
    // Computed at scrape time, as anchord's collector does, so the value counts down.
    collect: () => {
      for (const family of FAMILIES) {
        const expiry = this.dhcpLeaseExpiry.get(family);
        const left = expiry === undefined ? 0 : Math.max(0, (expiry - Date.now()) / 1000);
        this.dhcpLeaseRemaining.set({ family }, Number.isFinite(left) ? left : 2 ** 32 - 1);
      }
    },
  });
  // ---- end of anchord_dhcp_* ----
  readonly buildInfo = new Gauge({
    name: 'anchord_build_info',
    help: 'Build info; constant 1 for label introspection.',
    labelNames: ['version', 'commit'] as const,
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

  constructor(build: BuildInfo = { version: BUILD_VERSION, commit: 'unknown' }) {
    this.buildInfo.set({ version: build.version, commit: build.commit }, 1);
    for (const result of ['ok', 'error'] as const) this.reconcileTotal.inc({ result }, 0);
    for (const source of SOURCES) this.dockerEvents.inc({ source }, 0);
    for (const family of FAMILIES) {
      this.conntrackFlushes.inc({ family }, 0);
      this.gatewayRouteReplaces.inc({ family }, 0);
      this.defaultRoutePresent.set({ family }, 0);
      this.dhcpClientRestarts.inc({ family }, 0);
      this.dhcpLeaseRemaining.set({ family }, 0);
      for (const outcome of ['ok', 'error'] as const) this.dhcpAcquired.inc({ family, outcome }, 0);
      for (const outcome of ['ok', 'error'] as const)
        this.gatewayResolve.inc({ family, outcome }, 0);
      for (const proto of ['tcp', 'udp'] as const) this.dnatEntries.set({ family, proto }, 0);
    }
    this.backendConflicts.inc(0);
  }

  /** Sets the entry gauges from the applied entries. */
  setEntries(counts: ReadonlyMap<`${Family}/${Proto}`, number>): void {
    for (const family of ['ipv4', 'ipv6'] as const) {
      for (const proto of ['tcp', 'udp'] as const) {
        this.dnatEntries.set(
          { family: metricFamily(family), proto },
          counts.get(`${family}/${proto}`) ?? 0,
        );
      }
    }
  }
}
