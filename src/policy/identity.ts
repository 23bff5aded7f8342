/**
 * Client identities. Linkerd identities are DNS-like names
 * (`<sa>.<ns>.serviceaccount.identity.<control-plane-ns>.<domain>`); SPIFFE URIs
 * (`spiffe://…`) also appear. Matching (docs/policy.md, "How a request is decided"): `*` is any authenticated DNS-style identity,
 * `*.suffix` any identity ending in `.suffix`, anything else exact; a SPIFFE URI only ever
 * matches itself.
 */
import type { ClusterSettings } from './types.js';

const DNS_LIKE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const TRUST_DOMAIN = /^[a-z0-9._-]+$/;
const PATH_SEGMENT = /^[A-Za-z0-9._-]+$/;

/** Why a SPIFFE ID is malformed (Linkerd's admission rules), or undefined. */
function spiffeProblem(id: string): string | undefined {
  const rest = id.slice('spiffe://'.length);
  const slash = rest.indexOf('/');
  const domain = slash < 0 ? rest : rest.slice(0, slash);
  if (domain === '') return `${JSON.stringify(id)}: the SPIFFE trust domain is missing`;
  if (!TRUST_DOMAIN.test(domain))
    return `${JSON.stringify(id)}: SPIFFE trust domain characters are limited to lowercase letters, digits, dots, dashes and underscores`;
  if (slash < 0) return undefined;
  const segments = rest.slice(slash + 1).split('/');
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string;
    if (segment === '')
      return i === segments.length - 1
        ? `${JSON.stringify(id)}: a SPIFFE path cannot have a trailing slash`
        : `${JSON.stringify(id)}: a SPIFFE path cannot contain empty segments`;
    if (segment === '.' || segment === '..')
      return `${JSON.stringify(id)}: a SPIFFE path cannot contain dot segments ("." or "..")`;
    if (!PATH_SEGMENT.test(segment))
      return `${JSON.stringify(id)}: SPIFFE path segment characters are limited to letters, digits, dots, dashes and underscores`;
  }
  return undefined;
}

/** Why an identity pattern is malformed, or undefined when it is fine. */
export function identityProblem(pattern: string): string | undefined {
  if (pattern === '*') return undefined;
  if (pattern.startsWith('spiffe://')) {
    return spiffeProblem(pattern);
  }
  const name = pattern.startsWith('*.') ? pattern.slice(2) : pattern;
  if (name.includes('*'))
    return `${JSON.stringify(pattern)} may use "*" only as a whole first label ("*" or "*.suffix")`;
  if (name.length > 253 || !DNS_LIKE.test(name)) {
    return `${JSON.stringify(pattern)} is not a DNS-like identity (lowercase letters, digits, "-" and ".")`;
  }
  return undefined;
}

/** The identity of a ServiceAccount's workloads. */
export function serviceAccountIdentity(
  name: string,
  namespace: string,
  settings: ClusterSettings,
): string {
  return `${name}.${namespace}.serviceaccount.identity.${settings.controlPlaneNamespace}.${settings.identityDomain}`;
}

/** The suffix every identity of a namespace ends in. */
export function namespaceIdentitySuffix(namespace: string, settings: ClusterSettings): string {
  return `${namespace}.serviceaccount.identity.${settings.controlPlaneNamespace}.${settings.identityDomain}`;
}

/** A compiled set of identity patterns. */
export interface IdentityMatcher {
  readonly any: boolean;
  readonly exact: ReadonlySet<string>;
  /** Suffixes without the leading `*.`; a match needs `identity` to end in `.` + suffix. */
  readonly suffixes: readonly string[];
  /** The patterns as written, sorted, for output. */
  readonly patterns: readonly string[];
}

export function compileIdentities(patterns: readonly string[]): IdentityMatcher {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  let any = false;
  for (const pattern of patterns) {
    if (pattern === '*') any = true;
    else if (pattern.startsWith('*.')) suffixes.push(pattern.slice(2));
    else exact.add(pattern);
  }
  return { any, exact, suffixes, patterns: [...new Set(patterns)].sort() };
}

/** Does an authenticated client with `identity` match? HOT PATH: no allocation. */
export function identityMatches(matcher: IdentityMatcher, identity: string): boolean {
  if (matcher.exact.has(identity)) return true;
  // SPIFFE IDs are URIs, not DNS names: wildcards never reach them.
  if (identity.startsWith('spiffe://')) return false;
  if (matcher.any) return true;
  for (let i = 0; i < matcher.suffixes.length; i++) {
    const suffix = matcher.suffixes[i] as string;
    if (
      identity.length > suffix.length + 1 &&
      identity.endsWith(suffix) &&
      identity.charCodeAt(identity.length - suffix.length - 1) === 46
    )
      return true;
  }
  return false;
}

/** The pattern of `matcher` that admits `identity`, for traces; undefined when none does. */
export function matchingPattern(matcher: IdentityMatcher, identity: string): string | undefined {
  if (!identityMatches(matcher, identity)) return undefined;
  if (matcher.exact.has(identity)) return identity;
  if (matcher.any) return '*';
  return `*.${matcher.suffixes.find((s) => identity.endsWith(`.${s}`)) ?? ''}`;
}
