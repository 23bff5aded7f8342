/**
 * A definition's `ingressRoutes`: each host under the base domain, servable by the Gateway's
 * wildcard certificate, routed once, naming a TCP port of the service, and mapping to an
 * HTTPRoute name no other host maps to. Pure; reports through `fail`.
 */
import { quote } from '../../base/errors.js';
import { routeName } from '../render/labels.js';
import type { Platform, RouteSpec } from '../types.js';
import type { ServicePorts } from './ports.js';
import { WILDCARD_HINT, wildcardProblem } from './route-hosts.js';
import type { ReportProblem } from './storage.js';

const obj = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
const hostOf = (entry: unknown): string => String(obj(entry).host);

/** A host outside the base domain, or one the wildcard certificate cannot serve. */
function checkHost(host: string, i: number, platform: Platform, fail: ReportProblem): void {
  const path = ['ingressRoutes', i, 'host'];
  if (host !== platform.domain && !host.endsWith(`.${platform.domain}`)) {
    fail(
      'CATALOG_ROUTE_HOST',
      path,
      `host ${quote(host)} is not under the base domain ${quote(platform.domain)}`,
    );
    return;
  }
  const problem = wildcardProblem(host, platform.domain);
  if (problem !== undefined) fail('CATALOG_ROUTE_CERTIFICATE', path, problem, WILDCARD_HINT);
}

/** Route objects are named after their host; two hosts must not map to one name. */
function checkRouteNames(rawRoutes: readonly unknown[], platform: Platform, fail: ReportProblem) {
  const routeNames = new Map<string, string>();
  rawRoutes.forEach((entry, i) => {
    const host = hostOf(entry);
    const routeObject = routeName(host, platform);
    const other = routeNames.get(routeObject);
    if (other !== undefined && other !== host) {
      fail(
        'CATALOG_ROUTE_NAME',
        ['ingressRoutes', i, 'host'],
        `hosts ${quote(other)} and ${quote(host)} both name the HTTPRoute ${quote(routeObject)}`,
      );
    }
    routeNames.set(routeObject, host);
  });
}

/** The routes as written, resolved against the service's ports; sorted by host. */
export function resolveRoutes(
  rawRoutes: readonly unknown[],
  ports: ServicePorts,
  platform: Platform,
  fail: ReportProblem,
): RouteSpec[] {
  const routes: RouteSpec[] = [];
  const hosts = new Set<string>();
  rawRoutes.forEach((entry, i) => {
    const host = hostOf(entry);
    checkHost(host, i, platform, fail);
    if (hosts.has(host))
      fail(
        'CATALOG_ROUTE_HOST',
        ['ingressRoutes', i, 'host'],
        `host ${quote(host)} is routed twice`,
      );
    hosts.add(host);
    const port = ports.find(obj(entry).port, ['ingressRoutes', i, 'port']);
    if (port !== undefined) routes.push({ host, port });
  });
  routes.sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
  checkRouteNames(rawRoutes, platform, fail);
  return routes;
}
