/**
 * A definition's `ingressRoutes`: each host under the base domain, servable by the Gateway's
 * wildcard certificate, routed once, naming a TCP port of the service, and mapping to an
 * HTTPRoute name no other host maps to. Pure; reports through `fail`.
 */
import { quote } from '../../base/errors.js';
import { certificateName, certificateSecret, routeName } from '../render/labels.js';
import type { Platform, RouteSpec } from '../types.js';
import type { ServicePorts } from './ports.js';
import { WILDCARD_HINT, wildcardProblem } from './route-hosts.js';
import type { ReportProblem } from './storage.js';

const obj = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
const hostOf = (entry: unknown): string => String(obj(entry).host);

/**
 * A host outside the base domain, or one the wildcard certificate cannot serve and that has no
 * certificate of its own.
 */
function checkHost(
  host: string,
  i: number,
  own: boolean,
  platform: Platform,
  fail: ReportProblem,
): void {
  const path = ['ingressRoutes', i, 'host'];
  if (host !== platform.domain && !host.endsWith(`.${platform.domain}`)) {
    fail(
      'CATALOG_ROUTE_HOST',
      path,
      `host ${quote(host)} is not under the base domain ${quote(platform.domain)}`,
    );
    return;
  }
  const problem = own ? undefined : wildcardProblem(host, platform.domain);
  if (problem !== undefined) fail('CATALOG_ROUTE_CERTIFICATE', path, problem, WILDCARD_HINT);
}

/**
 * A route with its own certificate: the platform must name the issuer, and the operator adds the
 * route's listener to the shared Gateway, which is the platform's object and never rendered here.
 */
function ownCertificate(
  host: string,
  i: number,
  platform: Platform,
  report: { readonly fail: ReportProblem; readonly warn: ReportProblem },
): void {
  const path = ['ingressRoutes', i, 'certificate'];
  if (platform.gateway.certificateIssuer === undefined) {
    report.fail(
      'CATALOG_CERTIFICATE_ISSUER',
      path,
      `host ${quote(host)} asks for its own certificate, and platform.yaml names no gateway.certificateIssuer to issue it`,
      'set gateway.certificateIssuer (kind, name) in platform.yaml, or route a host the wildcard serves',
    );
    return;
  }
  const name = certificateName(host);
  report.warn(
    'CATALOG_GATEWAY_LISTENER',
    path,
    `host ${quote(host)} is served by its own certificate (Secret ${quote(certificateSecret(host))} in ${platform.gateway.namespace}) only once the shared Gateway ${platform.gateway.namespace}/${platform.gateway.name} has the listener ${quote(name)}, which nothing renders`,
    `add to the Gateway's listeners: { name: ${name}, hostname: ${host}, protocol: HTTPS, port: 443, tls: { mode: Terminate, certificateRefs: [{ name: ${certificateSecret(host)} }] }, allowedRoutes: { namespaces: { from: All } } }`,
  );
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
  report: { readonly fail: ReportProblem; readonly warn: ReportProblem },
): RouteSpec[] {
  const { fail } = report;
  const routes: RouteSpec[] = [];
  const hosts = new Set<string>();
  rawRoutes.forEach((entry, i) => {
    const host = hostOf(entry);
    const own = obj(entry).certificate === 'own';
    checkHost(host, i, own, platform, fail);
    if (own) ownCertificate(host, i, platform, report);
    if (hosts.has(host))
      fail(
        'CATALOG_ROUTE_HOST',
        ['ingressRoutes', i, 'host'],
        `host ${quote(host)} is routed twice`,
      );
    hosts.add(host);
    const port = ports.find(obj(entry).port, ['ingressRoutes', i, 'port']);
    if (port !== undefined) routes.push({ host, port, ...(own ? { ownCertificate: true } : {}) });
  });
  routes.sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
  checkRouteNames(rawRoutes, platform, fail);
  return routes;
}
