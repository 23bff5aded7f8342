// Golden: the compiled model of the homelab example. Rewrite with UPDATE_GOLDEN=1 after an
// intended change, and review the diff.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildPolicyStage } from '../../src/policy/index.js';

const REPO = fileURLToPath(new URL('../../examples/homelab', import.meta.url));
const GOLDEN = fileURLToPath(new URL('./fixtures/homelab-compiled.json', import.meta.url));

test('policy/compiled.json of the homelab example matches the golden file', async () => {
  const result = await buildPolicyStage(`${REPO}/policy`, { root: REPO });
  const actual = result.outputs['policy/compiled.json'] ?? '';
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(GOLDEN)) {
    if (process.env.UPDATE_GOLDEN !== '1')
      assert.fail(`missing golden file ${GOLDEN}; run with UPDATE_GOLDEN=1`);
    writeFileSync(GOLDEN, actual);
  }
  assert.equal(actual, readFileSync(GOLDEN, 'utf8'));
});
