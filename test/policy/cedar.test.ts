// Differential test: our authorizer against Cedar on generated identity × route authorization
// sets. Both read the same generated specification; neither sees the other's output.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ask, model } from './helpers.js';
import { SA_ID, cedarContext, cedarEntities, cedarPolicies, linkerdYaml } from './cedar-oracle.js';
import type { AuthzSpec } from './cedar-oracle.js';
import type * as CedarModule from '@cedar-policy/cedar-wasm/nodejs';
import { skipOrFail } from '../support/capabilities.js';

type Cedar = typeof CedarModule;

let cedar: Cedar | undefined;
let loadError: string | undefined;
try {
  cedar = await import('@cedar-policy/cedar-wasm/nodejs');
} catch (error) {
  loadError = (error as Error).message;
}

const identityPool = [
  SA_ID('web'),
  SA_ID('books'),
  SA_ID('authors'),
  'web.other.serviceaccount.identity.linkerd.cluster.local',
  'spiffe://example.org/ns/ns/sa/web',
  'spiffe://example.org/ns/ns/sa/webx',
];
const patternArb = fc.constantFrom(
  '*',
  '*.ns.serviceaccount.identity.linkerd.cluster.local',
  '*.cluster.local',
  '*.other.serviceaccount.identity.linkerd.cluster.local',
  SA_ID('web'),
  SA_ID('books'),
  'spiffe://example.org/ns/ns/sa/web',
);
const netArb = fc
  .record({
    cidr: fc.constantFrom('10.0.0.0/8', '10.1.0.0/16', '192.168.0.0/16', 'fd00::/8', '0.0.0.0/0'),
    except: fc.constantFrom([], ['10.1.2.0/24']),
  })
  .filter(
    (n) =>
      n.except.length === 0 ||
      n.cidr === '10.0.0.0/8' ||
      n.cidr === '10.1.0.0/16' ||
      n.cidr === '0.0.0.0/0',
  );
const authzArb = (routes: number): fc.Arbitrary<AuthzSpec> =>
  fc
    .record({
      target: fc.oneof(fc.constant('server' as const), fc.integer({ min: 0, max: routes - 1 })),
      identities: fc.option(fc.array(patternArb, { minLength: 1, maxLength: 3 }), {
        nil: undefined,
      }),
      serviceAccount: fc.option(fc.constantFrom('web', 'books'), { nil: undefined }),
      networks: fc.option(fc.array(netArb, { minLength: 1, maxLength: 2 }), { nil: undefined }),
    })
    // Linkerd's admission refuses a MeshTLSAuthentication together with a ServiceAccount.
    .filter((a) => a.identities === undefined || a.serviceAccount === undefined)
    .map(
      (a) =>
        Object.fromEntries(
          Object.entries(a).filter(([, v]) => v !== undefined),
        ) as unknown as AuthzSpec,
    );
const scenarioArb = fc.integer({ min: 1, max: 4 }).chain((routes) =>
  fc.record({
    routes: fc.constant(routes),
    authz: fc.array(authzArb(routes), { maxLength: 6 }),
    requests: fc.array(
      fc.record({
        route: fc.integer({ min: 0, max: routes - 1 }),
        identity: fc.option(fc.constantFrom(...identityPool), { nil: undefined }),
        ip: fc.constantFrom(
          '10.1.2.3',
          '10.1.3.3',
          '10.200.0.1',
          '192.168.7.7',
          '8.8.8.8',
          'fd00::5',
          '2001:db8::1',
          '127.0.0.1',
        ),
      }),
      { minLength: 1, maxLength: 8 },
    ),
  }),
);

test('authorizer ≡ Cedar on generated authorization sets', (t) => {
  const missing =
    cedar === undefined
      ? `@cedar-policy/cedar-wasm did not load: ${loadError ?? 'unknown'}`
      : undefined;
  if (skipOrFail(t, 'cedar', missing) || cedar === undefined) return;
  const engine = cedar;
  let allows = 0;
  let denies = 0;
  fc.assert(
    fc.property(scenarioArb, (s) => {
      const m = model(linkerdYaml(s.routes, s.authz));
      const policies = cedarPolicies(s.authz);
      for (const r of s.requests) {
        const fast = ask(m, {
          path: `/r${r.route}`,
          clientIp: r.ip,
          ...(r.identity === undefined ? {} : { identity: r.identity }),
          trace: false,
        });
        const ours = ask(m, {
          path: `/r${r.route}`,
          clientIp: r.ip,
          ...(r.identity === undefined ? {} : { identity: r.identity }),
        });
        const answer = engine.isAuthorized({
          principal: { type: 'Client', id: 'c' },
          action: { type: 'Action', id: 'request' },
          resource: { type: 'Route', id: `r${r.route}` },
          context: cedarContext(r.ip, r.identity) as never,
          policies: { staticPolicies: policies },
          entities: cedarEntities(s.routes),
        });
        assert.equal(answer.type, 'success', JSON.stringify(answer));
        if (answer.type !== 'success') return;
        assert.equal(
          ours.decision === 'allow' ? 'allow' : 'deny',
          answer.response.decision,
          `${policies}\n${JSON.stringify(r)}\n${ours.trace.join('\n')}`,
        );
        // The untraced fast path decides exactly like the traced one.
        assert.deepEqual({ ...fast, trace: [] }, { ...ours, trace: [] });
        assert.deepEqual(fast.trace, []);
        if (ours.decision === 'allow') allows++;
        else denies++;
      }
    }),
    { numRuns: 300 },
  );
  // Both outcomes must be exercised, or the comparison proves little.
  assert.ok(allows > 50 && denies > 50, `allows ${allows}, denies ${denies}`);
});
