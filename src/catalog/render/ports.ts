/**
 * Which ports a service exposes, decided once for the Service, the routes and the network policy
 * so they cannot disagree. With forward-auth on, the proxy's port replaces the app port it fronts: exposing an app port would let in-cluster clients bypass auth.
 */
import type { Platform, PortSpec, ResolvedService } from '../types.js';
import { AUTH_PORT_NAME } from './labels.js';

/**
 * The app ports the forward-auth proxy fronts: the routed ones. They are never exposed, on any
 * protocol; the service's other ports (DNS on 53, a separate metrics port) are.
 */
export function frontedPorts(service: ResolvedService): Set<number> {
  return new Set(service.ingressRoutes.map((r) => r.port.port));
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
