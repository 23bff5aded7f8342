/**
 * Which ports a service exposes, decided once for the Service, the routes and the network policy
 * so they cannot disagree.
 *
 * With forward-auth, the Gateway reaches only the proxy's port. The app port the proxy fronts is
 * reached by the proxy over loopback, and, when the service declares in-cluster clients, by
 * those clients directly (their calls carry no browser session, so through the proxy they would
 * get a redirect or a 401). The Service then lists the fronted port for them; the network policy
 * admits it from the declared clients' pods and nobody else.
 */
import type { Platform, PortSpec, ResolvedService } from '../types.js';
import { AUTH_PORT_NAME } from './labels.js';

/** The app port the forward-auth proxy forwards to (resolved with the definition). */
export function authUpstream(service: Pick<ResolvedService, 'auth'>): PortSpec | undefined {
  return service.auth.upstream;
}

/**
 * The app ports the forward-auth proxy fronts: the routed ones and the proxy's upstream. They
 * are never reachable from the Gateway; the service's other ports (DNS on 53, a separate
 * metrics port) are exposed as usual.
 */
export function frontedPorts(
  service: Pick<ResolvedService, 'ingressRoutes'> & {
    readonly auth: Pick<ResolvedService['auth'], 'upstream'>;
  },
): Set<number> {
  const fronted = new Set(service.ingressRoutes.map((r) => r.port.port));
  if (service.auth.upstream !== undefined) fronted.add(service.auth.upstream.port);
  return fronted;
}

const byNumber = (a: PortSpec, b: PortSpec) =>
  a.port - b.port || (a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0);

/** The forward-auth proxy's port. */
export function proxyPort(platform: Platform): PortSpec {
  return { name: AUTH_PORT_NAME, port: platform.forwardAuth.port, protocol: 'TCP' };
}

/**
 * The ports the declared in-cluster clients reach: the app's own ports, fronted ones included
 * (never the proxy's login). Sorted by number then protocol.
 */
export function clientPorts(service: ResolvedService): PortSpec[] {
  return [...service.ports].sort(byNumber);
}

/**
 * The ports of the Service, sorted by number then protocol. With forward-auth: the proxy's port,
 * the ports it does not front, and the fronted ones only when declared clients call them.
 */
export function servicePorts(service: ResolvedService, platform: Platform): PortSpec[] {
  if (service.auth.mode !== 'forward-auth') return [...service.ports].sort(byNumber);
  const fronted = frontedPorts(service);
  const clients = service.inClusterClients.length > 0;
  return [
    proxyPort(platform),
    ...service.ports.filter((p) => clients || !fronted.has(p.port)),
  ].sort(byNumber);
}

/** The Service port a route's backend points at: the proxy's when auth is on, else the app's. */
export function backendPort(
  service: ResolvedService,
  route: { port: PortSpec },
  platform: Platform,
): PortSpec {
  return service.auth.mode === 'forward-auth' ? proxyPort(platform) : route.port;
}

/** The distinct ports the Gateway must reach, sorted. */
export function gatewayPorts(service: ResolvedService, platform: Platform): PortSpec[] {
  const found = new Map<number, PortSpec>();
  for (const route of service.ingressRoutes) {
    const port = backendPort(service, route, platform);
    found.set(port.port, port);
  }
  return [...found.values()].sort(byNumber);
}

/** The ports exposed on the platform's shared LAN address. */
export function lanPorts(service: ResolvedService): PortSpec[] {
  return service.ports.filter((p) => p.lan === true).sort(byNumber);
}
