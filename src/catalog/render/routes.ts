/**
 * HTTPRoutes on the shared Gateway, one per `ingressRoutes` entry, for both exposures.
 *
 * An `internal` route carries ExternalDNS's own controller annotation set to `none`: ExternalDNS
 * skips any source whose controller annotation is present and not its own, before resolving any
 * hostname, so the route never becomes a public record. It is derived from `exposure` and
 * nothing else, so a definition that omits `exposure` inherits the opt-out too.
 */
import { HTTPRoute } from '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRoute';
import type { Platform, ResolvedService } from '../types.js';
import { certificateName, certificateSecret, commonLabels, routeName } from './labels.js';
import { backendPort } from './ports.js';

/** ExternalDNS's annotation prefixes: before v0.22.0, and from v0.22.0 on. */
export const EXTERNAL_DNS_PREFIXES = [
  'external-dns.alpha.kubernetes.io/',
  'external-dns.kubernetes.io/',
] as const;

/** The ExternalDNS annotations of a route: the opt-out for internal services, none for public. */
export function externalDnsAnnotations(
  service: Pick<ResolvedService, 'exposure'>,
  platform: Platform,
): Record<string, string> {
  if (service.exposure !== 'internal') return {};
  // ExternalDNS v0.22.0 changed its default prefix to `external-dns.kubernetes.io/` and reads no
  // other: the opt-out is written under both prefixes (and the platform's own), so it holds on
  // either version and through an upgrade.
  const prefixes = new Set([platform.externalDns.annotationPrefix, ...EXTERNAL_DNS_PREFIXES]);
  return Object.fromEntries([...prefixes].sort().map((prefix) => [`${prefix}controller`, 'none']));
}

export function routes(service: ResolvedService, platform: Platform): HTTPRoute[] {
  const annotations = externalDnsAnnotations(service, platform);
  return service.ingressRoutes.map(
    (route) =>
      new HTTPRoute({
        metadata: {
          name: routeName(route.host, platform),
          namespace: service.name,
          labels: commonLabels(service.name),
          ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
        },
        spec: {
          parentRefs: [
            {
              name: platform.gateway.name,
              namespace: platform.gateway.namespace,
              ...(route.ownCertificate === true
                ? { sectionName: certificateName(route.host) }
                : platform.gateway.listener !== undefined
                  ? { sectionName: platform.gateway.listener }
                  : {}),
            },
          ],
          hostnames: [route.host],
          rules: [
            {
              matches: [{ path: { type: 'PathPrefix', value: '/' } }],
              backendRefs: [
                { name: service.name, port: backendPort(service, route, platform).port },
              ],
            },
          ],
        },
      }),
  );
}

/**
 * The cert-manager Certificate of each route with `certificate: own`. It is rendered in the
 * Gateway's namespace, so the listener that presents its Secret needs no ReferenceGrant; the
 * listener itself is the platform's to add (docs/catalog.md § Route hosts and TLS).
 */
export function certificates(
  service: ResolvedService,
  platform: Platform,
): Record<string, unknown>[] {
  const issuer = platform.gateway.certificateIssuer;
  if (issuer === undefined) return [];
  return service.ingressRoutes
    .filter((route) => route.ownCertificate === true)
    .map((route) => ({
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: {
        name: certificateName(route.host),
        namespace: platform.gateway.namespace,
        labels: commonLabels(service.name),
      },
      spec: {
        secretName: certificateSecret(route.host),
        dnsNames: [route.host],
        issuerRef: { group: 'cert-manager.io', kind: issuer.kind, name: issuer.name },
      },
    }));
}
