/**
 * The rebinder sidecars' configuration, from the environment only, with anchord's variables and
 * messages (internal/config LoadWrapRebinder and LoadRebinder). Pure: the environment in, the
 * configuration and its start-up notices out, or the first problem thrown as a LabelwiseError
 * naming the variable.
 */
import { quote } from '../../base/errors.js';
import { failEnv } from '../env-config.js';
import type { DockerEndpoint } from '../config.js';
import { parseDockerHost, parseListenAddress } from '../config.js';
import { parseGoDuration } from '../duration.js';
import type { Notice } from '../model.js';
import { parseLogLevel } from '../mode.js';
import type { LogLevel } from '../mode.js';

type Env = Readonly<Record<string, string | undefined>>;

/** What every rebinder mode shares: Docker, logging, the health and metrics listener. */
export interface RebinderCommon {
  readonly docker: DockerEndpoint;
  readonly logLevel: LogLevel;
  readonly metrics: { readonly host: string; readonly port: number } | undefined;
}

export interface WrapRebinderConfig extends RebinderCommon {
  /** `COMPOSE_PROJECT_NAME`: the wrap-stack whose `container:` siblings are followed. */
  readonly selfProject: string;
  /** `ANCHORD_WRAP_POLL_INTERVAL` (default 30 s): the safety-net recheck. */
  readonly pollIntervalMs: number;
  /** `ANCHORD_WRAP_RESTART_TIMEOUT` (default 10 s): the stop timeout of a recreate. */
  readonly restartTimeoutMs: number;
}

export interface ExternalRebinderConfig extends RebinderCommon {
  /** `ANCHORD_FOLLOW_NETWORK`: the network *name* the follower stays attached to. */
  readonly followNetwork: string;
  /** `ANCHORD_FOLLOW_TARGET`: a container name, or a Compose service of the own project. */
  readonly followTarget: string;
  /** `ANCHORD_FOLLOW_RESTART` (default false): restart the follower after a reattach. */
  readonly restart: boolean;
  /** `ANCHORD_FOLLOW_EVENT_BACKOFF` (default 2 s): the grace after a network `create`. */
  readonly eventBackoffMs: number;
  /** `COMPOSE_PROJECT_NAME`, '' outside Compose: scopes the service-name lookup. */
  readonly selfProject: string;
}

/** A Go duration or integer seconds, as anchord's parseDuration reads it; `fallback` when unset. */
function duration(env: Env, name: string, fallback: number): number {
  const text = env[name] ?? '';
  if (text === '') return fallback;
  // Go accepts a sign on either form; "-1s" is a duration that the caller then rejects.
  const sign = text.startsWith('-') ? -1 : 1;
  const unsigned = /^[+-]/.test(text) ? text.slice(1) : text;
  const parsed = /^\d+$/.test(unsigned) ? Number(unsigned) * 1000 : parseGoDuration(unsigned);
  const ms = parsed === undefined ? undefined : sign * parsed;
  if (ms === undefined || !Number.isFinite(ms))
    failEnv(name, `invalid ${name}: time: invalid duration ${quote(text)}`);
  if (Math.abs(ms) > 2 ** 31 - 1) failEnv(name, `${name} ${quote(text)} is out of range (24 days)`);
  return ms;
}

/** `strconv.ParseBool`'s spellings, as anchord's parseBoolDefault accepts them. */
function boolean(env: Env, name: string, fallback: boolean): boolean {
  const text = (env[name] ?? '').trim();
  if (text === '') return fallback;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return failEnv(name, `invalid ${name}=${quote(text)}: must be true/false (or 1/0)`);
}

function common(env: Env, notices: Notice[]): RebinderCommon {
  const { level, notice } = parseLogLevel(env.ANCHORD_LOG_LEVEL);
  if (notice !== undefined) notices.push(notice);
  const metricsText =
    env.ANCHORD_METRICS_ADDR === undefined ? '127.0.0.1:9090' : env.ANCHORD_METRICS_ADDR.trim();
  return {
    docker: parseDockerHost((env.DOCKER_HOST ?? '') || 'unix:///var/run/docker.sock'),
    logLevel: level,
    metrics: metricsText === '' ? undefined : parseListenAddress(metricsText),
  };
}

/** `wrap-rebinder` mode's settings. */
export function loadWrapRebinderConfig(env: Env): {
  config: WrapRebinderConfig;
  notices: readonly Notice[];
} {
  const notices: Notice[] = [];
  const selfProject = (env.COMPOSE_PROJECT_NAME ?? '').trim();
  if (selfProject === '') {
    failEnv(
      'COMPOSE_PROJECT_NAME',
      'COMPOSE_PROJECT_NAME must be set in wrap-rebinder mode (the sidecar scopes auto-discovery to its own project)',
      'run the rebinder as a service of the wrap-stack, or set COMPOSE_PROJECT_NAME to its project',
    );
  }
  const pollIntervalMs = duration(env, 'ANCHORD_WRAP_POLL_INTERVAL', 30_000);
  if (pollIntervalMs <= 0)
    failEnv('ANCHORD_WRAP_POLL_INTERVAL', 'ANCHORD_WRAP_POLL_INTERVAL must be positive');
  const restartTimeoutMs = duration(env, 'ANCHORD_WRAP_RESTART_TIMEOUT', 10_000);
  if (restartTimeoutMs <= 0)
    failEnv('ANCHORD_WRAP_RESTART_TIMEOUT', 'ANCHORD_WRAP_RESTART_TIMEOUT must be positive');
  return {
    config: { ...common(env, notices), selfProject, pollIntervalMs, restartTimeoutMs },
    notices,
  };
}

/** `external-rebinder` mode's settings. */
export function loadExternalRebinderConfig(env: Env): {
  config: ExternalRebinderConfig;
  notices: readonly Notice[];
} {
  const notices: Notice[] = [];
  const followNetwork = (env.ANCHORD_FOLLOW_NETWORK ?? '').trim();
  if (followNetwork === '')
    failEnv(
      'ANCHORD_FOLLOW_NETWORK',
      'ANCHORD_FOLLOW_NETWORK must be set in external-rebinder mode',
    );
  const followTarget = (env.ANCHORD_FOLLOW_TARGET ?? '').trim();
  if (followTarget === '')
    failEnv('ANCHORD_FOLLOW_TARGET', 'ANCHORD_FOLLOW_TARGET must be set in external-rebinder mode');
  const restart = boolean(env, 'ANCHORD_FOLLOW_RESTART', false);
  const eventBackoffMs = duration(env, 'ANCHORD_FOLLOW_EVENT_BACKOFF', 2_000);
  if (eventBackoffMs < 0)
    failEnv('ANCHORD_FOLLOW_EVENT_BACKOFF', 'ANCHORD_FOLLOW_EVENT_BACKOFF must be non-negative');
  return {
    config: {
      ...common(env, notices),
      followNetwork,
      followTarget,
      restart,
      eventBackoffMs,
      selfProject: (env.COMPOSE_PROJECT_NAME ?? '').trim(),
    },
    notices,
  };
}

/** A duration for a log line, in Go's short form for whole seconds (`30s`), else milliseconds. */
export function durationText(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
