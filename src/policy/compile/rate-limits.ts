/**
 * HTTPLocalRateLimitPolicy as the proxy applies it. Which policy is in force on a Server: where
 * the policies carry status, the one marked Accepted; otherwise the oldest (then by name), as
 * Linkerd's status controller picks. The proxy checks, after authorization and filters: the
 * total budget; then, for a client identity with an override, that override only; otherwise the
 * per-identity budget (unauthenticated clients share one). Exceeding any answers 429.
 */
import { serviceAccountIdentity } from '../identity.js';
import { compareRoutes } from '../routes/route-table.js';
import type { ClusterSettings, RateLimitPolicy, Server } from '../types.js';

export interface CompiledRateLimit {
  /** `httplocalratelimitpolicy/<name>`. */
  readonly name: string;
  readonly total?: number;
  readonly identity?: number;
  readonly overrides: readonly {
    readonly requestsPerSecond: number;
    readonly identities: readonly string[];
  }[];
}

/** Which budget a request exceeds, or undefined when it is within every one. */
export interface RateLimitHit {
  readonly limit: 'total' | 'identity' | 'override';
  readonly requestsPerSecond: number;
}

/** The policy in force on `server` among `policies`, or undefined when none is. */
export function chooseRateLimit(
  policies: readonly RateLimitPolicy[],
  server: Server,
): RateLimitPolicy | undefined {
  const list = policies.filter(
    (p) => p.meta.namespace === server.meta.namespace && p.server === server.meta.name,
  );
  if (list.length === 0) return undefined;
  const withStatus = list.filter((p) => p.accepted !== undefined);
  return withStatus.length > 0
    ? withStatus.find((p) => p.accepted === true)
    : [...list].sort((a, b) =>
        compareRoutes(
          { created: a.meta.created, name: a.meta.name },
          { created: b.meta.created, name: b.meta.name },
        ),
      )[0];
}

export function rateLimitFor(
  policies: readonly RateLimitPolicy[],
  server: Server,
  settings: ClusterSettings,
): CompiledRateLimit | undefined {
  const chosen = chooseRateLimit(policies, server);
  if (chosen === undefined) return undefined;
  return {
    name: `httplocalratelimitpolicy/${chosen.meta.name}`,
    ...(chosen.total === undefined ? {} : { total: chosen.total }),
    ...(chosen.identity === undefined ? {} : { identity: chosen.identity }),
    overrides: chosen.overrides.map((o) => ({
      requestsPerSecond: o.requestsPerSecond,
      identities: o.clients.map((c) => serviceAccountIdentity(c.name, c.namespace, settings)),
    })),
  };
}

/**
 * Does a client sending `rate` requests per second (all clients together: `totalRate`) exceed
 * a budget? Steady rates, as a token bucket sees them in the long run: a budget of N admits N
 * per second.
 */
export function exceededLimit(
  limit: CompiledRateLimit,
  identity: string | undefined,
  rate: number,
  totalRate: number,
): RateLimitHit | undefined {
  if (limit.total !== undefined && totalRate > limit.total)
    return { limit: 'total', requestsPerSecond: limit.total };
  const override =
    identity === undefined
      ? undefined
      : limit.overrides.find((o) => o.identities.includes(identity));
  if (override !== undefined)
    return rate > override.requestsPerSecond
      ? { limit: 'override', requestsPerSecond: override.requestsPerSecond }
      : undefined;
  if (limit.identity !== undefined && rate > limit.identity)
    return { limit: 'identity', requestsPerSecond: limit.identity };
  return undefined;
}
