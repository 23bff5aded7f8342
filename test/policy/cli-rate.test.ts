import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { withTempDir } from '../support/temp.js';

const POLICY = join(import.meta.dirname, '..', '..', 'examples', 'homelab', 'policy');
const LIMIT = `apiVersion: policy.linkerd.io/v1alpha1
kind: HTTPLocalRateLimitPolicy
metadata: { name: authors-limit, namespace: booksapp }
spec:
  targetRef: { group: policy.linkerd.io, kind: Server, name: authors-http }
  total: { requestsPerSecond: 10 }
`;

async function authorize(dir: string, ...extra: string[]) {
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
      '/authors/1.json',
      '--client-ip',
      '10.1.2.3',
      '--identity',
      'web.booksapp.serviceaccount.identity.linkerd.cluster.local',
      ...extra,
    ],
    io,
  );
  return { code, out: io.out, err: io.err };
}

test('authorize --rate simulates an HTTPLocalRateLimitPolicy: 429 past the limit', () =>
  withTempDir('policy-rate', async (dir) => {
    await cp(POLICY, dir, { recursive: true });
    await writeFile(join(dir, 'ratelimit.yaml'), LIMIT);
    const under = JSON.parse((await authorize(dir, '--rate', '5', '--json')).out) as {
      decision: string;
    };
    assert.equal(under.decision, 'allow');
    const over = JSON.parse((await authorize(dir, '--rate', '50', '--json')).out) as {
      decision: string;
      status: number;
    };
    assert.deepEqual([over.decision, over.status], ['rate-limited', 429]);
    const total = JSON.parse(
      (await authorize(dir, '--rate', '5', '--total-rate', '50', '--json')).out,
    ) as { status: number };
    assert.equal(total.status, 429, 'the Server-wide budget counts every client');
    const bad = await authorize(dir, '--rate', 'fast');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /CLI_USAGE: --rate "fast" must be a positive number/);
  }));
