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

type Raw = Record<string, unknown>;
type Path = readonly (string | number)[];
const obj = (value: unknown): Raw =>
  typeof value === 'object' && value !== null ? (value as Raw) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** What {@link resolveAuth} needs from the definition being resolved. */
export interface AuthContext {
  readonly raw: Raw;
  readonly kind: ServiceKind;
  readonly platform: Platform;
  readonly routesRaw: readonly unknown[];
  readonly routes: readonly RouteSpec[];
  readonly ports: readonly PortSpec[];
  readonly sortedPorts: readonly PortSpec[];
  readonly explicitPorts: boolean;
  readonly findPort: (ref: unknown, path: Path) => PortSpec | undefined;
  readonly fail: ReportProblem;
}

export interface ResolvedAuth {
  readonly mode: AuthMode;
  readonly apiRoutes: string[];
  readonly skipAuthRoutes: string[];
  readonly upstream: PortSpec | undefined;
}

export function resolveAuth(context: AuthContext): ResolvedAuth {
  const {
    raw,
    kind,
    platform,
    routesRaw,
    routes,
    ports,
    sortedPorts,
    explicitPorts,
    findPort,
    fail,
  } = context;
  const authRaw = obj(raw.auth);
  const mode: AuthMode =
    authRaw.mode === 'forward-auth' || authRaw.mode === 'none'
      ? authRaw.mode
      : routesRaw.length > 0
        ? 'forward-auth'
        : 'none';
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
  let upstream: PortSpec | undefined;
  apiRoutes.forEach((pattern, i) => {
    const problem = apiRouteProblem(pattern);
    if (problem !== undefined)
      fail('CATALOG_AUTH_API_ROUTES', ['auth', 'apiRoutes', i], `${quote(pattern)} ${problem}`);
  });
  if (mode === 'forward-auth') {
    if (kind === 'vm') {
      fail(
        'CATALOG_AUTH_VM',
        ['auth'],
        'a vm cannot carry the forward-auth sidecar',
        routesRaw.length > 0 && authRaw.mode === undefined
          ? 'auth defaults to forward-auth for routed services: set auth.mode: none explicitly and authenticate in the guest'
          : undefined,
      );
    }
    const upstreams = new Set(routes.map((r) => r.port.port));
    if (upstreams.size > 1) {
      fail(
        'CATALOG_AUTH_UPSTREAM',
        ['ingressRoutes'],
        'forward-auth proxies one app port; these routes target several',
        'route every host to the same port',
      );
    }
    // The fronted port: the routed one; else the one auth.port names; else the only TCP port.
    // Never a guess: with several TCP ports and no route, auth.port must say which.
    const chosen =
      authRaw.port === undefined ? undefined : findPort(authRaw.port, ['auth', 'port']);
    const tcp = sortedPorts.filter((p) => p.protocol === 'TCP');
    upstream = routes[0]?.port ?? chosen ?? (tcp.length === 1 ? tcp[0] : undefined);
    if (chosen !== undefined && routes[0] !== undefined && chosen.port !== routes[0].port.port) {
      fail(
        'CATALOG_AUTH_UPSTREAM',
        ['auth', 'port'],
        `auth.port names ${chosen.name} (${chosen.port}), but the routes reach ${routes[0].port.port}; the proxy fronts one port`,
        'remove auth.port, or route to the port it names',
      );
    }
    if (kind === 'container' && routesRaw.length === 0 && authRaw.port === undefined) {
      if (tcp.length === 0)
        fail(
          'CATALOG_AUTH_UPSTREAM',
          explicitPorts ? ['ports'] : ['auth', 'mode'],
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
    const clash = ports.findIndex(
      (p) => p.port === platform.forwardAuth.port && p.protocol === 'TCP',
    );
    if (clash >= 0) {
      fail(
        'CATALOG_AUTH_PORT_CLASH',
        explicitPorts ? ['ports', clash, 'port'] : ['ingressRoutes'],
        `port ${platform.forwardAuth.port} is the forward-auth proxy's port`,
      );
    }
    const named = ports.findIndex((p) => p.name === AUTH_PORT_NAME);
    if (named >= 0) {
      fail(
        'CATALOG_AUTH_PORT_CLASH',
        ['ports', named, 'name'],
        `the port name ${quote(AUTH_PORT_NAME)} is the forward-auth proxy's`,
      );
    }
  }
  return { mode, apiRoutes, skipAuthRoutes, upstream };
}
