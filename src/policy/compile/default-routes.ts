/**
 * The routes Linkerd synthesizes for a Server (or default server) without routes: `default`
 * (PathPrefix `/`, the Server's authorizations only) and, when the pod has HTTP probes on the
 * port and probe networks are set, `probe` (GET on the exact probe paths, authorized for
 * unauthenticated clients from the probe networks). Attaching any route removes both.
 */
import type { AppliedTimeout, CompiledRoute } from '../routes/route-table.js';
import type { HeaderRewritePolicy } from '../types.js';
import type { Authorization } from './authorizations.js';

export function defaultRoutes(
  probePaths: readonly string[],
  probe: Authorization,
  timeouts: readonly AppliedTimeout[],
  rewrites: readonly HeaderRewritePolicy[],
): CompiledRoute[] {
  const routes: CompiledRoute[] = [
    {
      name: 'default',
      kind: 'default',
      created: '',
      hostnames: [],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: '/' }, headers: [], queryParams: [] }],
          filters: [],
        },
      ],
      labels: Object.create(null),
      authorizations: [],
      timeouts,
      rewrites,
    },
  ];
  if (probePaths.length > 0) {
    routes.push({
      name: 'probe',
      kind: 'probe',
      created: '',
      hostnames: [],
      rules: [
        {
          matches: probePaths.map((value) => ({
            path: { type: 'Exact' as const, value },
            headers: [],
            queryParams: [],
            method: 'GET',
          })),
          filters: [],
        },
      ],
      labels: Object.create(null),
      authorizations: [probe],
      timeouts,
      rewrites,
    });
  }
  return routes;
}

/**
 * The route Linkerd gives a gRPC Server without GRPCRoutes: one rule matching any
 * `POST /<service>/<method>`, authorized by the Server alone. There is no probe route (probes
 * are HTTP/1 GETs, which a gRPC Server's routes never match).
 */
export function defaultGrpcRoute(
  timeouts: readonly AppliedTimeout[],
  rewrites: readonly HeaderRewritePolicy[],
): CompiledRoute {
  return {
    name: 'default',
    kind: 'default',
    created: '',
    hostnames: [],
    rules: [
      {
        matches: [
          {
            path: { type: 'Exact', value: '/*/*' },
            headers: [],
            queryParams: [],
            method: 'POST',
            grpc: {},
          },
        ],
        filters: [],
      },
    ],
    labels: Object.create(null),
    authorizations: [],
    timeouts,
    rewrites,
  };
}
