// The gRPC method matcher against a naive reference of the proxy's rule (split the path at
// "/": an empty first part, then the service and the method segments), and the route table's
// indexed lookup against its scan on gRPC routes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { makeRequest } from '../../src/policy/index.js';
import { RouteTable, grpcMatch } from '../../src/policy/routes/route-table.js';
import type { CompiledRoute } from '../../src/policy/routes/route-table.js';
import type { RouteMatchSpec } from '../../src/policy/types.js';

const segment = fc.constantFrom('', 'a', 'foo', 'bar', 'pkg.Books', 'Get', 'a.b');
const pathArb = fc
  .array(segment, { minLength: 0, maxLength: 4 })
  .map((parts) => `/${parts.join('/')}`);
const rpcArb = fc.record(
  {
    service: fc.constantFrom('a', 'foo', 'pkg.Books', 'a.b'),
    method: fc.constantFrom('bar', 'Get', 'a'),
  },
  { requiredKeys: [] },
);

function spec(rpc: { service?: string; method?: string }): RouteMatchSpec {
  return {
    path: { type: 'Exact', value: `/${rpc.service ?? '*'}/${rpc.method ?? '*'}` },
    headers: [],
    queryParams: [],
    method: 'POST',
    grpc: rpc,
  };
}

function reference(
  rpc: { service?: string; method?: string },
  path: string,
): [number, number] | undefined {
  const parts = path.split('/');
  if (parts[0] !== '' || parts.length < 3) return undefined;
  if (rpc.service !== undefined && parts[1] !== rpc.service) return undefined;
  if (rpc.method !== undefined && parts[2] !== rpc.method) return undefined;
  return [rpc.service?.length ?? 0, rpc.method?.length ?? 0];
}

test('grpcMatch ≡ the split-path reference', () => {
  fc.assert(
    fc.property(rpcArb, pathArb, (rpc, path) => {
      assert.deepEqual(grpcMatch(spec(rpc), path), reference(rpc, path));
    }),
    { numRuns: 2000 },
  );
});

function route(
  name: string,
  order: number,
  rules: { service?: string; method?: string }[][],
): CompiledRoute {
  return {
    name,
    kind: 'GRPCRoute',
    created: `2024-01-0${order + 1}T00:00:00.000Z`,
    hostnames: [],
    rules: rules.map((matches) => ({ matches: matches.map(spec), filters: [] })),
    labels: Object.create(null),
    authorizations: [],
    timeouts: [],
    rewrites: [],
  };
}

test('gRPC route lookup ≡ scan', () => {
  const routesArb = fc.array(
    fc.array(fc.array(rpcArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
    { minLength: 1, maxLength: 4 },
  );
  fc.assert(
    fc.property(routesArb, pathArb, fc.constantFrom('POST', 'GET'), (routes, path, method) => {
      const table = new RouteTable(routes.map((rules, i) => route(`r${i}`, i, rules)));
      const request = makeRequest({ method, path });
      const found = table.find(request, 'linkerd');
      const scanned = table.scan(request, 'linkerd');
      assert.deepEqual(
        found === null ? null : [found.route.name, found.rule, found.match, found.score],
        scanned === null ? null : [scanned.route.name, scanned.rule, scanned.match, scanned.score],
      );
      if (method === 'GET') assert.equal(found, null);
    }),
    { numRuns: 500 },
  );
});
