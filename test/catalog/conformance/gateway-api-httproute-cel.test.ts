// Gateway API's HTTPRoute CEL tests, recorded as data, run against the stored CRD.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { upstreamValidators, validateUpstream } from '../../../src/catalog/index.js';
import type { KubeObject } from '../../../src/catalog/index.js';

interface Case {
  name: string;
  source: { file: string; test: string; upstream: string };
  spec: Record<string, unknown>;
  wantErrors: string[];
  ourErrors?: string[];
}

const { cases } = JSON.parse(
  readFileSync(new URL('./gateway-api-httproute-cel.json', import.meta.url), 'utf8'),
) as { cases: Case[] };
const validators = upstreamValidators();

test('the recorded Gateway API cases name their upstream test', () => {
  assert.ok(cases.length >= 20, String(cases.length));
  for (const c of cases) assert.match(c.source.file, /^tests\/cel\//, c.name);
});

for (const c of cases) {
  test(`gateway-api ${c.source.test}: ${c.name}`, () => {
    const route = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'foo', namespace: 'default' },
      spec: c.spec,
    } as KubeObject;
    const problems = validateUpstream(route, validators);
    const messages = problems.map((p) => p.message);
    if (c.ourErrors !== undefined) {
      const lines = problems.map((p) => `${p.path}: ${p.message}`);
      for (const want of c.ourErrors)
        assert.ok(lines.includes(want), `${want}\n${lines.join('\n')}`);
      return;
    }
    if (c.wantErrors.length === 0) assert.deepEqual(messages, []);
    for (const want of c.wantErrors)
      assert.ok(
        messages.some((m) => m.includes(want)),
        `${want}\nin: ${messages.join('\n')}`,
      );
  });
}
