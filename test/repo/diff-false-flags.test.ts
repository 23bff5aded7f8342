/**
 * `labelwise diff` flags only what a change changes: policy cells flip only where a decision
 * does, unchanged Compose findings do not come back as introduced and resolved, and files that
 * `docker compose` does not read as one project are not merged into one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RepoDiff } from '../../src/repo/index.js';
import { commitTree, inGitRepo, labelwise } from './support/git-repo.js';

const TRUST = 'serviceaccount.identity.linkerd.cluster.local';

/** Workload `a` in namespace shop, open to every ServiceAccount of namespace emissary. */
const POLICY_A = {
  'policy/a.yaml': `apiVersion: v1
kind: Pod
metadata: { name: a-0, namespace: shop, labels: { app: a } }
spec:
  serviceAccountName: a
  containers: [{ name: a, image: a:1, ports: [{ name: http, containerPort: 8080 }] }]
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: { name: a-http, namespace: shop }
spec: { podSelector: { matchLabels: { app: a } }, port: http, proxyProtocol: HTTP/1 }
---
apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: { name: from-emissary, namespace: shop }
spec:
  identities: ["*.emissary.${TRUST}"]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: { name: a-from-emissary, namespace: shop }
spec:
  targetRef: { group: policy.linkerd.io, kind: Server, name: a-http }
  requiredAuthenticationRefs:
    - { group: policy.linkerd.io, kind: MeshTLSAuthentication, name: from-emissary }
`,
};

/** Workload `b` with a route that only the emissary-ingress ServiceAccount may call. */
const POLICY_B = {
  'policy/b.yaml': `apiVersion: v1
kind: Pod
metadata: { name: b-0, namespace: shop, labels: { app: b } }
spec:
  serviceAccountName: b
  containers: [{ name: b, image: b:1, ports: [{ name: http, containerPort: 8080 }] }]
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: { name: b-http, namespace: shop }
spec: { podSelector: { matchLabels: { app: b } }, port: http, proxyProtocol: HTTP/1 }
---
apiVersion: policy.linkerd.io/v1beta3
kind: HTTPRoute
metadata: { name: b-api, namespace: shop }
spec:
  parentRefs: [{ group: policy.linkerd.io, kind: Server, name: b-http }]
  rules: [{ matches: [{ path: { type: PathPrefix, value: /api } }] }]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: { name: ingress, namespace: shop }
spec:
  identityRefs: [{ kind: ServiceAccount, name: emissary-ingress, namespace: emissary }]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: { name: b-api-from-ingress, namespace: shop }
spec:
  targetRef: { group: policy.linkerd.io, kind: HTTPRoute, name: b-api }
  requiredAuthenticationRefs:
    - { group: policy.linkerd.io, kind: MeshTLSAuthentication, name: ingress }
`,
};

async function diffJson(dir: string, from: string, to: string): Promise<RepoDiff> {
  const result = await labelwise(dir, 'diff', '.', '--from', from, '--to', to, '--json');
  assert.notEqual(result.code, 70, result.err);
  return JSON.parse(result.out) as RepoDiff;
}

test('a policy for workload b flips no cell of workload a (one client universe)', (t) =>
  inGitRepo(t, 'flips', async (dir) => {
    const before = commitTree(dir, POLICY_A, 'a');
    const after = commitTree(dir, { ...POLICY_A, ...POLICY_B }, 'b and its route');
    const diff = await diffJson(dir, before, after);
    const onA = diff.policy.changes.filter((c) => c.target.startsWith('shop/a-http'));
    assert.deepEqual(onA, [], 'workload a is not touched by the change');
    assert.ok(diff.policy.changes.length > 0, 'the new rows of b are reported');
    assert.ok(diff.policy.changes.every((c) => c.target.startsWith('shop/b-http')));
    // Every flip is one of b's rows appearing: grouped, they read as b's routes, not as cells.
    assert.ok(diff.policy.causes.length < diff.policy.changes.length);
    assert.ok(diff.policy.causes.every((c) => c.kind === 'route added'));
    assert.equal(
      diff.policy.causes.reduce((n, c) => n + c.cells, 0),
      diff.policy.changes.length,
    );
  }));

test('flips of one authorization are one cause', (t) =>
  inGitRepo(t, 'causes', async (dir) => {
    const both = { ...POLICY_A, ...POLICY_B };
    const before = commitTree(dir, both, 'a and b');
    // Widen the ingress authentication to the whole emissary namespace.
    const wider = {
      ...both,
      'policy/b.yaml': (both['policy/b.yaml'] as string).replace(
        'identityRefs: [{ kind: ServiceAccount, name: emissary-ingress, namespace: emissary }]',
        `identities: ["*.emissary.${TRUST}"]`,
      ),
    };
    const after = commitTree(dir, wider, 'all of emissary may call b');
    const diff = await diffJson(dir, before, after);
    assert.ok(diff.policy.changes.length > 0);
    assert.deepEqual(
      diff.policy.causes.map((c) => [c.kind, c.cause]),
      [['authorization', diff.policy.causes[0]?.cause]],
    );
    assert.match(diff.policy.causes[0]?.cause ?? '', /b-api-from-ingress/);
    assert.ok(diff.policy.changes.every((c) => c.target.startsWith('shop/b-http:8080/b-api')));
  }));

const STACK = `services:
  anchor:
    image: anchor:1
    labels:
      anchord.anchor: "true"
  web:
    image: web:1
    labels:
      anchord.expose: "tcp/80"
      app: web
`;

test('an unnamed Compose project is named after the repository on both sides', (t) =>
  inGitRepo(t, 'naming', async (dir) => {
    const before = commitTree(dir, { 'compose.yaml': STACK }, 'stack');
    // Lines move; the findings do not change.
    const after = commitTree(dir, { 'compose.yaml': `# the web stack\n\n${STACK}` }, 'comment');
    const diff = await diffJson(dir, before, after);
    assert.deepEqual(diff.introduced, []);
    assert.deepEqual(diff.resolved, []);
    const built = await labelwise(dir, 'build', '.', '--json');
    const fromWorktree = await diffJson(dir, before, 'worktree');
    assert.deepEqual(fromWorktree.introduced, [], built.out);
  }));

test('with no change, the Markdown says what was checked: 3 Compose projects, no anchors', (t) =>
  inGitRepo(t, 'checked', async (dir) => {
    const stacks = {
      'compose/media/compose.yaml': 'services:\n  jellyfin: { image: jellyfin/jellyfin:10 }\n',
      'compose/dns/docker-compose.yml': 'services:\n  pihole: { image: pihole/pihole:2024.07.0 }\n',
      'compose/dns/docker-compose.test.yml': 'services:\n  probe: { image: busybox:1 }\n',
      'compose/proxy/compose.yml': 'services:\n  caddy: { image: caddy:2 }\n',
    };
    const before = commitTree(dir, { ...stacks, 'README.md': 'stacks\n' }, 'stacks');
    const after = commitTree(dir, { ...stacks, 'README.md': 'my stacks\n' }, 'readme');
    const result = await labelwise(
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
    assert.equal(result.code, 0, result.err);
    assert.match(
      result.out,
      /No change to what reaches what\. Checked: 3 Compose projects, no anchors\./,
    );
    assert.match(result.out, /not read: ` ?compose\/dns\/docker-compose\.test\.yml ?`/);
    const text = await labelwise(dir, 'diff', '.', '--from', before, '--to', after);
    assert.match(text.out, /Checked: 3 Compose projects, no anchors\./);
  }));
