// `--json` prints what the policy module's serialisers return: nothing the decision carries is lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { decisionJson } from '../../src/policy/index.js';
import { withTempDir } from '../support/temp.js';
import { ask, model, pod, route, server } from './helpers.js';

const POLICY = join(import.meta.dirname, '..', '..', 'examples', 'homelab', 'policy');
const REDIRECT = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: authors-moved, namespace: booksapp }
spec:
  parentRefs: [{ group: policy.linkerd.io, kind: Server, name: authors-http }]
  rules:
    - matches: [{ path: { type: PathPrefix, value: /old } }]
      filters:
        - type: RequestRedirect
          requestRedirect: { scheme: https, path: { type: ReplaceFullPath, replaceFullPath: /new }, statusCode: 301 }
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: { name: authors-moved-open, namespace: booksapp }
spec:
  targetRef: { group: gateway.networking.k8s.io, kind: HTTPRoute, name: authors-moved }
  requiredAuthenticationRefs:
    - { group: policy.linkerd.io, kind: NetworkAuthentication, name: cluster-network }
---
apiVersion: policy.linkerd.io/v1alpha1
kind: NetworkAuthentication
metadata: { name: cluster-network, namespace: booksapp }
spec:
  networks: [{ cidr: 10.0.0.0/8 }]
`;

async function authorizeJson(dir: string, path: string): Promise<Record<string, unknown>> {
  const io = memoryIO();
  const code = await run(
    [
      'policy',
      'authorize',
      dir,
      '--pod',
      'booksapp/authors-0',
      '--port',
      '7001',
      '--path',
      path,
      '--client-ip',
      '10.1.2.3',
      '--json',
    ],
    io,
  );
  assert.equal(code, 0, io.err);
  return JSON.parse(io.out) as Record<string, unknown>;
}

test('authorize --json on a redirect route carries redirect {status, scheme, path}', () =>
  withTempDir('policy-json', async (dir) => {
    await cp(POLICY, dir, { recursive: true });
    await writeFile(join(dir, 'redirect.yaml'), REDIRECT);
    const out = await authorizeJson(dir, '/old/page');
    assert.equal(out.decision, 'redirect');
    assert.equal(out.status, 301);
    assert.equal(out.route, 'authors-moved');
    assert.deepEqual(out.redirect, { status: 301, scheme: 'https', path: '/new' });
    assert.ok(Array.isArray(out.trace) && out.trace.length > 0);
  }));

test('decisionJson keeps every field of the decision, optional ones only when set', () => {
  const m = model(
    pod() +
      server('srv', { access: 'all-unauthenticated' }) +
      route('r', 'srv', '[{ matches: [{ path: { type: PathPrefix, value: / } }] }]'),
  );
  const d = ask(m, { path: '/x' });
  const json = decisionJson(d);
  for (const key of Object.keys(d)) assert.ok(key in json, `decisionJson drops ${key}`);
  assert.equal('redirect' in json, false);
  assert.equal('rateLimit' in json, false);
});
