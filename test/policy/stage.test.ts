// The build stage: diagnostics relative to the repository root, one output, counts; writes nothing.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildPolicyStage } from '../../src/policy/index.js';

const REPO = fileURLToPath(new URL('../../examples/homelab', import.meta.url));

test('buildPolicyStage on the homelab example', async () => {
  const before = readdirSync(`${REPO}/policy`).sort();
  const result = await buildPolicyStage(`${REPO}/policy`, { root: REPO });
  assert.deepEqual(readdirSync(`${REPO}/policy`).sort(), before);
  assert.deepEqual(Object.keys(result.outputs), ['policy/compiled.json']);
  const compiled = JSON.parse(result.outputs['policy/compiled.json'] ?? '') as {
    pods: { pod: string }[];
  };
  assert.deepEqual(
    compiled.pods.map((p) => p.pod),
    ['booksapp/authors-0', 'booksapp/books-0', 'booksapp/traffic-0', 'booksapp/web-0'],
  );
  assert.deepEqual(result.counts, {
    files: 7,
    pods: 4,
    servers: 3,
    routes: 14,
    authorizations: 6,
    errors: 0,
    warnings: 2,
  });
  assert.deepEqual(
    result.diagnostics.map((f) => [f.module, f.severity, f.code, f.file, f.line]),
    [
      ['policy', 'warning', 'POLICY_PROBE_NOT_ROUTED', 'policy/pods.yaml', 43],
      ['policy', 'warning', 'POLICY_PROBE_NOT_ROUTED', 'policy/pods.yaml', 43],
    ],
  );
  const again = await buildPolicyStage(`${REPO}/policy`, { root: REPO });
  assert.equal(
    again.outputs['policy/compiled.json'],
    result.outputs['policy/compiled.json'],
    'deterministic output',
  );
});
