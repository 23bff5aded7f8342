/**
 * Starts dhcp-refresh on the outside interface once the network anchor knows which one it is,
 * with anchord's metrics and the `ip`/UDP edges.
 */
import type { Logger } from 'pino';
import { LabelwiseError, quote } from '../../../base/errors.js';
import { localInterfacesByMac } from '../../io/interfaces.js';
import type { AnchorMetrics, MetricFamily } from '../../metrics.js';
import type { Client6Settings } from '../client6.js';
import { duidLl } from '../packet6.js';
import { openDhcp6Socket } from './socket6.js';
import { Dhcp6Supervisor } from './supervisor6.js';
import { DEFAULT_TIMING } from '../client.js';
import type { ClientSettings } from '../client.js';
import type { DhcpConfig } from '../config.js';
import { clientIdentifier } from '../identity.js';
import { IpAddressing } from './addressing.js';
import type { AddressingPort } from './addressing.js';
import { openDhcpSocket } from './socket.js';
import { DhcpSupervisor } from './supervisor.js';
import type { DhcpMetricsPort } from './supervisor.js';

/** anchord_dhcp_* for one family on the anchor's registry. */
export function dhcpMetrics(metrics: AnchorMetrics, family: MetricFamily = 'v4'): DhcpMetricsPort {
  return {
    dhcpAcquired: (outcome) => metrics.dhcpAcquired.inc({ family, outcome }),
    dhcpRestart: () => metrics.dhcpClientRestarts.inc({ family }),
    dhcpLeaseExpiry: (expiresAt) => {
      if (expiresAt === undefined) metrics.dhcpLeaseExpiry.delete(family);
      else metrics.dhcpLeaseExpiry.set(family, expiresAt);
    },
  };
}

/** Both families' clients, stopped together. */
export interface DhcpClients {
  readonly v4: DhcpSupervisor;
  readonly v6: Dhcp6Supervisor | undefined;
  stop(): Promise<void>;
}

/**
 * Starts the IPv4 client and, beside it, the best-effort IPv6 one (anchord runs both in
 * dhcp-refresh). A v6 client that cannot start (IPv6 off on the outside network) is logged and
 * does not stop the v4 one. Throws `ANCHOR_DHCP_FAILED` when the v4 client cannot start.
 */
export async function startDhcpClients(
  iface: string,
  config: DhcpConfig,
  logger: Logger,
  metrics: AnchorMetrics,
  options: StartDhcpOptions = {},
): Promise<DhcpClients> {
  const v4 = await startDhcpSupervisor(iface, config, logger, dhcpMetrics(metrics, 'v4'), options);
  let v6: Dhcp6Supervisor | undefined;
  try {
    v6 = await startDhcp6Supervisor(iface, config, logger, dhcpMetrics(metrics, 'v6'), options);
  } catch (error) {
    if (!(error instanceof LabelwiseError)) throw error;
    logger.warn({ code: error.code, err: error.message, iface }, 'dhcp v6 client cannot start');
  }
  return {
    v4,
    v6,
    stop: async () => {
      await Promise.all([v4.stop(), v6?.stop()]);
    },
  };
}

/** Builds and starts the DHCPv6 client on the interface. */
export async function startDhcp6Supervisor(
  iface: string,
  config: DhcpConfig,
  logger: Logger,
  metrics: DhcpMetricsPort,
  options: StartDhcpOptions = {},
): Promise<Dhcp6Supervisor> {
  const mac = await macOf(iface);
  const settings: Client6Settings = {
    duid: duidLl(mac),
    // One IA per interface: the MAC's last four bytes keep the IAID stable across restarts.
    iaid: Number.parseInt(mac.split(':').slice(2).join(''), 16) >>> 0,
    hostname: config.hostname,
    backoffMaxMs: config.backoffMaxMs,
    exchangeTimeoutMs: options.timing?.exchangeTimeoutMs ?? DEFAULT_TIMING.exchangeTimeoutMs,
    retransmitMs: options.timing?.retransmitMs ?? DEFAULT_TIMING.retransmitMs,
  };
  const supervisor = new Dhcp6Supervisor(iface, settings, {
    open: (handlers) => openDhcp6Socket(iface, handlers, options.port6),
    addressing: options.addressing ?? new IpAddressing(),
    logger,
    metrics,
  });
  await supervisor.start();
  return supervisor;
}

/** The MAC of a local interface, from this network namespace. */
export async function macOf(iface: string): Promise<string> {
  for (const [mac, name] of await localInterfacesByMac({ withoutAddress: true }))
    if (name === iface) return mac;
  throw new LabelwiseError(
    'ANCHOR_DHCP_FAILED',
    `the outside interface ${quote(iface)} has no MAC address here`,
    {
      hint: 'dhcp-refresh runs in the anchor container, on the interface of ANCHORD_EXT_NETWORK',
      kind: 'unavailable',
    },
  );
}

/** Options of {@link startDhcpSupervisor}; each defaults to the real edge. */
export interface StartDhcpOptions {
  readonly addressing?: AddressingPort;
  /** UDP port to bind (tests); default 68. */
  readonly port?: number;
  /** UDP port of the IPv6 client (tests); default 546. */
  readonly port6?: number;
  readonly timing?: Partial<
    Pick<ClientSettings, 'exchangeTimeoutMs' | 'retransmitMs' | 'renewRetryMaxMs'>
  >;
}

/** Builds and starts the supervisor. Throws `ANCHOR_DHCP_FAILED` when it cannot start. */
export async function startDhcpSupervisor(
  iface: string,
  config: DhcpConfig,
  logger: Logger,
  metrics: DhcpMetricsPort,
  options: StartDhcpOptions = {},
): Promise<DhcpSupervisor> {
  const settings: ClientSettings = {
    mac: await macOf(iface),
    hostname: config.hostname,
    clientId: clientIdentifier(config.hostname),
    backoffMaxMs: config.backoffMaxMs,
    exchangeTimeoutMs: options.timing?.exchangeTimeoutMs ?? DEFAULT_TIMING.exchangeTimeoutMs,
    retransmitMs: options.timing?.retransmitMs ?? DEFAULT_TIMING.retransmitMs,
    renewRetryMaxMs: options.timing?.renewRetryMaxMs ?? DEFAULT_TIMING.renewRetryMaxMs,
  };
  const supervisor = new DhcpSupervisor(
    iface,
    settings,
    {
      open: (handlers) => openDhcpSocket(handlers, options.port),
      addressing: options.addressing ?? new IpAddressing(),
      logger,
      metrics,
    },
    config.gatewayPin !== undefined ? { pin: config.gatewayPin } : {},
  );
  logger.info(
    {
      iface,
      hostname: config.hostname,
      mac: settings.mac,
      backoff_max: `${config.backoffMaxMs}ms`,
    },
    'dhcp client starting',
  );
  await supervisor.start();
  return supervisor;
}
