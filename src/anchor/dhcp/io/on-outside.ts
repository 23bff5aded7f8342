/**
 * Ties dhcp-refresh to the network anchor: the daemon learns the outside interface on each
 * reconcile (by MAC, from Docker); the DHCP client starts on the first one it is told and keeps
 * that interface. A start that fails (port 68 taken, `ip` refused) is logged and tried again on
 * the next reconcile.
 */
import type { Logger } from 'pino';
import { LabelwiseError } from '../../../base/errors.js';
import type { AnchorMetrics } from '../../metrics.js';
import type { DhcpConfig } from '../config.js';
import { startDhcpClients } from './start.js';
import type { DhcpClients, StartDhcpOptions } from './start.js';

export class DhcpOnOutside {
  private supervisor: DhcpClients | undefined;
  private starting: Promise<void> | undefined;
  private iface: string | undefined;
  private stopped = false;

  constructor(
    private readonly config: DhcpConfig,
    private readonly logger: Logger,
    private readonly metrics: AnchorMetrics,
    private readonly options: StartDhcpOptions = {},
  ) {}

  /** The daemon found the outside interface. Never throws. */
  outside(iface: string): void {
    if (this.stopped || this.starting !== undefined) return;
    if (this.supervisor !== undefined) {
      if (iface !== this.iface)
        this.logger.warn(
          { iface: this.iface, now: iface },
          'outside interface changed; dhcp client stays on the first',
        );
      return;
    }
    this.iface = iface;
    this.starting = this.start(iface).finally(() => (this.starting = undefined));
  }

  private async start(iface: string): Promise<void> {
    try {
      const supervisor = await startDhcpClients(
        iface,
        this.config,
        this.logger,
        this.metrics,
        this.options,
      );
      if (this.stopped) await supervisor.stop();
      else this.supervisor = supervisor;
    } catch (error) {
      if (!(error instanceof LabelwiseError)) throw error;
      this.logger.error(
        { code: error.code, err: error.message, iface, hint: error.hint },
        'dhcp client cannot start',
      );
    }
  }

  /** RELEASEs the lease and removes its address. Safe to call twice. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.starting;
    await this.supervisor?.stop();
  }
}
