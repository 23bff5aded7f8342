/**
 * The service-anchor's configuration, from the environment only, with anchord's variables
 * (internal/config LoadServiceAnchor). Pure: the environment in, the configuration and its
 * start-up notices out, or the first problem thrown as a LabelwiseError naming the variable.
 */
import ipaddr from 'ipaddr.js';
import { quote } from '../base/errors.js';
import { failEnv } from './env-config.js';
import { validGlobalIpv6, validIpv4 } from './addresses.js';
import { parseListenAddress } from './config.js';
import { parseGoDuration } from './duration.js';
import type { Notice } from './model.js';
import { parseLogLevel } from './mode.js';
import type { LogLevel } from './mode.js';

export interface ServiceAnchorConfig {
  /** `ANCHORD_GATEWAY_HOSTNAME` (default `anchord`): the network anchor's name in Docker DNS. */
  readonly gatewayHostname: string;
  /** `ANCHORD_GATEWAY_IP`: at most one IPv4 and one IPv6; when set, DNS is not asked. */
  readonly gatewayIps: { readonly ipv4?: string; readonly ipv6?: string };
  /** `ANCHORD_GATEWAY_RESOLVE_INTERVAL` (default 5 s). */
  readonly resolveIntervalMs: number;
  readonly logLevel: LogLevel;
  readonly metrics: { readonly host: string; readonly port: number } | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Docker DNS names: letters, digits, `.`, `_` and `-`, as a container or service name. */
const HOSTNAME = /^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,252})$/;

/**
 * `ANCHORD_GATEWAY_IP`: a comma list of at most one IPv4 and one IPv6 address; empty items are
 * skipped; a malformed one is fatal (anchord: silently falling back to DNS would hide a typo).
 */
export function parseGatewayIps(text: string): { ipv4?: string; ipv6?: string } {
  const out: { ipv4?: string; ipv6?: string } = {};
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    if (!ipaddr.isValid(item) || item.includes('%') || item.length > 45) {
      failEnv(
        'ANCHORD_GATEWAY_IP',
        `ANCHORD_GATEWAY_IP=${quote(item.slice(0, 64))} is not a valid IP`,
        'give the network anchor address, e.g. 172.30.0.2 or 172.30.0.2,fd00::2',
      );
    }
    // Only a canonical unicast address ever reaches the `ip` command's arguments.
    const v4 = validIpv4(item);
    const v6 = v4 === undefined ? validGlobalIpv6(item) : undefined;
    if (v4 === undefined && v6 === undefined) {
      failEnv(
        'ANCHORD_GATEWAY_IP',
        `ANCHORD_GATEWAY_IP=${quote(item)} cannot be a gateway (unspecified, broadcast, multicast, loopback or link-local)`,
      );
    }
    if (v4 !== undefined) {
      if (out.ipv4 !== undefined)
        failEnv('ANCHORD_GATEWAY_IP', 'ANCHORD_GATEWAY_IP lists more than one IPv4 address');
      out.ipv4 = v4;
    } else {
      if (out.ipv6 !== undefined)
        failEnv('ANCHORD_GATEWAY_IP', 'ANCHORD_GATEWAY_IP lists more than one IPv6 address');
      out.ipv6 = v6;
    }
  }
  return out;
}

/** Reads and validates the service-anchor configuration. Deterministic; never throws a bug. */
export function loadServiceAnchorConfig(env: Env): {
  config: ServiceAnchorConfig;
  notices: readonly Notice[];
} {
  const notices: Notice[] = [];
  const { level, notice } = parseLogLevel(env.ANCHORD_LOG_LEVEL);
  if (notice !== undefined) notices.push(notice);

  const gatewayHostname = (env.ANCHORD_GATEWAY_HOSTNAME ?? '').trim() || 'anchord';
  if (!HOSTNAME.test(gatewayHostname)) {
    failEnv(
      'ANCHORD_GATEWAY_HOSTNAME',
      `gateway hostname ${quote(gatewayHostname.slice(0, 64))} is invalid`,
      'use the network anchor service or container name, e.g. anchord',
    );
  }
  const gatewayIps = parseGatewayIps(env.ANCHORD_GATEWAY_IP ?? '');

  const intervalText = (env.ANCHORD_GATEWAY_RESOLVE_INTERVAL ?? '').trim() || '5s';
  const resolveIntervalMs = parseGoDuration(intervalText);
  if (resolveIntervalMs === undefined || resolveIntervalMs <= 0) {
    failEnv(
      'ANCHORD_GATEWAY_RESOLVE_INTERVAL',
      'ANCHORD_GATEWAY_RESOLVE_INTERVAL must be positive',
      'a number of seconds or a duration like 5s or 1m',
    );
  }
  if (resolveIntervalMs < 100 || resolveIntervalMs > 2 ** 31 - 1) {
    failEnv(
      'ANCHORD_GATEWAY_RESOLVE_INTERVAL',
      `resolve interval ${quote(intervalText)} is out of range (100ms to 24 days)`,
    );
  }

  const metricsText =
    env.ANCHORD_METRICS_ADDR === undefined ? '127.0.0.1:9090' : env.ANCHORD_METRICS_ADDR.trim();
  const metrics = metricsText === '' ? undefined : parseListenAddress(metricsText);
  return {
    config: { gatewayHostname, gatewayIps, resolveIntervalMs, logLevel: level, metrics },
    notices,
  };
}
