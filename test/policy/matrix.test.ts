// The reachability matrix: columns partition the clients, cells come from the selector algebra
// and CIDR coverage, and every allow/deny cell agrees with `authorize` on its witness request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  checkExpectations,
  compilePolicy,
  computeMatrix,
  expectationDiagnostics,
  explainCell,
  loadPolicyDir,
  readExpectations,
} from '../../src/policy/index.js';
import type { PolicyMatrix, PolicyModel } from '../../src/policy/index.js';
import { ID, model, mtls, network, pod, policy, route, server } from './helpers.js';

const HOMELAB = fileURLToPath(new URL('../../examples/homelab/policy', import.meta.url));

function cells(m: PolicyMatrix, rowId: string): Record<string, string> {
  const row = m.rows.find((r) => r.id === rowId);
  assert.ok(row !== undefined, `no row ${rowId}; rows: ${m.rows.map((r) => r.id).join(', ')}`);
  return Object.fromEntries(Object.entries(row.cells).map(([k, c]) => [k, c.reach]));
}

/** Every cell that is all or nothing must agree with a real decision on its witness. */
function assertAgreesWithAuthorize(m: PolicyModel, matrix: PolicyMatrix): number {
  let checked = 0;
  for (const row of matrix.rows) {
    for (const [client, cell] of Object.entries(row.cells)) {
      if (cell.reach === 'some') continue;
      const d = explainCell(m, cell);
      assert.equal(
        d.route ?? '(connection)',
        row.route,
        `${row.id} ${client}: witness hits ${d.route}`,
      );
      assert.equal(
        d.decision === 'allow',
        cell.reach === 'allow',
        `${row.id} ${client}: matrix ${cell.reach}, authorize ${d.decision}\n${d.trace.join('\n')}`,
      );
      checked++;
    }
  }
  return checked;
}

const TWO_ROUTES =
  pod({ labels: { app: 'web' } }) +
  server('web') +
  route('read', 'web', '[{ matches: [{ path: { value: /items }, method: GET }] }]') +
  route(
    'write',
    'web',
    '[{ matches: [{ path: { type: Exact, value: /items }, method: DELETE }] }]',
  ) +
  mtls('readers', [ID('reader'), ID('writer')]) +
  policy('read', { kind: 'HTTPRoute', name: 'read' }, [
    { kind: 'MeshTLSAuthentication', name: 'readers' },
  ]) +
  policy('write', { kind: 'HTTPRoute', name: 'write' }, [
    { kind: 'ServiceAccount', name: 'writer' },
  ]);

describe('policy matrix', () => {
  it('columns: named ServiceAccounts, the rest of each namespace, other identities, unauthenticated', () => {
    const matrix = computeMatrix(model(TWO_ROUTES));
    assert.deepEqual(
      matrix.clients.map((c) => c.id),
      [
        'sa:ns/reader',
        'sa:ns/writer',
        'ns:ns',
        'authenticated',
        'unauthenticated:cluster',
        'unauthenticated:external',
      ],
    );
  });

  it('route-level policies: each route admits exactly its clients', () => {
    const m = model(TWO_ROUTES);
    const matrix = computeMatrix(m);
    assert.deepEqual(cells(matrix, 'ns/web:8080/read'), {
      'sa:ns/reader': 'allow',
      'sa:ns/writer': 'allow',
      'ns:ns': 'deny',
      authenticated: 'deny',
      'unauthenticated:cluster': 'deny',
      'unauthenticated:external': 'deny',
    });
    assert.equal(cells(matrix, 'ns/web:8080/write')['sa:ns/reader'], 'deny');
    assert.equal(cells(matrix, 'ns/web:8080/write')['sa:ns/writer'], 'allow');
    assert.ok(assertAgreesWithAuthorize(m, matrix) >= 10);
  });

  it('a namespace-wide identity admits every column of the namespace; networks make it partial', () => {
    const yaml =
      pod({ labels: { app: 'web' } }) +
      server('web') +
      mtls('all-ns', ['*.ns.serviceaccount.identity.linkerd.cluster.local']) +
      network('office', [{ cidr: '10.1.0.0/16' }]) +
      policy('ns-clients', { kind: 'Server', name: 'web' }, [
        { kind: 'MeshTLSAuthentication', name: 'all-ns' },
      ]) +
      policy('office', { kind: 'Server', name: 'web' }, [
        { kind: 'NetworkAuthentication', name: 'office' },
      ]) +
      mtls('named', [ID('api')]);
    const m = model(yaml);
    const matrix = computeMatrix(m);
    const row = cells(matrix, 'ns/web:8080/default');
    assert.equal(row['ns:ns'], 'allow');
    assert.equal(row['authenticated'], 'some', 'office network admits some authenticated clients');
    assert.equal(row['unauthenticated:cluster'], 'some');
    assert.equal(row['unauthenticated:external'], 'deny');
    assert.ok(assertAgreesWithAuthorize(m, matrix) > 0);
  });

  it('identities no column describes are listed, not lost', () => {
    const yaml =
      pod({ labels: { app: 'web' } }) +
      server('web') +
      mtls('foreign', ['api.other.serviceaccount.identity.linkerd.example.org', 'spiffe://x/y']) +
      policy('foreign', { kind: 'Server', name: 'web' }, [
        { kind: 'MeshTLSAuthentication', name: 'foreign' },
      ]);
    const matrix = computeMatrix(model(yaml));
    const row = matrix.rows[0];
    assert.deepEqual(row?.alsoAdmits, [
      'api.other.serviceaccount.identity.linkerd.example.org',
      'spiffe://x/y',
    ]);
    assert.ok(Object.values(row?.cells ?? {}).every((c) => c.reach === 'deny'));
  });

  it('opaque ports are one connection row with the Server’s authorizations', () => {
    const m = model(
      pod({ labels: { app: 'db' }, ports: [['pg', 5432]] }) +
        server('db', {
          selector: '{ matchLabels: { app: db } }',
          port: 5432,
          protocol: 'opaque',
          access: 'cluster-unauthenticated',
        }),
    );
    const matrix = computeMatrix(m);
    assert.deepEqual(
      matrix.rows.map((r) => [r.id, r.matches]),
      [['ns/db:5432/(connection)', 'every connection']],
    );
    assert.equal(cells(matrix, 'ns/db:5432/(connection)')['unauthenticated:cluster'], 'allow');
    assert.equal(cells(matrix, 'ns/db:5432/(connection)')['unauthenticated:external'], 'deny');
    assertAgreesWithAuthorize(m, matrix);
  });

  it('--namespace keeps that namespace’s rows only', () => {
    const m = model(TWO_ROUTES);
    assert.equal(computeMatrix(m, { namespace: 'other' }).rows.length, 0);
    assert.equal(computeMatrix(m, { namespace: 'ns' }).rows.length, 2);
  });

  it('the homelab example: every all-or-nothing cell agrees with authorize', async () => {
    const loaded = await loadPolicyDir(HOMELAB);
    const m = compilePolicy(loaded.resources);
    const matrix = computeMatrix(m);
    assert.ok(assertAgreesWithAuthorize(m, matrix) > 50);
    // The traffic generator reaches the front end, and nothing of authors (the fixed example).
    assert.equal(cells(matrix, 'booksapp/web-http:7000/web:GET /')['sa:booksapp/traffic'], 'allow');
    for (const row of matrix.rows.filter((r) => r.server === 'booksapp/authors-http'))
      assert.equal(row.cells['sa:booksapp/traffic']?.reach, 'deny', row.id);
  });

  it('regression: a ServerAuthorization over every Server handed traffic DELETE on authors', async () => {
    const loaded = await loadPolicyDir(HOMELAB);
    const sa = loaded.resources.serverAuthorizations.find(
      (s) => s.meta.name === 'books-from-traffic',
    );
    assert.ok(sa !== undefined);
    const everyServer = { ...sa, server: { selector: { kind: 'everything', requirements: [] } } };
    const resources = {
      ...loaded.resources,
      serverAuthorizations: [everyServer as typeof sa],
    };
    const matrix = computeMatrix(compilePolicy(resources));
    assert.equal(
      cells(matrix, 'booksapp/authors-http:7001/authors-modify-route')['sa:booksapp/traffic'],
      'allow',
    );
  });
});

describe('matrix expectations', () => {
  const text = `# one line each
- { client: sa:ns/reader, server: ns/web, request: GET /items, expect: allow }
- { client: sa:ns/reader, server: ns/web, request: DELETE /items, expect: deny }
- { client: sa:ns/reader, server: ns/web, request: PUT /elsewhere, expect: 404 }
- { client: sa:ns/reader, server: ns/web, request: PUT /elsewhere, expect: deny }
- { client: sa:ns/writer, pod: ns/pod, port: 8080, route: write, expect: allow }
- { client: sa:ns/reader, server: ns/web, route: write, expect: allow }
- { client: sa:ns/reader, server: ns/nope, expect: deny }
- { client: sa:ns/nobody, server: ns/web, expect: deny }
`;

  it('each line holds or fails with its line and what was found', () => {
    const m = model(TWO_ROUTES);
    const { expectations, diagnostics } = readExpectations(text, 'reach.expect');
    assert.deepEqual(diagnostics, []);
    const results = checkExpectations(m, computeMatrix(m), expectations);
    assert.deepEqual(
      results.map((r) => [r.expectation.line, r.ok]),
      [
        [2, true],
        [3, true],
        [4, true],
        [5, true],
        [6, true],
        [7, false],
        [8, false],
        [9, false],
      ],
    );
    const failed = expectationDiagnostics(results);
    assert.deepEqual(
      failed.map((d) => [d.code, d.file, d.line]),
      [
        ['POLICY_EXPECTATION_FAILED', 'reach.expect', 7],
        ['POLICY_EXPECTATION_FAILED', 'reach.expect', 8],
        ['POLICY_EXPECTATION_FAILED', 'reach.expect', 9],
      ],
    );
    assert.match(failed[0]?.message ?? '', /ns\/web:8080\/write: deny/);
    assert.match(failed[1]?.message ?? '', /no matrix row matches/);
    assert.match(failed[2]?.message ?? '', /no client sa:ns\/nobody/);
  });

  it('bad entries are errors with their line; good ones are still read', () => {
    const { expectations, diagnostics } = readExpectations(
      `- { client: sa:ns/a, server: ns/web, expect: maybe }
- { client: sa:ns/a, expect: deny }
- { client: sa:ns/a, server: ns/web, request: "not a request", expect: deny }
- { client: sa:ns/a, server: ns/web, colour: blue, expect: deny }
- { client: sa:ns/a, server: ns/web, expect: 404 }
- { client: sa:ns/a, server: ns/web, expect: deny }
`,
      'bad.expect',
    );
    assert.deepEqual(
      diagnostics.map((d) => [d.code, d.line]),
      [1, 2, 3, 4, 5].map((line) => ['POLICY_EXPECTATION_INVALID', line]),
    );
    assert.equal(expectations.length, 1);
    const notList = readExpectations('client: x\n', 'x.expect');
    assert.deepEqual(
      notList.diagnostics.map((d) => d.code),
      ['POLICY_EXPECTATION_INVALID'],
    );
  });
});
