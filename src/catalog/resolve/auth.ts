/**
 * The `auth` block resolved against the service's ports and routes: the mode (forward-auth by
 * default for routed services), the proxy's routes, and the app port it fronts, which is never
 * guessed: the routed port, `auth.port`, or the only TCP port. Pure; reports through `fail`.
 */
import { quote } from '../../base/index.js';
import { apiRouteProblem } from '../apply/api-route-regex.js';
import { resolveSkipAuthRoutes } from './extras.js';
import type { ReportProblem } from './storage.js';
import { AUTH_PORT_NAME } from '../render/labels.js';
import type { AuthMode, Platform, PortSpec, RouteSpec, ServiceKind } from '../types.js';
import type { ServicePorts } from './ports.js';

type Raw = Record<string, unknown>;
const obj = (value: unknown): Raw =>
  typeof value === 'object' && value !== null ? (value as Raw) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** What the auth block is resolved against besides the ports. */
export interface AuthTarget {
  readonly kind: ServiceKind;
  /** The definition lists routes (forward-auth is then the default). */
  readonly routed: boolean;
  /** Its routes as resolved, sorted by host. */
  readonly routes: readonly RouteSpec[];
}

export interface ResolvedAuth {
  readonly mode: AuthMode;
  readonly apiRoutes: string[];
  readonly skipAuthRoutes: string[];
  readonly upstream: PortSpec | undefined;
}

/** The explicit mode, else forward-auth for a routed service and none for the rest. */
function authMode(authRaw: Raw, routed: boolean): AuthMode {
  if (authRaw.mode === 'forward-auth' || authRaw.mode === 'none') return authRaw.mode;
  return routed ? 'forward-auth' : 'none';
}

/** The proxy's unauthenticated routes: only under forward-auth, and each a valid pattern. */
function proxyRoutes(
  authRaw: Raw,
  mode: AuthMode,
  fail: ReportProblem,
): { apiRoutes: string[]; skipAuthRoutes: string[] } {
  const apiRoutes = list(authRaw.apiRoutes).map(String);
  if (mode === 'none' && apiRoutes.length > 0) {
    fail('CATALOG_AUTH_API_ROUTES', ['auth', 'apiRoutes'], 'apiRoutes need auth.mode forward-auth');
  }
  const skipAuthRoutes = resolveSkipAuthRoutes(authRaw.skipAuthRoutes, fail);
  if (mode === 'none' && skipAuthRoutes.length > 0) {
    fail(
      'CATALOG_AUTH_API_ROUTES',
      ['auth', 'skipAuthRoutes'],
      'skipAuthRoutes need auth.mode forward-auth',
    );
  }
  apiRoutes.forEach((pattern, i) => {
    const problem = apiRouteProblem(pattern);
    if (problem !== undefined)
      fail('CATALOG_AUTH_API_ROUTES', ['auth', 'apiRoutes', i], `${quote(pattern)} ${problem}`);
  });
  return { apiRoutes, skipAuthRoutes };
}

/**
 * The app port the proxy fronts: the routed one; else the one auth.port names; else the only
 * TCP port. Never a guess: with several TCP ports and no route, auth.port must say which.
 */
function frontedPort(
  authRaw: Raw,
  target: AuthTarget,
  ports: ServicePorts,
  fail: ReportProblem,
): PortSpec | undefined {
  const { routes } = target;
  if (new Set(routes.map((r) => r.port.port)).size > 1) {
    fail(
      'CATALOG_AUTH_UPSTREAM',
      ['ingressRoutes'],
      'forward-auth proxies one app port; these routes target several',
      'route every host to the same port',
    );
  }
  const chosen =
    authRaw.port === undefined ? undefined : ports.find(authRaw.port, ['auth', 'port']);
  const tcp = ports.sorted.filter((p) => p.protocol === 'TCP');
  if (chosen !== undefined && routes[0] !== undefined && chosen.port !== routes[0].port.port) {
    fail(
      'CATALOG_AUTH_UPSTREAM',
      ['auth', 'port'],
      `auth.port names ${chosen.name} (${chosen.port}), but the routes reach ${routes[0].port.port}; the proxy fronts one port`,
      'remove auth.port, or route to the port it names',
    );
  }
  if (target.kind === 'container' && !target.routed && authRaw.port === undefined) {
    if (tcp.length === 0)
      fail(
        'CATALOG_AUTH_UPSTREAM',
        ports.explicit ? ['ports'] : ['auth', 'mode'],
        'forward-auth needs a TCP port of the app to proxy to; this service has none',
        'declare the app port under ports, or set auth.mode: none',
      );
    else if (tcp.length > 1)
      fail(
        'CATALOG_AUTH_UPSTREAM',
        ['auth', 'mode'],
        `forward-auth without routes cannot tell which of ${tcp.map((p) => `${p.name} (${p.port})`).join(', ')} it fronts`,
        'name the fronted port with auth.port',
      );
  }
  return routes[0]?.port ?? chosen ?? (tcp.length === 1 ? tcp[0] : undefined);
}

/** The proxy's own port and port name are taken: the app may use neither. */
function proxyPortClashes(ports: ServicePorts, platform: Platform, fail: ReportProblem): void {
  const clash = ports.declared.findIndex(
    (p) => p.port === platform.forwardAuth.port && p.protocol === 'TCP',
  );
  if (clash >= 0) {
    fail(
      'CATALOG_AUTH_PORT_CLASH',
      ports.explicit ? ['ports', clash, 'port'] : ['ingressRoutes'],
      `port ${platform.forwardAuth.port} is the forward-auth proxy's port`,
    );
  }
  const named = ports.declared.findIndex((p) => p.name === AUTH_PORT_NAME);
  if (named >= 0) {
    fail(
      'CATALOG_AUTH_PORT_CLASH',
      ['ports', named, 'name'],
      `the port name ${quote(AUTH_PORT_NAME)} is the forward-auth proxy's`,
    );
  }
}

/** The definition's `auth` block (as written) resolved against its routes and ports. */
export function resolveAuth(
  rawAuth: unknown,
  target: AuthTarget,
  ports: ServicePorts,
  platform: Platform,
  fail: ReportProblem,
): ResolvedAuth {
  const authRaw = obj(rawAuth);
  const mode = authMode(authRaw, target.routed);
  const { apiRoutes, skipAuthRoutes } = proxyRoutes(authRaw, mode, fail);
  if (mode !== 'forward-auth') return { mode, apiRoutes, skipAuthRoutes, upstream: undefined };
  if (target.kind === 'vm') {
    fail(
      'CATALOG_AUTH_VM',
      ['auth'],
      'a vm cannot carry the forward-auth sidecar',
      target.routed && authRaw.mode === undefined
        ? 'auth defaults to forward-auth for routed services: set auth.mode: none explicitly and authenticate in the guest'
        : undefined,
    );
  }
  const upstream = frontedPort(authRaw, target, ports, fail);
  proxyPortClashes(ports, platform, fail);
  return { mode, apiRoutes, skipAuthRoutes, upstream };
}
