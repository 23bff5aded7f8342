/**
 * Starts dhcp-refresh on the outside interface once the network anchor knows which one it is,
 * with anchord's metrics and the `ip`/UDP edges.
 */
import type { Logger } from 'pino';
import { LabelwiseError, quote } from '../../../base/errors.js';
import { localInterfacesByMac } from '../../io/interfaces.js';
import type { AnchorMetrics } from '../../metrics.js';
import { DEFAULT_TIMING } from '../client.js';
import type { ClientSettings } from '../client.js';
import type { DhcpConfig } from '../config.js';
import { clientIdentifier } from '../identity.js';
import { IpAddressing } from './addressing.js';
import type { AddressingPort } from './addressing.js';
import { openDhcpSocket } from './socket.js';
import { DhcpSupervisor } from './supervisor.js';
import type { DhcpMetricsPort } from './supervisor.js';

/** anchord_dhcp_* for family v4 on the anchor's registry. */
export function dhcpMetrics(metrics: AnchorMetrics): DhcpMetricsPort {
  return {
    dhcpAcquired: (outcome) => metrics.dhcpAcquired.inc({ family: 'v4', outcome }),
    dhcpRestart: () => metrics.dhcpClientRestarts.inc({ family: 'v4' }),
    dhcpLeaseExpiry: (expiresAt) => {
      if (expiresAt === undefined) metrics.dhcpLeaseExpiry.delete('v4');
      else metrics.dhcpLeaseExpiry.set('v4', expiresAt);
    },
  };
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
