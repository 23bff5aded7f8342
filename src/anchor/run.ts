/**
 * `labelwise anchor run|network-anchor|service-anchor`: wires the configuration, logger, Docker,
 * kernel, health/metrics server and the mode's daemon together, and runs until a stop signal
 * (exit 0, state removed) or a fatal error (exit 1).
 *
 * Logs are JSON lines shaped as anchord's (Go log/slog JSON): `time`, `level` in upper case
 * (`DEBUG`, `INFO`, `WARN`, `ERROR`), `msg`, then attributes; errors go in `err`. A fatal error
 * is one `ERROR` line with msg `fatal`, as anchord's main writes it.
 */
import { pino } from 'pino';
import type { Logger } from 'pino';
import { errorText, LabelwiseError, quote } from '../base/errors.js';
import { hostname } from 'node:os';
import { DockerDiscovery, dockerClient } from './io/docker-discovery.js';
import { DockerWrapRebinder } from './io/wrap-rebinder-docker.js';
import { DockerExternalRebinder } from './io/external-rebinder-docker.js';
import { ExternalRebinder } from './rebinder/external-rebinder.js';
import type { ExternalRebinderPort, SettleTimings } from './rebinder/external-rebinder.js';
import { loadExternalRebinderConfig, loadWrapRebinderConfig } from './rebinder/rebinder-config.js';
import type { RebinderCommon } from './rebinder/rebinder-config.js';
import { WrapRebinder } from './rebinder/wrap-rebinder.js';
import type { WrapRebinderPort } from './rebinder/wrap-rebinder.js';
import type { DiscoveryPort } from './io/docker-discovery.js';
import { startHttpServer } from './io/http-server.js';
import type { Readiness } from './io/http-server.js';
import { localInterfacesByMac } from './io/interfaces.js';
import { NftCli } from './io/nft.js';
import type { KernelPort } from './io/nft.js';
import { IpRoutes, resolveHost } from './io/routes.js';
import { loadConfig, parseDockerHost } from './config.js';
import { findStaleNetns, staleNetnsReport } from './rebinder/stale-netns.js';
import { AnchorDaemon } from './daemon.js';
import { DhcpOnOutside } from './dhcp/io/on-outside.js';
import { AnchorMetrics } from './metrics.js';
import { selectMode } from './mode.js';
import type { Notice } from './model.js';
import { ServiceAnchor } from './service-anchor.js';
import type { Resolver, RoutePort } from './service-anchor.js';
import { loadServiceAnchorConfig } from './service-anchor-config.js';

export interface RunOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The first command-line argument after `anchor`; names the mode before `ANCHORD_MODE`. */
  readonly modeArgument?: string;
  /** Receives each JSON log line. */
  readonly write: (line: string) => void;
  /** Aborting it stops the daemon gracefully; its `reason` (e.g. `SIGTERM`) is logged. */
  readonly signal: AbortSignal;
  /** Replaces the Docker adapter (tests of the wiring). Default: dockerode on DOCKER_HOST. */
  readonly discovery?: DiscoveryPort;
  /** Replaces the kernel adapter. Default: the `nft` and `conntrack` commands. */
  readonly kernel?: KernelPort;
  /** Replaces the service-anchor's route adapter. Default: `ip route`. */
  readonly routes?: RoutePort;
  /** Replaces the service-anchor's name lookup. Default: the system resolver (Docker DNS). */
  readonly resolve?: Resolver;
  /** Replaces the wrap-rebinder's Docker adapter. Default: dockerode on DOCKER_HOST. */
  readonly wrapDocker?: WrapRebinderPort;
  /** Replaces the external-rebinder's Docker adapter. Default: dockerode on DOCKER_HOST. */
  readonly externalDocker?: ExternalRebinderPort;
  /** The external-rebinder's settle timings. Default: anchord's (1 s poll, 3 s quiet, 90 s). */
  readonly settle?: SettleTimings;
  /** The wrap-rebinder's own container ID. Default: the hostname (Docker sets it to the ID). */
  readonly selfId?: string;
  /** The arguments after `doctor` (its subcommand). */
  readonly doctorArguments?: readonly string[];
  /** Human-readable output of `doctor` (stdout); its usage goes to `writeError`. */
  readonly print?: (text: string) => void;
  readonly writeError?: (text: string) => void;
  /** Called once the metrics server listens, with its port. */
  readonly onListening?: (port: number) => void;
}

/** pino's level names to slog's. pino's `fatal` is anchord's `ERROR` line with msg `fatal`. */
const SLOG_LEVELS: Readonly<Record<string, string>> = {
  trace: 'DEBUG',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  fatal: 'ERROR',
};

/** A pino logger writing JSON lines with slog's upper-case level names (`"level":"WARN"`). */
export function createLogger(level: string, write: (line: string) => void): Logger {
  return pino(
    {
      level,
      base: null,
      formatters: { level: (label) => ({ level: SLOG_LEVELS[label] ?? label.toUpperCase() }) },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    { write },
  );
}

function fatalAttrs(error: LabelwiseError): Record<string, unknown> {
  return {
    code: error.code,
    err: error.message,
    ...error.source,
    ...(error.hint !== undefined ? { hint: error.hint } : {}),
  };
}

/** Runs the selected mode to completion and returns the exit code (0 stopped, 1 fatal). */
export async function runAnchorDaemon(options: RunOptions): Promise<number> {
  try {
    const mode = selectMode(options.modeArgument, options.env);
    if (mode === 'service-anchor') return await runServiceAnchor(options);
    if (mode === 'wrap-rebinder') return await runWrapRebinder(options);
    if (mode === 'external-rebinder') return await runExternalRebinder(options);
    if (mode === 'doctor') return await runDoctor(options);
    return await runNetworkAnchor(options);
  } catch (error) {
    if (!(error instanceof LabelwiseError)) throw error;
    createLogger('info', options.write).fatal(fatalAttrs(error), 'fatal');
    return 1;
  }
}

/** Serves `/healthz`, `/readyz`, `/metrics`; undefined when disabled. Throws a LabelwiseError. */
async function serve(
  address: { host: string; port: number } | undefined,
  metrics: AnchorMetrics,
  readiness: () => Readiness,
  options: RunOptions,
): Promise<Awaited<ReturnType<typeof startHttpServer>>['server'] | undefined> {
  if (address === undefined) return undefined;
  try {
    const started = await startHttpServer(address, metrics.registry, readiness);
    options.onListening?.(started.port);
    return started.server;
  } catch (error) {
    throw new LabelwiseError('ANCHOR_METRICS_LISTEN', (error as Error).message, {
      source: {
        env: 'ANCHORD_METRICS_ADDR',
      },
    });
  }
}

/** Calls `stop` when the signal aborts, after logging anchord's shutdown line. */
function onStopSignal(options: RunOptions, logger: Logger, stop: () => Promise<void>): () => void {
  const onAbort = (): void => {
    const reason: unknown = options.signal.reason;
    logger.info(
      { signal: typeof reason === 'string' ? reason : 'abort' },
      'signal received, shutting down',
    );
    void stop();
  };
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });
  return () => options.signal.removeEventListener('abort', onAbort);
}

async function closeServer(server: Awaited<ReturnType<typeof serve>>): Promise<void> {
  if (server === undefined) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

function logNotices(logger: Logger, notices: readonly Notice[]): void {
  for (const notice of notices) logger[notice.level]({ ...notice.attrs }, notice.msg);
}

async function runNetworkAnchor(options: RunOptions): Promise<number> {
  const { config, notices } = loadConfig(options.env, { modeArgument: options.modeArgument });
  const logger = createLogger(config.logLevel, options.write);
  logNotices(logger, notices);
  logger.info(
    {
      mode: config.mode,
      scope: config.scopeText,
      scope_source: config.scopeSource,
      poll_interval_ms: config.pollIntervalMs,
      ext_network: config.extNetwork ?? '',
      ext_iface: config.extNetwork === undefined ? config.extIface : '',
      shared_network: config.sharedNetwork ?? '',
      masquerade_inbound: config.masqueradeInbound,
    },
    'anchord starting (network-anchor mode)',
  );

  const metrics = new AnchorMetrics();
  const dhcp =
    config.dhcp === undefined ? undefined : new DhcpOnOutside(config.dhcp, logger, metrics);
  const daemon = new AnchorDaemon(config, {
    discovery: options.discovery ?? new DockerDiscovery(config.docker),
    kernel: options.kernel ?? new NftCli(),
    interfaces: () => localInterfacesByMac({ withoutAddress: dhcp !== undefined }),
    logger,
    metrics,
    ...(dhcp !== undefined ? { onOutside: (iface: string) => dhcp.outside(iface) } : {}),
  });
  const server = await serve(
    config.metrics,
    metrics,
    () => {
      const state = daemon.readiness();
      return { tables_installed: state.tablesInstalled, reconciled: state.reconciled };
    },
    options,
  );
  const detach = onStopSignal(options, logger, async () => {
    await Promise.all([daemon.stop(), dhcp?.stop()]);
  });
  await daemon.start();
  const code = await daemon.done;
  detach();
  await dhcp?.stop();
  await closeServer(server);
  return code;
}

/** Serves `/healthz` and a `/readyz` that is liveness only, as anchord's rebinder modes do. */
function serveLiveness(
  address: { host: string; port: number } | undefined,
  options: RunOptions,
): ReturnType<typeof serve> {
  return serve(address, new AnchorMetrics(), () => ({ live: true }), options);
}

/** What a rebinder mode runs until the stop signal; `done` gives the exit code. */
interface RebinderLoop {
  start(): Promise<void>;
  stop(): Promise<void>;
  readonly done: Promise<number>;
}

/** Logs the notices, serves liveness, runs the loop until stopped, then closes the listener. */
async function runRebinderMode<C extends RebinderCommon>(
  loaded: { config: C; notices: readonly Notice[] },
  options: RunOptions,
  create: (config: C, logger: Logger) => RebinderLoop,
): Promise<number> {
  const { config, notices } = loaded;
  const logger = createLogger(config.logLevel, options.write);
  logNotices(logger, notices);
  const server = await serveLiveness(config.metrics, options);
  const rebinder = create(config, logger);
  const detach = onStopSignal(options, logger, () => rebinder.stop());
  await rebinder.start();
  const code = await rebinder.done;
  detach();
  await closeServer(server);
  return code;
}

async function runWrapRebinder(options: RunOptions): Promise<number> {
  return runRebinderMode(
    loadWrapRebinderConfig(options.env),
    options,
    (config, logger) =>
      new WrapRebinder(config, {
        docker:
          options.wrapDocker ??
          new DockerWrapRebinder(dockerClient(config.docker, 30_000), dockerClient(config.docker)),
        logger,
        selfId: options.selfId ?? hostname(),
      }),
  );
}

async function runExternalRebinder(options: RunOptions): Promise<number> {
  return runRebinderMode(
    loadExternalRebinderConfig(options.env),
    options,
    (config, logger) =>
      new ExternalRebinder(config, {
        docker:
          options.externalDocker ??
          new DockerExternalRebinder(
            dockerClient(config.docker, 30_000),
            dockerClient(config.docker),
          ),
        logger,
        ...(options.settle !== undefined ? { settle: options.settle } : {}),
      }),
  );
}

const DOCTOR_USAGE = `Usage: anchord doctor <subcommand>

Subcommands:
  stale-netns   Report dependents in dead network namespaces (issue #9).
`;

/**
 * anchord's one-shot `doctor`: no ANCHORD_* configuration, only the Docker API. Without a
 * subcommand (or with -h/--help) it prints its usage and exits 0; an unknown subcommand or an
 * extra argument is fatal (exit 1). A report exits 0 whether or not it found victims.
 */
async function runDoctor(options: RunOptions): Promise<number> {
  const args = options.doctorArguments ?? [];
  const writeError = options.writeError ?? options.write;
  const first = args[0];
  if (first === undefined || first === '-h' || first === '--help') {
    writeError(DOCTOR_USAGE);
    return 0;
  }
  if (first !== 'stale-netns') {
    writeError(DOCTOR_USAGE);
    throw new LabelwiseError('ANCHOR_INVALID_CONFIG', `unknown doctor subcommand ${quote(first)}`, {
      hint: 'the only subcommand is stale-netns',
    });
  }
  if (args.length > 1) {
    throw new LabelwiseError(
      'ANCHOR_INVALID_CONFIG',
      `doctor stale-netns: unexpected arguments [${args.slice(1).join(' ')}]`,
    );
  }
  const endpoint = parseDockerHost(
    (options.env.DOCKER_HOST ?? '') || 'unix:///var/run/docker.sock',
  );
  let all;
  try {
    all = await (
      options.wrapDocker ??
      new DockerWrapRebinder(dockerClient(endpoint, 30_000), dockerClient(endpoint))
    ).list();
  } catch (error) {
    throw new LabelwiseError('ANCHOR_DOCKER_UNAVAILABLE', `ContainerList: ${errorText(error)}`);
  }
  (options.print ?? options.write)(staleNetnsReport(findStaleNetns(all, all)));
  return 0;
}

async function runServiceAnchor(options: RunOptions): Promise<number> {
  const { config, notices } = loadServiceAnchorConfig(options.env);
  const logger = createLogger(config.logLevel, options.write);
  logNotices(logger, notices);
  const metrics = new AnchorMetrics();
  const anchor = new ServiceAnchor(config, {
    routes: options.routes ?? new IpRoutes(),
    resolve: options.resolve ?? resolveHost,
    logger,
    metrics,
  });
  const server = await serve(config.metrics, metrics, () => anchor.readiness(), options);
  const detach = onStopSignal(options, logger, () => anchor.stop());
  await anchor.start();
  const code = await anchor.done;
  detach();
  await closeServer(server);
  return code;
}
