/**
 * Which route hosts the shared Gateway can serve over TLS. It terminates with the platform's one
 * `*.<domain>` wildcard certificate, and a wildcard covers exactly one leftmost label (RFC 6125
 * § 6.4.3): `a.<domain>` is served, the apex `<domain>` and `a.b.<domain>` are not, and would
 * pass every check here and fail the TLS handshake in production. Pure.
 */
import { quote } from '../../base/errors.js';

export const WILDCARD_HINT =
  'use a host one label under the base domain (<name>.<domain>), or give this route certificate: own (a cert-manager Certificate and a Gateway listener of its own)';

/** Why the wildcard cannot serve `host` (already known to be under `domain`), or undefined. */
export function wildcardProblem(host: string, domain: string): string | undefined {
  if (host === domain)
    return `host ${quote(host)} is the base domain itself, which the Gateway's wildcard certificate *.${domain} does not cover`;
  const label = host.slice(0, host.length - domain.length - 1);
  if (label.includes('.'))
    return `host ${quote(host)} is more than one label under ${quote(domain)}; the Gateway's wildcard certificate *.${domain} covers exactly one label, so TLS fails for it`;
  return undefined;
}
