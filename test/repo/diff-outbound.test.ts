/**
 * `labelwise diff` on outbound policy: two commits of a booksapp-like repository, and the exact
 * outbound flow each change flips — in JSON, text and Markdown. What each flow is after a change
 * follows Linkerd's documentation: a backendRef's share is its weight over the rule's total
 * (traffic splitting), a rule's `timeouts.request` is its request timeout, `retry.linkerd.io/*`
 * on a Service applies to its routes (retries), and an EgressNetwork's `trafficPolicy` decides
 * what no route attached to it takes (egress).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RepoDiff } from '../../src/repo/index.js';
import { commitTree, inGitRepo, labelwise } from './support/git-repo.js';

interface Knobs {
  readonly weights: readonly [number, number];
  readonly timeout: string;
  readonly retryLimit: number;
  readonly egress: 'Allow' | 'Deny';
}

const BASE: Knobs = { weights: [90, 10], timeout: '5s', retryLimit: 2, egress: 'Deny' };

/** The repository at one revision: a client pod, a canary split of books, and egress. */
function tree(k: Knobs): Record<string, string> {
  return {
    'policy/booksapp.yaml': `apiVersion: v1
kind: Pod
metadata: { name: webapp, namespace: booksapp, labels: { app: webapp } }
spec: { containers: [{ name: webapp, image: webapp:1 }] }
---
apiVersion: v1
kind: Service
metadata:
  name: books
  namespace: booksapp
  annotations: { retry.linkerd.io/http: 5xx, retry.linkerd.io/limit: "${k.retryLimit}" }
spec: { ports: [{ name: http, port: 7002 }] }
---
apiVersion: v1
kind: Service
metadata: { name: books-v2, namespace: booksapp }
spec: { ports: [{ name: http, port: 7002 }] }
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: books-canary, namespace: booksapp }
spec:
  parentRefs: [{ group: core, kind: Service, name: books, port: 7002 }]
  rules:
    - matches: [{ path: { type: PathPrefix, value: /books } }]
      timeouts: { request: ${k.timeout} }
      backendRefs:
        - { name: books, port: 7002, weight: ${k.weights[0]} }
        - { name: books-v2, port: 7002, weight: ${k.weights[1]} }
    - matches: [{ path: { type: PathPrefix, value: / } }]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: EgressNetwork
metadata: { name: internet, namespace: linkerd-egress }
spec: { trafficPolicy: ${k.egress} }
`,
  };
}

async function diffJson(dir: string, from: string, to: string): Promise<RepoDiff> {
  const result = await labelwise(dir, 'diff', '.', '--from', from, '--to', to, '--json');
  assert.equal(result.code, 2, result.err);
  return JSON.parse(result.out) as RepoDiff;
}

const flips = (diff: RepoDiff): string[][] =>
  diff.policy.changes
    .filter((c) => c.causeKind === 'outbound')
    .map((c) => [c.target, c.client, c.before, c.after]);

const RETRY = (limit: number): string => `retry 500-599 limit ${limit}`;
const CANARY = 'Service booksapp/books:7002 → booksapp/books-canary rule 0';
const CATCH_ALL = 'Service booksapp/books:7002 → booksapp/books-canary rule 1';

test('a new weight and timeout flip exactly the canary rule, in every format', (t) =>
  inGitRepo(t, 'outbound-weights', async (dir) => {
    const before = commitTree(dir, tree(BASE), 'canary at 10%');
    const after = commitTree(dir, tree({ ...BASE, weights: [1, 1], timeout: '10s' }), 'half');
    const diff = await diffJson(dir, before, after);
    assert.deepEqual(flips(diff), [
      [
        CANARY,
        'ns:booksapp',
        `* /books/* → booksapp/books:7002 90%, booksapp/books-v2:7002 10%; timeouts request 5s; ${RETRY(2)}`,
        `* /books/* → booksapp/books:7002 50%, booksapp/books-v2:7002 50%; timeouts request 10s; ${RETRY(2)}`,
      ],
    ]);
    assert.deepEqual(diff.policy.changes.length, 1, 'no inbound cell flips');
    assert.deepEqual(
      diff.policy.causes.map((c) => [c.kind, c.cause, c.cells]),
      [['outbound', 'booksapp/books-canary', 1]],
    );
    const text = await labelwise(dir, 'diff', '.', '--from', before, '--to', after);
    assert.match(text.out, /policy: 0 reachability cell\(s\) and 1 outbound flow\(s\) flip/);
    assert.match(text.out, /outbound booksapp\/books-canary: 1 flow\(s\)/);
    assert.ok(
      text.out.includes(`~ ${CANARY} from ns:booksapp: * /books/* → booksapp/books:7002 90%`),
      text.out,
    );
    const markdown = await labelwise(
      dir,
      'diff',
      '.',
      '--from',
      before,
      '--to',
      after,
      '--format',
      'markdown',
    );
    assert.match(
      markdown.out,
      /#### Policy: 0 reachability cell\(s\) and 1 outbound flow\(s\) flip/,
    );
    assert.ok(
      markdown.out.includes('- outbound ` booksapp/books-canary `: 1 flow(s)'),
      markdown.out,
    );
    assert.ok(markdown.out.includes('booksapp/books-v2:7002 50%'), markdown.out);
  }));

test('weights in the same proportion flip nothing: the shares are the same', (t) =>
  inGitRepo(t, 'outbound-proportion', async (dir) => {
    const before = commitTree(dir, tree(BASE), 'canary at 10%');
    const after = commitTree(dir, tree({ ...BASE, weights: [9, 1] }), 'same split, smaller');
    const result = await labelwise(dir, 'diff', '.', '--from', before, '--to', after, '--json');
    const diff = JSON.parse(result.out) as RepoDiff;
    assert.deepEqual(flips(diff), []);
  }));

test("a Service's retry limit flips every rule of its routes, one cause per route", (t) =>
  inGitRepo(t, 'outbound-retry', async (dir) => {
    const before = commitTree(dir, tree(BASE), 'two retries');
    const after = commitTree(dir, tree({ ...BASE, retryLimit: 3 }), 'three retries');
    const diff = await diffJson(dir, before, after);
    assert.deepEqual(flips(diff), [
      [
        CANARY,
        'ns:booksapp',
        `* /books/* → booksapp/books:7002 90%, booksapp/books-v2:7002 10%; timeouts request 5s; ${RETRY(2)}`,
        `* /books/* → booksapp/books:7002 90%, booksapp/books-v2:7002 10%; timeouts request 5s; ${RETRY(3)}`,
      ],
      [
        CATCH_ALL,
        'ns:booksapp',
        `* /* → booksapp/books:7002 100%; ${RETRY(2)}`,
        `* /* → booksapp/books:7002 100%; ${RETRY(3)}`,
      ],
    ]);
  }));

test('an EgressNetwork turned from Deny to Allow flips what it takes, on every port', (t) =>
  inGitRepo(t, 'outbound-egress', async (dir) => {
    const before = commitTree(dir, tree(BASE), 'egress denied');
    const after = commitTree(dir, tree({ ...BASE, egress: 'Allow' }), 'egress allowed');
    const diff = await diffJson(dir, before, after);
    assert.deepEqual(flips(diff), [
      [
        'EgressNetwork linkerd-egress/internet:* → default',
        'ns:booksapp',
        'every request no route takes → 403 (egress denied)',
        'every request no route takes → (original destination) 100%, egress allowed',
      ],
    ]);
  }));
