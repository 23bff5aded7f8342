/**
 * Objects Linkerd admits but never applies, reported so the user is not left guessing: a
 * ServerAuthorization its index drops (it authorizes no client), and an HTTPLocalRateLimitPolicy
 * that is not in force (its Server does not exist, another policy on that Server is, or the
 * Server is not HTTP, where the proxy applies no HTTP rate limit).
 */
import { objectName } from '../resources/read-context.js';
import type { PolicyProblem, PolicyResources, Server } from '../types.js';
import { key } from './object-key.js';
import { chooseRateLimit } from './rate-limits.js';

export function droppedObjectProblems(
  resources: PolicyResources,
  servers: ReadonlyMap<string, Server>,
): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  for (const sa of resources.serverAuthorizations) {
    if (sa.droppedBecause === undefined) continue;
    out.push({
      severity: 'warning',
      code: 'POLICY_SERVER_AUTHORIZATION_DROPPED',
      object: objectName(sa.meta),
      file: sa.meta.at.file,
      line: sa.meta.at.line,
      message: `Linkerd admits this ServerAuthorization but its index drops it: ${sa.droppedBecause}`,
      hint: 'set client.unauthenticated: true, or name identities or serviceAccounts under client.meshTLS',
    });
  }
  const policies = resources.rateLimitPolicies ?? [];
  for (const rl of policies) {
    const server = servers.get(key(rl.meta.namespace, rl.server));
    const base = {
      severity: 'warning' as const,
      object: objectName(rl.meta),
      file: rl.meta.at.file,
      line: rl.meta.at.line,
    };
    if (server === undefined) {
      out.push({
        ...base,
        code: 'POLICY_TARGET_MISSING',
        message: `target Server ${rl.meta.namespace}/${rl.server} does not exist, so this rate limit limits nothing`,
      });
      continue;
    }
    const chosen = chooseRateLimit(policies, server);
    let why: string | undefined;
    if (chosen !== rl)
      why =
        chosen === undefined
          ? 'its status says it is not Accepted'
          : `${objectName(chosen.meta)} is in force on Server ${server.meta.name} (one per Server: the accepted one, else the oldest)`;
    else if (
      server.proxyProtocol === 'gRPC' ||
      server.proxyProtocol === 'opaque' ||
      server.proxyProtocol === 'TLS'
    )
      why = `Server ${server.meta.name} is ${server.proxyProtocol}, and the proxy applies HTTP rate limits to HTTP Servers only`;
    if (why !== undefined)
      out.push({
        ...base,
        code: 'POLICY_RATE_LIMIT_UNUSED',
        message: `this rate limit is not in force: ${why}`,
      });
  }
  return out;
}
