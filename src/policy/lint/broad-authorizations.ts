/**
 * Server-level authorizations broader than the routes need. An authorization on a Server
 * reaches every route of it (a route can never be stricter than its Server), so granting a
 * client the Server when its routes carry narrower policies of their own hands the client the
 * routes those policies keep from it — `DELETE /authors/*` to a client that only reads. Reported
 * where some route's own authorizations admit neither more nor less than it (when they admit
 * less, `POLICY_ROUTE_POLICY_NO_EFFECT` already says the route policy is moot).
 */
import type { Authorization } from '../compile/authorizations.js';
import type { PolicyModel } from '../compile/model.js';
import type { CompiledRoute } from '../routes/route-table.js';
import type { PolicyProblem } from '../types.js';
import { authorizationCovers } from './lint-routes.js';

function objectOf(authz: Authorization, namespace: string): string {
  const slash = authz.name.indexOf('/');
  return `${authz.kind} ${namespace}/${authz.name.slice(slash + 1)}`;
}

function methodsOf(route: CompiledRoute): string {
  const methods = new Set<string>();
  for (const rule of route.rules) for (const m of rule.matches) methods.add(m.method ?? '*');
  if (route.template !== undefined)
    for (const m of route.template.methods.length === 0 ? ['*'] : route.template.methods)
      methods.add(m);
  return [...methods].sort().join(', ') || '*';
}

export function lintBroadAuthorizations(model: PolicyModel): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  for (const server of model.resources.servers) {
    const serverModel = model.serverModel(server);
    if (serverModel.routes.length === 0) continue;
    for (const authz of serverModel.authorizations) {
      if (authz.kind !== 'AuthorizationPolicy' && authz.kind !== 'ServerAuthorization') continue;
      const narrower = serverModel.routes.filter(
        (route) =>
          route.authorizations.length > 0 &&
          route.authorizations.every(
            (own) => !authorizationCovers(own, authz) && !authorizationCovers(authz, own),
          ),
      );
      if (narrower.length === 0) continue;
      const shown = narrower
        .slice(0, 3)
        .map((r) => `${r.name} (${methodsOf(r)})`)
        .join(', ');
      out.push({
        severity: 'warning',
        code: 'POLICY_AUTHZ_BROADER_THAN_ROUTES',
        object: objectOf(authz, server.meta.namespace),
        file: authz.at?.file,
        line: authz.at?.line,
        message: `${authz.name} authorizes its clients on Server ${server.meta.name}, so on every one of its ${serverModel.routes.length} route(s), including ${shown}${narrower.length > 3 ? ` and ${narrower.length - 3} more` : ''}, which admit other clients by their own policies`,
        hint: 'authorize the client on the routes it needs (an AuthorizationPolicy targeting those HTTPRoutes) instead of the whole Server',
      });
    }
  }
  return out;
}
