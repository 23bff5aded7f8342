// `labelwise policy matrix`, `--expect`, workloads by name, `-f -`, and terminal-safe output.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DIR, ROOT, WEB, cli } from './cli-helpers.js';
import { tempDirSync } from '../support/temp.js';

function tempFile(name: string, text: string): string {
  const dir = tempDirSync('policy-cli-matrix');
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

const DELETE_AUTHORS = [
  'authorize',
  DIR,
  '--pod',
  'booksapp/authors-0',
  '--port',
  '7001',
  '--method',
  'DELETE',
  '--path',
  '/authors/1',
  '--identity',
  WEB,
  '--client-ip',
  '10.1.2.3',
];

describe('labelwise policy authorize --expect', () => {
  it('exits 0 when the decision is the expected one, 1 when it is not', async () => {
    const held = await cli(...DELETE_AUTHORS, '--expect', 'deny');
    assert.equal(held.code, 0, held.err);
    const broken = await cli(...DELETE_AUTHORS, '--expect', 'allow');
    assert.equal(broken.code, 1);
    assert.match(broken.out, /expected allow, got deny \(403\)/);
    const json = await cli(...DELETE_AUTHORS, '--expect', '404', '--json');
    assert.equal(json.code, 1);
    const body = JSON.parse(json.out) as { expected: string; met: boolean; decision: string };
    assert.deepEqual([body.expected, body.met, body.decision], ['404', false, 'deny']);
  });

  it('refuses an expectation that is not allow, deny or 404', async () => {
    const r = await cli(...DELETE_AUTHORS, '--expect', 'maybe');
    assert.equal(r.code, 1);
    assert.match(r.err, /allow, deny, 404/);
  });
});

describe('labelwise policy matrix', () => {
  it('text: one table per namespace, a column per client', async () => {
    const r = await cli('matrix', DIR);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^namespace booksapp$/m);
    assert.match(
      r.out,
      /^SERVER:PORT\s+ROUTE\s+MATCHES\s+sa:booksapp\/books\s+sa:booksapp\/traffic/m,
    );
    assert.match(
      r.out,
      /^authors-http:7001\s+authors-modify-route\s+DELETE \/authors\/\*.*\s+allow\s+-\s+-/m,
    );
  });

  it('--json: clients, rows with cells and witnesses, and the diagnostics shape', async () => {
    const r = await cli('matrix', DIR, '--json');
    assert.equal(r.code, 0, r.err);
    const body = JSON.parse(r.out) as {
      clients: { id: string }[];
      rows: { id: string; cells: Record<string, { reach: string; witness: { pod: string } }> }[];
      diagnostics: unknown[];
      errors: number;
      warnings: number;
    };
    assert.deepEqual(Object.keys(body), [
      'clients',
      'rows',
      'clientNamespaces',
      'outbound',
      'diagnostics',
      'errors',
      'warnings',
    ]);
    const row = body.rows.find((x) => x.id === 'booksapp/authors-http:7001/authors-modify-route');
    assert.equal(row?.cells['sa:booksapp/books']?.reach, 'allow');
    assert.equal(row?.cells['sa:booksapp/web']?.witness.pod, 'booksapp/authors-0');
  });

  it('--explain ROW --client ID prints the authorize trace of that cell', async () => {
    const r = await cli(
      'matrix',
      DIR,
      '--explain',
      'booksapp/authors-http:7001/authors-modify-route',
      '--client',
      'sa:booksapp/web',
    );
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /for sa:booksapp\/web: deny/);
    assert.match(r.out, /authorizationpolicy\/authors-modify-policy \(route\) does not admit/);
    const unknown = await cli('matrix', DIR, '--explain', 'nope', '--client', 'sa:booksapp/web');
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /POLICY_MATRIX_UNKNOWN/);
  });

  it('--expect: the shipped expectations hold; a broken one exits 1 at its line', async () => {
    const ok = await cli('matrix', DIR, '--expect', `${DIR}/reachability.expect`);
    assert.equal(ok.code, 0, ok.out);
    assert.match(ok.out, /6 of 6 expectation\(s\) hold/);
    const file = tempFile(
      'reach.expect',
      '- { client: sa:booksapp/web, server: booksapp/authors-http, request: GET /authors/1.json, expect: allow }\n' +
        '- { client: sa:booksapp/web, server: booksapp/authors-http, request: DELETE /authors/1, expect: allow }\n',
    );
    const bad = await cli('matrix', DIR, '--expect', file, '--json');
    assert.equal(bad.code, 1);
    const body = JSON.parse(bad.out) as {
      expectations: { ok: boolean }[];
      diagnostics: { code: string; line: number }[];
      errors: number;
    };
    assert.deepEqual(
      body.expectations.map((e) => e.ok),
      [true, false],
    );
    assert.deepEqual(
      body.diagnostics.map((d) => [d.code, d.line]),
      [['POLICY_EXPECTATION_FAILED', 2]],
    );
    assert.equal(body.errors, 1);
  });
});

const WORKLOAD = `apiVersion: v1
kind: Namespace
metadata: { name: shop, annotations: { config.linkerd.io/default-inbound-policy: deny } }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: api, namespace: shop }
spec:
  replicas: 2
  template:
    metadata: { labels: { app: api } }
    spec:
      containers:
        - name: api
          ports: [{ name: http, containerPort: 8080 }]
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: { name: api, namespace: shop }
spec: { podSelector: { matchLabels: { app: api } }, port: http, accessPolicy: all-unauthenticated }
`;

describe('workloads and stdin', () => {
  it('--pod names a workload by kind', async () => {
    const file = tempFile('shop.yaml', WORKLOAD);
    for (const ref of ['shop/deploy/api', 'shop/deployment/api']) {
      const r = await cli(
        'authorize',
        file,
        '--pod',
        ref,
        '--port',
        '8080',
        '--path',
        '/',
        '--client-ip',
        '10.0.0.1',
        '--json',
      );
      assert.equal(r.code, 0, r.err);
      const body = JSON.parse(r.out) as { decision: string; server: string };
      assert.deepEqual([body.decision, body.server], ['allow', 'shop/api'], ref);
    }
  });

  it('-f - reads a rendered stream from stdin (the real bin)', () => {
    const r = spawnSync(
      process.execPath,
      ['bin/labelwise.js', 'policy', 'matrix', '-f', '-', '--json'],
      {
        cwd: ROOT,
        input: WORKLOAD,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const body = JSON.parse(r.stdout) as { rows: { id: string; pods: string[] }[] };
    assert.deepEqual(
      body.rows.map((x) => [x.id, x.pods]),
      [['shop/api:8080/default', ['shop/deploy/api']]],
    );
    const lint = spawnSync(process.execPath, ['bin/labelwise.js', 'policy', 'lint', '-f', '-'], {
      cwd: ROOT,
      input:
        'apiVersion: v1\nkind: Pod\nmetadata: { name: x, namespace: a }\nspec:\n  containers: [{ name: c, ports: [{ containerPort: 0 }] }]\n',
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(lint.status, 1);
    assert.match(lint.stdout, /^<stdin>:5: error POLICY_INVALID_PORT/m);
  });

  it('DIR and -f together, or neither, is a clear error', async () => {
    const both = await cli('lint', DIR, '-f', '-');
    assert.equal(both.code, 1);
    assert.match(both.err, /both DIR .* and -f "-" were given/);
    const neither = await cli('lint');
    assert.equal(neither.code, 1);
    assert.match(neither.err, /no input/);
  });
});

describe('terminal-safe output', () => {
  it('control characters in field paths and in the trace are escaped', async () => {
    const file = tempFile(
      'evil.yaml',
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\n  labels: { "bad\\u001b[31mkey": v }\nspec: { containers: [] }\n',
    );
    const lint = await cli('lint', file);
    assert.equal(lint.code, 1);
    assert.ok(!lint.out.includes('\u001b'), JSON.stringify(lint.out));
    assert.match(lint.out, /POLICY_INVALID_LABEL/);
    const decided = await cli(
      'authorize',
      DIR,
      '--pod',
      'booksapp/authors-0',
      '--port',
      '7001',
      '--path',
      '/authors/1.json',
      '--client-ip',
      '10.0.0.1',
      '--identity',
      'evil\u001b]0;owned\u0007.id',
    );
    assert.equal(decided.code, 0, decided.err);
    assert.ok(
      !decided.out.includes('\u001b') && !decided.out.includes('\u0007'),
      JSON.stringify(decided.out),
    );
    assert.match(decided.out, /identity evil\\x1b\]0;owned\\x07\.id does not match/);
  });
});

// The expectations shipped with the example parse: the CI one-liner in the docs works.
it('the example expectations file is YAML', () => {
  assert.match(readFileSync(join(ROOT, DIR, 'reachability.expect'), 'utf8'), /^- \{ client:/m);
});
