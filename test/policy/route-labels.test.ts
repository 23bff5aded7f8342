// Route labels the roadmap defines beyond method and path (docs/policy.md, "Route labels"):
// `http.linkerd.io/version` from the Server's protocol, and `path.http.linkerd.io/<param>` set at
// compile time so an HttpRouteClass can select routes by the parameters their templates take.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { computeMatrix, explainCell, lintPolicy } from '../../src/policy/index.js';
import type { CompiledRoute } from '../../src/policy/routes/route-table.js';
import { withTempDir } from '../support/temp.js';
import { ID, ask, load, model, pod, policy, server } from './helpers.js';

const EXT = 'policy.labelwise.dev/v1alpha1';

const GROUP = `
apiVersion: ${EXT}
kind: HttpRouteGroup
metadata: { name: books, namespace: ns }
spec:
  routes:
    - methods: [GET]
      path: /books/:book-id
    - methods: [GET]
      path: /books
    - methods: [GET]
      path: /files/*rest
---`;

function groupOnServer(serverName: string, withGroup = true): string {
  return `${withGroup ? GROUP : ''}
apiVersion: ${EXT}
kind: HttpRouteBinding
metadata: { name: books-${serverName}, namespace: ns }
spec: { targetRef: { kind: Server, name: ${serverName} }, routeRefs: [{ name: books }] }
---`;
}

function routeClass(name: string, serverName: string, selector: string): string {
  return `
apiVersion: ${EXT}
kind: HttpRouteClass
metadata: { name: ${name}, namespace: ns }
spec:
  targetRef: { kind: Server, name: ${serverName} }
  routeSelector: ${selector}
---`;
}

describe('route labels: http.linkerd.io/version', () => {
  const cases: { protocol: string; want: string | undefined }[] = [
    { protocol: 'HTTP/1', want: 'HTTP/1.1' },
    { protocol: 'HTTP/2', want: 'HTTP/2' },
    // The proxy detects the version per connection: no compile-time value.
    { protocol: 'unknown', want: undefined },
  ];
  for (const c of cases) {
    it(`a ${c.protocol} Server gives ${c.want ?? 'no version label'}`, () => {
      const m = model(pod() + server('web', { protocol: c.protocol }) + groupOnServer('web'));
      const p = m.pod('ns', 'pod');
      assert.ok(p);
      const routes = m.portPolicy(p, 8080).table.routes;
      assert.equal(routes.length, 3);
      for (const r of routes) assert.equal(r.labels['http.linkerd.io/version'], c.want, r.name);
    });
  }

  it('a class selecting HTTP/2 covers the HTTP/2 Server only', () => {
    const yaml =
      pod({
        ports: [
          ['http', 8080],
          ['h2', 8081],
        ],
      }) +
      server('web', { protocol: 'HTTP/1' }) +
      server('web2', { protocol: 'HTTP/2', port: 8081 }) +
      groupOnServer('web') +
      groupOnServer('web2', false) +
      routeClass('h2-web', 'web', '{ matchLabels: { http.linkerd.io/version: HTTP/2 } }') +
      routeClass('h2-web2', 'web2', '{ matchLabels: { http.linkerd.io/version: HTTP/2 } }') +
      policy('h2-only', { kind: 'HttpRouteClass', name: 'h2-web' }, []) +
      policy('h2-only-2', { kind: 'HttpRouteClass', name: 'h2-web2' }, []);
    const m = model(yaml);
    assert.equal(ask(m, { path: '/books', port: 8080 }).decision, 'deny');
    const d = ask(m, { path: '/books', port: 8081 });
    assert.equal(d.decision, 'allow', d.trace.join('\n'));
    assert.equal(d.authorization, 'authorizationpolicy/h2-only-2');
  });

  describe('on an unknown Server, the version the connection has (--http-version)', () => {
    const yaml =
      pod() +
      server('web', { protocol: 'unknown' }) +
      groupOnServer('web') +
      routeClass('h2', 'web', '{ matchLabels: { http.linkerd.io/version: HTTP/2 } }') +
      policy('h2-only', { kind: 'HttpRouteClass', name: 'h2' }, []);

    it('routes carry the given version, one compiled policy per version', () => {
      const m = model(yaml);
      const p = m.pod('ns', 'pod');
      assert.ok(p);
      for (const v of ['HTTP/1.1', 'HTTP/2'] as const) {
        const routes: readonly CompiledRoute[] = m.portPolicy(p, 8080, v).table.routes;
        assert.equal(routes.length, 3);
        for (const r of routes) assert.equal(r.labels['http.linkerd.io/version'], v, r.name);
      }
      assert.notEqual(m.portPolicy(p, 8080, 'HTTP/2'), m.portPolicy(p, 8080));
      assert.equal(m.portPolicy(p, 8080, 'HTTP/2'), m.portPolicy(p, 8080, 'HTTP/2'));
    });

    it('a class selecting HTTP/2 covers the routes on HTTP/2 connections only', () => {
      const m = model(yaml);
      const h2 = ask(m, { path: '/books', httpVersion: 'HTTP/2' });
      assert.equal(h2.decision, 'allow', h2.trace.join('\n'));
      assert.equal(h2.authorization, 'authorizationpolicy/h2-only');
      assert.ok(
        h2.trace.includes(
          'http version: HTTP/2, as given (the Server is unknown: its proxy detects the version per connection); its route-group routes carry http.linkerd.io/version: HTTP/2',
        ),
        h2.trace.join('\n'),
      );
      const h1 = ask(m, { path: '/books', httpVersion: 'HTTP/1.1' });
      assert.equal(h1.decision, 'deny', h1.trace.join('\n'));
    });

    it('without a version the routes carry none, and the trace says how to give one', () => {
      const m = model(yaml);
      const d = ask(m, { path: '/books' });
      assert.equal(d.decision, 'deny');
      assert.ok(
        d.trace.some((line) => line.startsWith('http version: none given;')),
        d.trace.join('\n'),
      );
    });

    it('a Server with a fixed protocol keeps its version, and the trace says the given one is not used', () => {
      const m = model(pod() + server('web', { protocol: 'HTTP/1' }) + groupOnServer('web'));
      const p = m.pod('ns', 'pod');
      assert.ok(p);
      for (const r of m.portPolicy(p, 8080, 'HTTP/2').table.routes)
        assert.equal(r.labels['http.linkerd.io/version'], 'HTTP/1.1', r.name);
      const d = ask(m, { path: '/books', httpVersion: 'HTTP/2' });
      assert.ok(
        d.trace.includes(
          'http version: HTTP/2 is not used: proxyProtocol HTTP/1 fixes the version of its routes',
        ),
        d.trace.join('\n'),
      );
    });

    it('policy authorize --http-version HTTP/2 (and a version it does not know is a usage error)', () =>
      withTempDir('policy-http-version', async (dir) => {
        await writeFile(join(dir, 'policy.yaml'), yaml);
        const authorize = async (...extra: string[]) => {
          const io = memoryIO();
          const args = ['policy', 'authorize', dir, '--pod', 'ns/pod', '--port', '8080'];
          const code = await run(
            [...args, '--path', '/books', '--client-ip', '10.1.1.1', ...extra],
            io,
          );
          return { code, out: io.out, err: io.err };
        };
        const h2 = JSON.parse((await authorize('--http-version', 'HTTP/2', '--json')).out) as {
          decision: string;
          trace: string[];
        };
        assert.equal(h2.decision, 'allow', h2.trace.join('\n'));
        const none = JSON.parse((await authorize('--json')).out) as { decision: string };
        assert.equal(none.decision, 'deny');
        const bad = await authorize('--http-version', 'HTTP/3');
        assert.equal(bad.code, 1);
        assert.match(bad.err, /HTTP\/3.*HTTP\/1\.1, HTTP\/2/);
      }));

    it('matrix --http-version: rows of the unknown Server for that version, witnesses that name it', () => {
      const m = model(yaml);
      const row = (httpVersion?: 'HTTP/2') => {
        const matrix = computeMatrix(m, httpVersion === undefined ? {} : { httpVersion });
        const found = matrix.rows.find((r) => r.route === 'books:GET /books');
        assert.ok(found, matrix.rows.map((r) => r.id).join(', '));
        return found;
      };
      const plain = row();
      const h2 = row('HTTP/2');
      assert.deepEqual(plain.authorizations, []);
      assert.deepEqual(h2.authorizations, ['authorizationpolicy/h2-only']);
      for (const cell of Object.values(h2.cells)) {
        assert.equal(cell.witness.httpVersion, 'HTTP/2');
        assert.equal(explainCell(m, cell).decision, cell.reach === 'deny' ? 'deny' : 'allow');
      }
      for (const cell of Object.values(plain.cells))
        assert.equal(cell.witness.httpVersion, undefined);
    });

    it('lint: a class that covers the routes on one version selects something', () => {
      const selectsNothing = (y: string): (string | undefined)[] =>
        lintPolicy(model(y))
          .filter((f) => f.code === 'POLICY_CLASS_SELECTS_NOTHING')
          .map((f) => f.object);
      assert.deepEqual(selectsNothing(yaml), []);
      const typo = routeClass('h3', 'web', '{ matchLabels: { http.linkerd.io/version: HTTP/3 } }');
      assert.deepEqual(selectsNothing(yaml + typo), ['HttpRouteClass ns/h3']);
    });
  });

  it('the version label is derived: a route may not set it', () => {
    const { problems } = load(`
apiVersion: ${EXT}
kind: HttpRouteGroup
metadata: { name: g, namespace: ns }
spec:
  routes:
    - path: /
      labels: { http.linkerd.io/version: two }
---`);
    assert.deepEqual(
      problems.map((p) => [p.code, p.line]),
      [['POLICY_RESERVED_LABEL', 8]],
    );
  });
});

describe('route labels: path parameters at compile time', () => {
  const yaml = (selector: string): string =>
    pod() +
    server('web') +
    groupOnServer('web') +
    routeClass('by-book', 'web', selector) +
    policy('book-readers', { kind: 'HttpRouteClass', name: 'by-book' }, [
      { kind: 'ServiceAccount', name: 'reader' },
    ]);

  it('a class selects the routes whose template takes the parameter (Exists)', () => {
    const m = model(
      yaml('{ matchExpressions: [{ key: path.http.linkerd.io/book-id, operator: Exists }] }'),
    );
    const p = m.pod('ns', 'pod');
    assert.ok(p);
    const routes = m.portPolicy(p, 8080).table.routes;
    const covered = routes
      .filter((r) => r.authorizations.some((a) => a.name === 'authorizationpolicy/book-readers'))
      .map((r) => r.name);
    assert.deepEqual(covered, ['books:GET /books/:book-id']);
    const reader = ask(m, { path: '/books/7', identity: ID('reader') });
    assert.equal(reader.decision, 'allow', reader.trace.join('\n'));
    assert.equal(ask(m, { path: '/books', identity: ID('reader') }).decision, 'deny');
  });

  it('the compile-time value tells a rest parameter from a one-segment one', () => {
    const m = model(yaml('{ matchLabels: { path.http.linkerd.io/rest: "*rest" } }'));
    const d = ask(m, { path: '/files/a/b', identity: ID('reader') });
    assert.equal(d.decision, 'allow', d.trace.join('\n'));
    assert.equal(d.route, 'books:GET /files/*rest');
  });

  it("a request's parameter value is not known at compile time: a class on it selects nothing", () => {
    const m = model(yaml('{ matchLabels: { path.http.linkerd.io/book-id: "7" } }'));
    assert.equal(ask(m, { path: '/books/7', identity: ID('reader') }).decision, 'deny');
    const findings = lintPolicy(m).filter((f) => f.code === 'POLICY_CLASS_SELECTS_NOTHING');
    assert.deepEqual(
      findings.map((f) => f.object),
      ['HttpRouteClass ns/by-book'],
    );
  });
});
