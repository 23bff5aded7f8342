// The outbound side of the matrix: where each client namespace's requests go. Expectations come
// from Linkerd's documentation of the behaviour (cited per test); every flow's witness is also
// routed by `policy route`'s own function and must land on the flow with the same outcome.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  OutboundIndex,
  compilePolicy,
  computeMatrix,
  flowNamespaces,
  flowSummary,
  loadPolicyDir,
  makeRequest,
  parseDestination,
  routeOutbound,
} from '../../src/policy/index.js';
import type { OutboundFlow, PolicyModel } from '../../src/policy/index.js';
import { cli } from './cli-helpers.js';
import { model } from './helpers.js';

const FIXTURE = fileURLToPath(new URL('fixtures/outbound', import.meta.url));

async function fixtureModel(): Promise<PolicyModel> {
  const loaded = await loadPolicyDir(FIXTURE);
  return compilePolicy(loaded.resources, {});
}

/** Every flow with a witness agrees with `routeOutbound` on it; returns how many were checked. */
function assertWitnessesAgree(m: PolicyModel, flows: readonly OutboundFlow[]): number {
  const index = new OutboundIndex(m.resources);
  let checked = 0;
  for (const f of flows) {
    const w = f.witness;
    if (w === undefined) continue;
    const [namespace, name] = w.from.split('/') as [string, string];
    const d = routeOutbound(index, {
      from: { namespace, name },
      to: parseDestination(w.to),
      request: makeRequest(w),
      settings: { clusterNetworks: m.settings.clusterNetworks },
    });
    assert.equal(d.route, f.route, `${f.id}: the witness takes ${d.route}\n${d.trace.join('\n')}`);
    assert.equal(d.rule, f.rule, f.id);
    assert.deepEqual(
      [
        d.decision,
        d.status,
        // An EgressNetwork sends to the address the request was sent to: the flow's own name.
        d.backends.map((b) => (b.name === w.to ? { ...b, name: '(original destination)' } : b)),
        d.timeouts,
        d.retry,
        d.circuitBreaker,
      ],
      [f.decision, f.status, f.backends, f.timeouts, f.retry, f.circuitBreaker],
      f.id,
    );
    assert.equal(d.egress?.allowed, f.egress?.allowed, f.id);
    checked++;
  }
  return checked;
}

const byId = (flows: readonly OutboundFlow[]): Record<string, string> =>
  Object.fromEntries(flows.map((f) => [f.id, flowSummary(f)]));

describe('policy matrix: outbound flows', () => {
  it('the booksapp canary: shares, timeouts, retries, failure accrual and egress', async () => {
    const m = await fixtureModel();
    const flows = computeMatrix(m).outbound;
    // Linkerd's traffic-splitting docs: a backendRef's share is its weight over the rule's
    // total. Timeouts docs: timeout.linkerd.io/request on the HTTPRoute applies to its rules;
    // retries docs: retry.linkerd.io/* on the Service applies to routes without their own.
    // Failure accrual is the Service's (balancer.linkerd.io/failure-accrual). Egress docs: a
    // Deny EgressNetwork answers 403 unless a route attached to it takes the request.
    const policies = 'retry 500-599 limit 2; circuit breaker consecutive after 5 failures (1s-1m)';
    assert.deepEqual(byId(flows), {
      'Service booksapp/books:7002 → booksapp/books-canary rule 0': `* /books/* → booksapp/books:7002 90%, booksapp/books-v2:7002 10%; timeouts request 5s; ${policies}`,
      'Service booksapp/books:7002 → booksapp/books-canary rule 1': `* /ping → booksapp/books:7002 100%; timeouts request 5s; ${policies}`,
      'Service booksapp/books:7002 → default':
        'every request no rule takes → 404 (no route rule matches); circuit breaker consecutive after 5 failures (1s-1m)',
      'EgressNetwork linkerd-egress/internet:80 → linkerd-egress/covers-api rule 0':
        'host covers.example.com: GET /* → (original destination) 100%, egress allowed',
      'EgressNetwork linkerd-egress/internet:80 → default':
        'every request no route takes → 403 (egress denied)',
      'EgressNetwork linkerd-egress/internet:* → default':
        'every request no route takes → 403 (egress denied)',
    });
    assert.ok(flows.every((f) => f.namespaces.join() === 'booksapp'));
    assert.equal(assertWitnessesAgree(m, flows), flows.length, 'every flow has a witness');
  });

  it('a consumer route applies to its own namespace only; the others share one flow list', () => {
    // Linkerd's HTTPRoute docs: a route in the Service's namespace (producer) applies to every
    // client, one in another namespace (consumer) only to clients in that namespace.
    const namespaces = Array.from({ length: 40 }, (_, i) => `team-${String(i).padStart(2, '0')}`);
    const pods = namespaces
      .map(
        (ns) => `apiVersion: v1
kind: Pod
metadata: { name: client, namespace: ${ns} }
spec: { containers: [{ name: c }] }
---
`,
      )
      .join('');
    const m = model(`${pods}apiVersion: v1
kind: Service
metadata: { name: api, namespace: shop }
spec: { ports: [{ port: 80 }] }
---
apiVersion: v1
kind: Service
metadata: { name: api-next, namespace: shop }
spec: { ports: [{ port: 80 }] }
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: try-next, namespace: team-07 }
spec:
  parentRefs: [{ group: core, kind: Service, name: api, namespace: shop, port: 80 }]
  rules:
    - backendRefs: [{ name: api-next, namespace: shop, port: 80 }]
`);
    const flows = computeMatrix(m).outbound;
    // The 39 namespaces without a consumer route share one flow, written as `*` but team-07.
    assert.deepEqual(
      flows.map((f) => [f.id, f.namespaces, f.except]),
      [
        ['Service shop/api:80 → default', ['*'], ['team-07']],
        ['Service shop/api:80 → team-07/try-next rule 0', ['team-07'], undefined],
      ],
    );
    const matrix = computeMatrix(m);
    assert.deepEqual(matrix.clientNamespaces, namespaces);
    assert.deepEqual(
      flowNamespaces(flows[0] as OutboundFlow, matrix.clientNamespaces),
      namespaces.filter((ns) => ns !== 'team-07'),
    );
    assert.equal(flows[1]?.backends[0]?.name, 'shop/api-next:80');
    assert.equal(assertWitnessesAgree(m, flows), 2);
    // -n limits the clients, not the parents.
    assert.deepEqual(
      computeMatrix(m, { namespace: 'team-07' }).outbound.map((f) => f.id),
      ['Service shop/api:80 → team-07/try-next rule 0'],
    );
  });

  it('what no rule takes differs for a namespace whose consumer route takes only part', () => {
    // Linkerd's HTTPRoute docs: with routes attached, a request no rule matches gets 404; a
    // Service without routes sends every request to itself (the default route).
    const m = model(`apiVersion: v1
kind: Pod
metadata: { name: client, namespace: a }
spec: { containers: [{ name: c }] }
---
apiVersion: v1
kind: Pod
metadata: { name: client, namespace: b }
spec: { containers: [{ name: c }] }
---
apiVersion: v1
kind: Service
metadata: { name: api, namespace: shop }
spec: { ports: [{ port: 80 }] }
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: v2-only, namespace: b }
spec:
  parentRefs: [{ group: core, kind: Service, name: api, namespace: shop, port: 80 }]
  rules: [{ matches: [{ path: { type: PathPrefix, value: /v2 } }] }]
`);
    const flows = computeMatrix(m).outbound;
    assert.deepEqual(
      flows.map((f) => [f.id, f.namespaces.join(), flowSummary(f)]),
      [
        ['Service shop/api:80 → default', 'a', 'every request → shop/api:80 100%'],
        ['Service shop/api:80 → b/v2-only rule 0', 'b', '* /v2/* → shop/api:80 100%'],
        [
          'Service shop/api:80 → default',
          'b',
          'every request no rule takes → 404 (no route rule matches)',
        ],
      ],
    );
    assert.equal(assertWitnessesAgree(m, flows), 3);
  });

  it("a namespace's own EgressNetwork replaces the global ones for its clients", () => {
    // Linkerd's egress docs: an EgressNetwork in the global egress namespace (linkerd-egress)
    // governs clients of every namespace that has none of its own.
    const m = model(`apiVersion: v1
kind: Pod
metadata: { name: a, namespace: open }
spec: { containers: [{ name: c }] }
---
apiVersion: v1
kind: Pod
metadata: { name: b, namespace: locked }
spec: { containers: [{ name: c }] }
---
apiVersion: policy.linkerd.io/v1alpha1
kind: EgressNetwork
metadata: { name: all, namespace: linkerd-egress }
spec: { trafficPolicy: Allow }
---
apiVersion: policy.linkerd.io/v1alpha1
kind: EgressNetwork
metadata: { name: none, namespace: locked }
spec: { trafficPolicy: Deny }
`);
    const flows = computeMatrix(m).outbound;
    assert.deepEqual(
      flows.map((f) => [f.id, f.namespaces.join(), f.decision, f.status, f.egress?.allowed]),
      [
        ['EgressNetwork linkerd-egress/all:* → default', 'open', 'route', null, true],
        ['EgressNetwork locked/none:* → default', 'locked', 'deny', 403, false],
      ],
    );
    assert.equal(assertWitnessesAgree(m, flows), 2);
  });

  it('the matrix text shows the outbound table', async () => {
    const r = await cli('matrix', FIXTURE);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /outbound: where the clients of each namespace send their requests/);
    assert.match(
      r.out,
      /booksapp +Service booksapp\/books:7002 +booksapp\/books-canary rule 0 +\* \/books\/\* +booksapp\/books:7002 90%, booksapp\/books-v2:7002 10%/,
    );
    const json = JSON.parse((await cli('matrix', FIXTURE, '--json')).out) as {
      outbound: OutboundFlow[];
    };
    assert.equal(json.outbound.length, 6);
  });
});
