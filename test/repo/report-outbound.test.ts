// The report's policy section shows the outbound flows under the inbound matrix, every
// input-derived string escaped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { compilePolicy, computeMatrix, loadPolicyDir } from '../../src/policy/index.js';
import { policySection } from '../../src/repo/report/policy.js';

const FIXTURE = fileURLToPath(new URL('../policy/fixtures/outbound', import.meta.url));

test('the policy section lists the outbound flows, escaped', async () => {
  const loaded = await loadPolicyDir(FIXTURE);
  const matrix = computeMatrix(compilePolicy(loaded.resources, {}));
  const html = policySection({ matrix });
  assert.match(html, /<h3>Outbound: where each namespace's requests go<\/h3>/);
  const rows = html.slice(html.indexOf('id="policy-outbound"')).match(/<tr>/g) ?? [];
  assert.equal(rows.length, matrix.outbound.length + 1, 'a header and a row per flow');
  assert.match(
    html,
    /<th scope="row">Service booksapp\/books:7002<\/th><td>booksapp\/books-canary rule 0<\/td><td>\* \/books\/\*<\/td><td>booksapp\/books:7002 90%, booksapp\/books-v2:7002 10%<\/td>/,
  );
  const hostile = {
    ...matrix,
    outbound: matrix.outbound.map((f) => ({ ...f, namespaces: ['<img src=x>'] })),
  };
  const escaped = policySection({ matrix: hostile });
  assert.ok(!escaped.includes('<img'), 'names from the input are escaped');
  assert.ok(escaped.includes('&#60;img src=x&#62;'));
});
