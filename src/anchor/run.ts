/**
 * `labelwise anchor run`: wires the configuration, logger, Docker, kernel, health/metrics
 * server and daemon together, and runs until a stop signal (exit 0, tables removed) or a fatal
 * error (exit 1). Logs are JSON lines (pino) on the given writer.
 */
import { pino } from 'pino';
import type { Logger } from 'pino';
import { LabelwiseError } from '../base/errors.js';
import { DockerDiscovery } from './io/docker-discovery.js';
import type { DiscoveryPort } from './io/docker-discovery.js';
import { startHttpServer } from './io/http-server.js';
import { localInterfacesByMac } from './io/interfaces.js';
import { NftCli } from './io/nft.js';
import type { KernelPort } from './io/nft.js';
import { loadConfig } from './config.js';
import { AnchorDaemon } from './daemon.js';
import { AnchorMetrics } from './metrics.js';

export interface RunOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Receives each JSON log line. */
  readonly write: (line: string) => void;
  /** Aborting it stops the daemon gracefully; its `reason` (e.g. `SIGTERM`) is logged. */
  readonly signal: AbortSignal;
  /** Replaces the Docker adapter (tests of the wiring). Default: dockerode on DOCKER_HOST. */
  readonly discovery?: DiscoveryPort;
  /** Replaces the kernel adapter. Default: the `nft` and `conntrack` commands. */
  readonly kernel?: KernelPort;
  /** Called once the metrics server listens, with its port. */
  readonly onListening?: (port: number) => void;
}

/** A pino logger writing JSON lines with the level as a word (`"level":"warn"`). */
export function createLogger(level: string, write: (line: string) => void): Logger {
  return pino(
    {
      level,
      base: null,
      formatters: { level: (label) => ({ level: label }) },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    { write },
  );
}

/** Runs the daemon to completion and returns the exit code (0 stopped by signal, 1 fatal). */
export async function runAnchorDaemon(options: RunOptions): Promise<number> {
  let loaded: ReturnType<typeof loadConfig>;
  try {
    loaded = loadConfig(options.env);
  } catch (error) {
    if (!(error instanceof LabelwiseError)) throw error;
    createLogger('info', options.write).fatal(
      {
        code: error.code,
        error: error.message,
        ...error.source,
        ...(error.hint !== undefined ? { hint: error.hint } : {}),
      },
      'fatal',
    );
    return 1;
  }
  const { config, notices } = loaded;
  const logger = createLogger(config.logLevel, options.write);
  for (const notice of notices) logger[notice.level]({ ...notice.attrs }, notice.msg);
  logger.info(
    {
      mode: config.mode,
      scope: config.scopeText,
      scope_source: config.scopeSource,
      poll_interval_ms: config.pollIntervalMs,
      ext_network: config.extNetwork ?? '',
      ext_iface: config.extNetwork === undefined ? config.extIface : '',
      shared_network: config.sharedNetwork ?? '',
    },
    'starting',
  );

  const metrics = new AnchorMetrics();
  const daemon = new AnchorDaemon(config, {
    discovery: options.discovery ?? new DockerDiscovery(config.docker),
    kernel: options.kernel ?? new NftCli(),
    interfaces: localInterfacesByMac,
    logger,
    metrics,
  });

  let server: Awaited<ReturnType<typeof startHttpServer>>['server'] | undefined;
  if (config.metrics !== undefined) {
    try {
      const started = await startHttpServer(config.metrics, metrics.registry, () =>
        daemon.readiness(),
      );
      server = started.server;
      options.onListening?.(started.port);
    } catch (error) {
      logger.fatal(
        {
          code: 'ANCHOR_METRICS_LISTEN',
          error: (error as Error).message,
          env: 'ANCHORD_METRICS_ADDR',
        },
        'fatal',
      );
      return 1;
    }
  }

  const onAbort = (): void => {
    const reason: unknown = options.signal.reason;
    logger.info(
      { signal: typeof reason === 'string' ? reason : 'abort' },
      'signal received, shutting down',
    );
    void daemon.stop();
  };
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });

  await daemon.start();
  const code = await daemon.done;
  options.signal.removeEventListener('abort', onAbort);
  if (server !== undefined) {
    server.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  }
  return code;
}
