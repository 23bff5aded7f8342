/**
 * Which ports a service exposes, decided once for the Service, the routes and the network policy
 * so they cannot disagree. With forward-auth on, the proxy's port replaces the app port it fronts: exposing an app port would let in-cluster clients bypass auth.
 */
import type { Platform, PortSpec, ResolvedService } from '../types.js';
import { AUTH_PORT_NAME } from './labels.js';

/**
 * The app port the forward-auth proxy forwards to: the routed port (every route of an auth
 * service targets one), or, for a service with no routes, its lowest-numbered TCP port.
 * Undefined when the service has no TCP port at all (an error for forward-auth).
 */
export function authUpstream(
  service: Pick<ResolvedService, 'ingressRoutes' | 'ports'>,
): PortSpec | undefined {
  return service.ingressRoutes[0]?.port ?? service.ports.find((p) => p.protocol === 'TCP');
}

/**
 * The app ports the forward-auth proxy fronts: the routed ones and the proxy's upstream (which
 * differ only for a service without routes). They are never exposed, on any protocol, or
 * in-cluster clients could bypass auth; the service's other ports (DNS on 53, a separate
 * metrics port) are.
 */
export function frontedPorts(
  service: Pick<ResolvedService, 'ingressRoutes' | 'ports'>,
): Set<number> {
  const fronted = new Set(service.ingressRoutes.map((r) => r.port.port));
  const upstream = authUpstream(service);
  if (upstream !== undefined) fronted.add(upstream.port);
  return fronted;
}

/** The ports of the Service, sorted by number then protocol. */
export function servicePorts(service: ResolvedService, platform: Platform): PortSpec[] {
  if (service.auth.mode !== 'forward-auth') return [...service.ports];
  const fronted = frontedPorts(service);
  const ports: PortSpec[] = [
    { name: AUTH_PORT_NAME, port: platform.forwardAuth.port, protocol: 'TCP' },
    ...service.ports.filter((p) => !fronted.has(p.port)),
  ];
  return ports.sort((a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : 1));
}

/** The Service port a route's backend points at: the proxy's when auth is on, else the app's. */
export function backendPort(
  service: ResolvedService,
  route: { port: PortSpec },
  platform: Platform,
): PortSpec {
  if (service.auth.mode === 'forward-auth') {
    return { name: AUTH_PORT_NAME, port: platform.forwardAuth.port, protocol: 'TCP' };
  }
  return route.port;
}

/** The distinct ports the Gateway must reach, sorted. */
export function gatewayPorts(service: ResolvedService, platform: Platform): PortSpec[] {
  const byNumber = new Map<number, PortSpec>();
  for (const route of service.ingressRoutes) {
    const port = backendPort(service, route, platform);
    byNumber.set(port.port, port);
  }
  return [...byNumber.values()].sort((a, b) => a.port - b.port);
}
