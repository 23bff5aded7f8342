/**
 * The anchor's configuration, read only from the environment (spec: Configuration). Pure: takes
 * the environment as data, returns the configuration plus the start-up log records it implies,
 * or throws the first problem as a LabelwiseError naming the variable. Every error here is fatal
 * before anything is touched.
 */
import { LabelwiseError, quote } from '../base/errors.js';
import { failEnv } from './env-config.js';
import { misleadingScope, scopeText } from './scope-notice.js';
import {
  formatEqualityList,
  parseEqualityList,
  requirement,
  selectorOf,
} from '../selector/index.js';
import type { Selector } from '../selector/index.js';
import { parseGoDuration } from './duration.js';
import type { Notice } from './model.js';
import { parseLogLevel, selectMode } from './mode.js';
import type { LogLevel } from './mode.js';
import { pushAll } from '../base/index.js';
import { loadDhcpConfig } from './dhcp/config.js';
import type { DhcpConfig } from './dhcp/config.js';

export type { LogLevel } from './mode.js';

/** The Compose label that scopes the legacy (project) discovery. */
export const COMPOSE_PROJECT_LABEL = 'com.docker.compose.project';

/** Where the Docker Engine API is: a Unix socket or plain TCP (e.g. a socket proxy). */
export type DockerEndpoint =
  | { readonly kind: 'unix'; readonly socketPath: string }
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number };

/** A validated configuration. */
export interface AnchorConfig {
  /** Discovery scope: the label selector, or `com.docker.compose.project=<project>`. */
  readonly scope: Selector;
  /** Which variable produced the scope. */
  readonly scopeSource: 'selector' | 'project';
  /** The scope as anchord prints it: pairs sorted by key, `k1=v1,k2=v2`. */
  readonly scopeText: string;
  readonly extNetwork: string | undefined;
  readonly extIface: string;
  readonly sharedNetwork: string | undefined;
  readonly pollIntervalMs: number;
  readonly mode: 'network-anchor';
  readonly logLevel: LogLevel;
  /**
   * `ANCHORD_MASQUERADE_INBOUND`: masquerade every DNATed connection, so backends need no
   * return route (no service-anchor) but see the anchor's address instead of the client's.
   */
  readonly masqueradeInbound: boolean;
  /** Undefined when metrics and health endpoints are disabled. */
  readonly metrics: { readonly host: string; readonly port: number } | undefined;
  readonly docker: DockerEndpoint;
  /** `ANCHORD_ADDRESS_MODE` (default bootstrap). */
  readonly addressMode: AddressMode;
  /** The DHCP client's settings; only in dhcp-refresh (docs/anchor.md, DHCP addressing). */
  readonly dhcp: DhcpConfig | undefined;
}

export interface LoadedConfig {
  readonly config: AnchorConfig;
  /** Start-up log records (the selector-active line, the ignored-project warning). */
  readonly notices: readonly Notice[];
}

type Env = Readonly<Record<string, string | undefined>>;

/** Interface names as Linux allows them, narrowed to what is safe to quote in an nft script. */
const IFACE_NAME = /^[A-Za-z0-9_.-]{1,15}$/;

function get(env: Env, name: string): string {
  const value = env[name];
  return typeof value === 'string' ? value : '';
}

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /** The first command-line argument, which names the mode before `ANCHORD_MODE` does. */
  readonly modeArgument?: string;
}

/** anchord's address modes. slaac-ra-only keeps the assigned IPv4 and leaves IPv6 to the kernel. */
export type AddressMode = 'bootstrap' | 'dhcp-refresh' | 'slaac-ra-only';

/** `ANCHORD_ADDRESS_MODE` (default bootstrap). */
function addressModeOf(env: Env): AddressMode {
  const addressMode = get(env, 'ANCHORD_ADDRESS_MODE').trim();
  if (addressMode === '') return 'bootstrap';
  if (
    addressMode === 'bootstrap' ||
    addressMode === 'dhcp-refresh' ||
    addressMode === 'slaac-ra-only'
  )
    return addressMode;
  return failEnv(
    'ANCHORD_ADDRESS_MODE',
    `invalid ANCHORD_ADDRESS_MODE ${quote(addressMode)} (want "bootstrap", "dhcp-refresh", or "slaac-ra-only")`,
    'leave it unset or use bootstrap',
  );
}

/** The outside network and interface, with the notice when both are set. */
function outsideOf(
  env: Env,
  notices: Notice[],
): { extNetwork: string | undefined; extIface: string } {
  const extNetwork = get(env, 'ANCHORD_EXT_NETWORK').trim() || undefined;
  const extIface = get(env, 'ANCHORD_EXT_IFACE').trim() || 'eth0';
  // The outside network, when named, decides the interface: say so when both are set.
  if (extNetwork !== undefined && get(env, 'ANCHORD_EXT_IFACE').trim() !== '')
    notices.push({
      level: 'warn',
      msg: 'ANCHORD_EXT_NETWORK set; ANCHORD_EXT_IFACE ignored',
      attrs: { ext_network: extNetwork, ignored_iface: get(env, 'ANCHORD_EXT_IFACE').trim() },
    });
  if (!IFACE_NAME.test(extIface)) {
    failEnv(
      'ANCHORD_EXT_IFACE',
      `interface name ${quote(extIface)} is invalid`,
      'use 1-15 letters, digits, "_", "." or "-"',
    );
  }
  return { extNetwork, extIface };
}

/** `ANCHORD_POLL_INTERVAL` in milliseconds (integer seconds or a Go duration). */
function pollInterval(env: Env): number {
  const pollText = get(env, 'ANCHORD_POLL_INTERVAL').trim() || '30s';
  const pollIntervalMs = parseGoDuration(pollText);
  if (pollIntervalMs === undefined || pollIntervalMs <= 0) {
    failEnv(
      'ANCHORD_POLL_INTERVAL',
      `poll interval ${quote(pollText)} is invalid: expected a positive number of seconds or a duration like 2m30s`,
    );
  }
  if (pollIntervalMs < 100 || pollIntervalMs > 2 ** 31 - 1) {
    failEnv(
      'ANCHORD_POLL_INTERVAL',
      `poll interval ${quote(pollText)} is out of range (100ms to 24 days)`,
    );
  }
  return pollIntervalMs;
}

/**
 * Reads and validates the network-anchor configuration. Throws a LabelwiseError
 * (`ANCHOR_INVALID_CONFIG`, `ANCHOR_MODE_NOT_SUPPORTED`, or the selector core's
 * `SELECTOR_EQUALITY_*` codes with their exact messages) for the first problem, including when
 * the mode selected is not network-anchor. Deterministic; never touches the process.
 */
export function loadConfig(env: Env, options: LoadConfigOptions = {}): LoadedConfig {
  const notices: Notice[] = [];

  const mode = selectMode(options.modeArgument, env);
  if (mode !== 'network-anchor') {
    failEnv(
      'ANCHORD_MODE',
      `mode ${quote(mode)} is not the network anchor's`,
      'run "labelwise anchor service-anchor" for it',
    );
  }
  const addressMode = addressModeOf(env);

  const { scope, scopeSource, notices: scopeNotices } = resolveScope(env);
  pushAll(notices, scopeNotices);
  const dhcp = addressMode === 'dhcp-refresh' ? loadDhcpConfig(env, scope) : undefined;

  const { extNetwork, extIface } = outsideOf(env, notices);
  const sharedNetwork = get(env, 'ANCHORD_SHARED_NETWORK').trim() || undefined;

  const pollIntervalMs = pollInterval(env);

  const { level, notice: levelNotice } = parseLogLevel(env.ANCHORD_LOG_LEVEL);
  if (levelNotice !== undefined) notices.unshift(levelNotice);
  const masqueradeInbound = parseSwitch(env, 'ANCHORD_MASQUERADE_INBOUND');

  const metricsText =
    env.ANCHORD_METRICS_ADDR === undefined
      ? '127.0.0.1:9090'
      : get(env, 'ANCHORD_METRICS_ADDR').trim();
  const metrics = metricsText === '' ? undefined : parseListenAddress(metricsText);

  const docker = parseDockerHost(get(env, 'DOCKER_HOST').trim() || 'unix:///var/run/docker.sock');

  const scopeText = formatEqualityList(scope) ?? '';
  return {
    config: {
      scope,
      scopeSource,
      scopeText,
      extNetwork,
      extIface,
      sharedNetwork,
      pollIntervalMs,
      mode: 'network-anchor',
      logLevel: level,
      masqueradeInbound,
      metrics,
      docker,
      addressMode,
      dhcp,
    },
    notices,
  };
}

/** The discovery scope alone, as {@link resolveScope} derives it. */
export interface ResolvedScope {
  readonly scope: Selector;
  readonly scopeSource: 'selector' | 'project';
  /** The variable whose value is the scope (where to point a user at). */
  readonly variable: 'ANCHORD_LABEL_SELECTOR' | 'ANCHORD_PROJECT' | 'COMPOSE_PROJECT_NAME';
  /** The selector-active line and the ignored-project warning, when they apply. */
  readonly notices: readonly Notice[];
}

/**
 * The discovery scope from `ANCHORD_LABEL_SELECTOR`, else `ANCHORD_PROJECT`, else
 * `COMPOSE_PROJECT_NAME` (spec: Configuration), independent of every other variable — so the
 * static check can still prove overlaps for an anchor whose other settings are wrong. Throws the
 * selector core's `SELECTOR_EQUALITY_*` errors (exact anchord messages) or `ANCHOR_INVALID_CONFIG`
 * when there is no scope at all; each names its variable in `source.env`.
 */
export function resolveScope(env: Env): ResolvedScope {
  const notices: Notice[] = [];
  let scope: Selector;
  try {
    scope = parseEqualityList(get(env, 'ANCHORD_LABEL_SELECTOR'));
  } catch (error) {
    if (error instanceof LabelwiseError) {
      throw new LabelwiseError(error.code, error.message, {
        source: { ...error.source, env: 'ANCHORD_LABEL_SELECTOR' },
        hint: error.hint,
      });
    }
    throw error;
  }
  if (scope.requirements.length > 0) {
    // The project the selector replaces, whichever variable gave it (anchord's fallback order).
    const explicitProject = get(env, 'ANCHORD_PROJECT').trim();
    const ignored = explicitProject || get(env, 'COMPOSE_PROJECT_NAME').trim();
    if (ignored !== '') {
      notices.push({
        level: 'warn',
        msg: 'ANCHORD_LABEL_SELECTOR set; ANCHORD_PROJECT ignored',
        attrs: {
          ignored_project: ignored,
          ...(explicitProject === '' ? { from: 'COMPOSE_PROJECT_NAME' } : {}),
        },
      });
    }
    notices.push({
      level: 'info',
      msg: 'backend label selector active',
      attrs: { selector: formatEqualityList(scope) ?? '' },
    });
    for (const message of misleadingScope(scope))
      notices.push({
        level: 'warn',
        msg: 'label selector is equality only',
        attrs: { selector: scopeText(scope), detail: message },
      });
    return { scope, scopeSource: 'selector', variable: 'ANCHORD_LABEL_SELECTOR', notices };
  }
  const explicit = get(env, 'ANCHORD_PROJECT').trim();
  const project = explicit || get(env, 'COMPOSE_PROJECT_NAME').trim();
  if (project === '') {
    failEnv(
      'ANCHORD_PROJECT',
      'ANCHORD_PROJECT (or COMPOSE_PROJECT_NAME) must be set unless ANCHORD_LABEL_SELECTOR is',
    );
  }
  return {
    scope: selectorOf([requirement(COMPOSE_PROJECT_LABEL, 'In', [project])]),
    scopeSource: 'project',
    variable: explicit !== '' ? 'ANCHORD_PROJECT' : 'COMPOSE_PROJECT_NAME',
    notices,
  };
}

/** An on/off variable: empty is off; true/false, 1/0, yes/no, on/off in any case. */
export function parseSwitch(env: Env, name: string): boolean {
  const text = get(env, name).trim().toLowerCase();
  if (text === '' || ['false', '0', 'no', 'off'].includes(text)) return false;
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  return failEnv(name, `invalid ${name}=${quote(text)}: must be true/false (or 1/0)`);
}

function parsePort(text: string, env: string, whole: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) {
    failEnv(
      env,
      `address ${quote(whole)} has an invalid port ${quote(text)}`,
      'expected host:port with a port from 0 to 65535',
    );
  }
  return Number(text);
}

/**
 * `host:port`, `[v6]:port` or `:port`. `:port` gives the host `""`: listen on every address of
 * both families (dual-stack, as Go's `:9090` does in anchord), not only IPv4's `0.0.0.0`.
 */
export function parseListenAddress(text: string): { host: string; port: number } {
  const env = 'ANCHORD_METRICS_ADDR';
  const bracketed = /^\[([0-9A-Fa-f:.]+)\]:(\d*)$/.exec(text);
  if (bracketed !== null)
    return { host: bracketed[1] as string, port: parsePort(bracketed[2] as string, env, text) };
  const at = text.lastIndexOf(':');
  if (at < 0)
    failEnv(
      env,
      `address ${quote(text)} is missing a port`,
      'use host:port, e.g. 127.0.0.1:9090, or "" to disable',
    );
  const host = text.slice(0, at);
  if (host.includes(':') || !/^[A-Za-z0-9.-]*$/.test(host))
    failEnv(env, `address ${quote(text)} has an invalid host`);
  return { host, port: parsePort(text.slice(at + 1), env, text) };
}

/** `unix:///path` or `tcp://host:port` (also `http://`, which Docker clients treat the same). */
export function parseDockerHost(text: string): DockerEndpoint {
  if (text.startsWith('unix://')) {
    const socketPath = text.slice('unix://'.length);
    if (!socketPath.startsWith('/'))
      failEnv('DOCKER_HOST', `DOCKER_HOST ${quote(text)} needs an absolute socket path`);
    return { kind: 'unix', socketPath };
  }
  const tcp = /^(?:tcp|http):\/\/([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})\/?$/.exec(text);
  if (tcp !== null) {
    const port = Number(tcp[2]);
    if (port < 1 || port > 65535)
      failEnv('DOCKER_HOST', `DOCKER_HOST ${quote(text)} has an invalid port`);
    return { kind: 'tcp', host: (tcp[1] as string).replace(/^\[|\]$/g, ''), port };
  }
  return failEnv(
    'DOCKER_HOST',
    `DOCKER_HOST ${quote(text)} is not supported`,
    'use unix:///var/run/docker.sock or tcp://host:port (TLS is not supported; put a socket proxy in front)',
  );
}
