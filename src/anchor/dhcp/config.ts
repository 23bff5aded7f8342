/**
 * The DHCP client's settings from the environment (`ANCHORD_ADDRESS_MODE=dhcp-refresh`), with
 * anchord's names and defaults. Pure; throws `ANCHOR_INVALID_CONFIG` naming the variable.
 */
import { quote } from '../../base/errors.js';
import { failEnv } from '../env-config.js';
import type { Selector } from '../../selector/index.js';
import { validGlobalIpv6, validIpv4 } from '../addresses.js';
import { parseGoDuration } from '../duration.js';
import { dhcpHostname } from './identity.js';

export interface DhcpConfig {
  /** Option 12 and the basis of option 61 (see identity.ts for the fallbacks). */
  readonly hostname: string;
  /** `ANCHORD_DHCP_BACKOFF_MAX` (default 5 min): the longest wait between two attempts. */
  readonly backoffMaxMs: number;
  /**
   * `ANCHORD_EXT_GATEWAY_IP`'s IPv4 address: the outside default route until a lease names a
   * router (option 3 wins, as in anchord's extroute). Its IPv6 address is accepted and unused.
   */
  readonly gatewayPin?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_BACKOFF_MAX = '5m';
/** A hostname option must fit one option (255 bytes); DNS labels keep it far shorter. */
const HOSTNAME = /^[A-Za-z0-9]([A-Za-z0-9_.-]{0,252}[A-Za-z0-9])?$/;

/** Reads the DHCP settings; `scope` is the discovery scope (its first value names the anchor). */
export function loadDhcpConfig(env: Env, scope: Selector | undefined): DhcpConfig {
  const project = (env.ANCHORD_PROJECT ?? '').trim() || (env.COMPOSE_PROJECT_NAME ?? '').trim();
  const hostname = dhcpHostname((env.ANCHORD_DHCP_HOSTNAME ?? '').trim(), project, scope);
  if (hostname === '')
    failEnv(
      'ANCHORD_DHCP_HOSTNAME',
      'dhcp-refresh needs a DHCP hostname: ANCHORD_DHCP_HOSTNAME, the project, or a selector value',
    );
  if (!HOSTNAME.test(hostname))
    failEnv(
      'ANCHORD_DHCP_HOSTNAME',
      `DHCP hostname ${quote(hostname.slice(0, 64))} is invalid`,
      'use letters, digits, ".", "-" and "_", starting and ending with a letter or digit',
    );
  const text = (env.ANCHORD_DHCP_BACKOFF_MAX ?? '').trim() || DEFAULT_BACKOFF_MAX;
  const backoffMaxMs = parseGoDuration(text);
  if (backoffMaxMs === undefined || backoffMaxMs < 1 || backoffMaxMs > 2 ** 31 - 1)
    failEnv(
      'ANCHORD_DHCP_BACKOFF_MAX',
      `invalid ANCHORD_DHCP_BACKOFF_MAX ${quote(text)}: expected a positive duration up to 24 days`,
      'seconds (300) or a duration like 5m',
    );
  const gatewayPin = gatewayPinOf((env.ANCHORD_EXT_GATEWAY_IP ?? '').trim());
  return { hostname, backoffMaxMs, ...(gatewayPin !== undefined ? { gatewayPin } : {}) };
}

/** At most one IPv4 and one IPv6 address, comma-separated (anchord's gateway-list grammar). */
function gatewayPinOf(text: string): string | undefined {
  let v4: string | undefined;
  let v6 = false;
  for (const item of text.split(',').map((s) => s.trim())) {
    if (item === '') continue;
    const ipv4 = validIpv4(item);
    if (ipv4 !== undefined) {
      if (v4 !== undefined)
        failEnv(
          'ANCHORD_EXT_GATEWAY_IP',
          'ANCHORD_EXT_GATEWAY_IP lists more than one IPv4 address',
        );
      v4 = ipv4;
    } else if (validGlobalIpv6(item) !== undefined) {
      if (v6)
        failEnv(
          'ANCHORD_EXT_GATEWAY_IP',
          'ANCHORD_EXT_GATEWAY_IP lists more than one IPv6 address',
        );
      v6 = true;
    } else
      failEnv(
        'ANCHORD_EXT_GATEWAY_IP',
        `ANCHORD_EXT_GATEWAY_IP=${quote(item.slice(0, 64))} is not a valid IP`,
      );
  }
  return v4;
}
