/**
 * Which authorization admits a client: the hot check (`admits`), the words for a refusal
 * (`authorizationFailure`), and the ordered walk `authorize` uses (`firstAdmitting`).
 */
import type { Authorization } from './compile/authorizations.js';
import { identityMatches } from './identity.js';
import type { IdentityMatcher } from './identity.js';
import { networksAdmit, parseAddress } from './networks.js';
import type { Address } from './networks.js';
import type { IgnoredPolicy } from './routes/route-table.js';

/** The client side of a request. */
export interface Client {
  /** Parsed client address; see {@link parseAddress}. */
  readonly address: Address;
  /** The client's mTLS identity; undefined for an unauthenticated (plaintext) client. */
  readonly identity?: string;
}

/** Adds one trace line; undefined when no trace is built (then no string is built either). */
export type Note = ((line: string) => void) | undefined;

/** Why `authz` does not admit `client`, or undefined when it does. */
export function authorizationFailure(authz: Authorization, client: Client): string | undefined {
  if (!networksAdmit(authz.networks, client.address)) {
    return `client address is outside ${authz.networkSpecs.map((n) => n.cidr + (n.except.length > 0 ? ` (except ${n.except.join(', ')})` : '')).join(', ')}`;
  }
  const authn = authz.authentication;
  if (authn === 'unauthenticated') return undefined;
  if (client.identity === undefined)
    return authn === 'tls'
      ? 'client has no TLS identity'
      : `client is unauthenticated; needs an identity matching ${describeMatchers(authn)}`;
  if (authn === 'tls') return undefined;
  for (const matcher of authn) {
    if (!identityMatches(matcher, client.identity))
      return `identity ${client.identity} does not match ${matcher.patterns.join(', ') || '(no identities)'}`;
  }
  return undefined;
}

function describeMatchers(matchers: readonly IdentityMatcher[]): string {
  return matchers.map((m) => m.patterns.join(', ') || '(no identities)').join(' and ');
}

/** Does `authz` admit `client`? HOT PATH: no allocation. */
export function admits(authz: Authorization, client: Client): boolean {
  if (!networksAdmit(authz.networks, client.address)) return false;
  const authn = authz.authentication;
  if (authn === 'unauthenticated') return true;
  if (client.identity === undefined) return false;
  if (authn === 'tls') return true;
  for (let i = 0; i < authn.length; i++)
    if (!identityMatches(authn[i] as IdentityMatcher, client.identity)) return false;
  return true;
}

/** The first authorization of `list` that admits the client, noting each one tried. */
export function firstAdmitting(
  list: readonly Authorization[],
  client: Client,
  note: Note,
  level: string,
): Authorization | undefined {
  for (let i = 0; i < list.length; i++) {
    const authz = list[i] as Authorization;
    if (admits(authz, client)) {
      note?.(`authorization: ${authz.name} (${level}) admits the client`);
      return authz;
    }
    note?.(
      `authorization: ${authz.name} (${level}) does not admit: ${authorizationFailure(authz, client) ?? 'unknown'}`,
    );
  }
  return undefined;
}

/** Trace lines for dropped policies: they were never candidates, so say why they admit nobody. */
export function noteIgnored(
  ignored: readonly IgnoredPolicy[] | undefined,
  level: string,
  note: (line: string) => void,
): void {
  for (const i of ignored ?? [])
    note(
      `authorization: ${i.name} (${level}) is ignored and admits nobody: ${i.reason} (Linkerd drops such a policy silently)`,
    );
}

/** Parses a client IP for `authorize`; undefined when malformed. */
export function parseClient(ip: string, identity?: string): Client | undefined {
  const address = parseAddress(ip);
  if (address === undefined) return undefined;
  return identity === undefined || identity === '' ? { address } : { address, identity };
}
