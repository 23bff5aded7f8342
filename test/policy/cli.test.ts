// `labelwise policy …` in-process through the real dispatcher, on the homelab example.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DIR, ROOT, WEB, cli } from './cli-helpers.js';
import { tempDirSync } from '../support/temp.js';

describe('labelwise policy authorize', () => {
  it('--json gives the spec shape', async () => {
    const r = await cli(
      'authorize',
      DIR,
      '--pod',
      'booksapp/authors-0',
      '--port',
      '7001',
      '--method',
      'GET',
      '--path',
      '/authors/1.json',
      '--identity',
      WEB,
      '--client-ip',
      '10.1.2.3',
      '--json',
    );
    assert.equal(r.code, 0, r.err);
    const body = JSON.parse(r.out) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), [
      'decision',
      'status',
      'server',
      'route',
      'rule',
      'authorization',
      'timeout',
      'precedence',
      'trace',
      'diagnostics',
      'errors',
      'warnings',
    ]);
    assert.deepEqual(
      { ...body, trace: undefined },
      {
        decision: 'allow',
        status: 200,
        server: 'booksapp/authors-http',
        route: 'authors-get-route',
        rule: 0,
        authorization: 'authorizationpolicy/authors-get-policy',
        timeout: null,
        precedence: 'linkerd',
        trace: undefined,
        diagnostics: [],
        errors: 0,
        warnings: 0,
      },
    );
    assert.ok((body.trace as string[]).some((line) => line.includes('authors-get-policy')));
  });

  it('text output explains a 404 step by step', async () => {
    const r = await cli(
      'authorize',
      DIR,
      '--pod',
      'booksapp/authors-0',
      '--port',
      '7001',
      '--path',
      '/ping',
      '--client-ip',
      '10.0.0.9',
    );
    assert.equal(r.code, 0);
    assert.match(r.out, /^decision\s+not-found \(404\)$/m);
    assert.match(r.out, /why:\n\s+1\. server: booksapp\/authors-http/);
    assert.match(r.out, /route authors-modify-route does not match: method GET is not DELETE/);
    assert.match(
      r.out,
      /route authors-get-route does not match: path \/ping does not match PathPrefix \/authors\.json; .*PathPrefix \/authors\//,
    );
  });

  it('--precedence gateway-api is reported', async () => {
    const r = await cli(
      'authorize',
      DIR,
      '--pod',
      'booksapp/books-0',
      '--port',
      '7002',
      '--path',
      '/ping',
      '--client-ip',
      '10.0.0.9',
      '--precedence',
      'gateway-api',
      '--json',
    );
    assert.equal((JSON.parse(r.out) as { precedence: string }).precedence, 'gateway-api');
  });

  it('unknown pod: exit 1 with a JSON error and a hint', async () => {
    const r = await cli(
      'authorize',
      DIR,
      '--pod',
      'booksapp/nope',
      '--port',
      '80',
      '--path',
      '/',
      '--client-ip',
      '10.0.0.1',
      '--json',
    );
    assert.equal(r.code, 1);
    const body = JSON.parse(r.out) as { error: { code: string; hint: string } };
    assert.equal(body.error.code, 'POLICY_UNKNOWN_POD');
    assert.match(body.error.hint, /booksapp\/authors-0/);
  });

  it('bad client IP and bad header: exit 1, no stack', async () => {
    const ip = await cli(
      'authorize',
      DIR,
      '--pod',
      'booksapp/web-0',
      '--port',
      '7000',
      '--path',
      '/',
      '--client-ip',
      '10.0.0.300',
    );
    assert.equal(ip.code, 1);
    assert.match(ip.err, /POLICY_INVALID_CLIENT_IP/);
    assert.doesNotMatch(ip.err, /at .*\.ts:\d+/);
    const header = await cli(
      'authorize',
      DIR,
      '--pod',
      'booksapp/web-0',
      '--port',
      '7000',
      '--path',
      '/',
      '--client-ip',
      '10.0.0.3',
      '--header',
      'novalue',
    );
    assert.equal(header.code, 1);
    assert.match(header.err, /POLICY_INVALID_HEADER/);
  });

  it('a missing required flag is a usage error', async () => {
    const r = await cli('authorize', DIR, '--pod', 'booksapp/web-0');
    assert.equal(r.code, 1);
    assert.match(r.err, /required option/);
  });

  it('settings flags change the default policy; a bad one is refused', async () => {
    const r = await cli(
      'authorize',
      DIR,
      '--pod',
      'booksapp/traffic-0',
      '--port',
      '80',
      '--path',
      '/',
      '--client-ip',
      '8.8.8.8',
      '--json',
    );
    assert.equal((JSON.parse(r.out) as { server: string }).server, 'default:deny');
    const bad = await cli('lint', DIR, '--cluster-networks', '10.0.0.0/33');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /POLICY_INVALID_SETTING/);
  });

  it('--settings file, overridden by flags', async () => {
    const dir = tempDirSync('policy-cli');
    writeFileSync(
      join(dir, 'settings.yaml'),
      'defaultPolicy: cluster-authenticated\nclusterNetworks: [10.0.0.0/8]\n',
    );
    writeFileSync(
      join(dir, 'pod.yaml'),
      'apiVersion: v1\nkind: Pod\nmetadata: { name: p, namespace: ns }\n',
    );
    const a = await cli(
      'authorize',
      dir,
      '--settings',
      join(dir, 'settings.yaml'),
      '--pod',
      'ns/p',
      '--port',
      '80',
      '--path',
      '/',
      '--client-ip',
      '10.0.0.1',
      '--json',
    );
    assert.equal((JSON.parse(a.out) as { server: string }).server, 'default:cluster-authenticated');
    const b = await cli(
      'authorize',
      dir,
      '--settings',
      join(dir, 'settings.yaml'),
      '--default-policy',
      'deny',
      '--pod',
      'ns/p',
      '--port',
      '80',
      '--path',
      '/',
      '--client-ip',
      '10.0.0.1',
      '--json',
    );
    assert.equal((JSON.parse(b.out) as { server: string }).server, 'default:deny');
  });
});

describe('labelwise policy compile and lint', () => {
  it('compile --pod --json lists ports, servers, routes and authorizations', async () => {
    const r = await cli('compile', DIR, '--pod', 'booksapp/books-0', '--json');
    assert.equal(r.code, 0, r.err);
    const body = JSON.parse(r.out) as {
      pods: {
        pod: string;
        ports: { port: number; server: string; routes: { name: string }[] }[];
      }[];
    };
    assert.equal(body.pods.length, 1);
    assert.deepEqual(
      body.pods[0]?.ports.map((p) => [p.port, p.server, p.routes.map((x) => x.name)]),
      [[7002, 'booksapp/books-http', ['default', 'probe']]],
    );
  });

  it('compile text is a table', async () => {
    const r = await cli('compile', DIR);
    assert.match(r.out, /^POD\s+PORT\s+SERVER\s+PROTOCOL\s+ROUTES\s+AUTHORIZATIONS$/m);
    assert.match(r.out, /booksapp\/web-0\s+7000\s+booksapp\/web-http\s+HTTP\/1\s+11 routes:/);
  });

  it('lint --json: the documented finding, exit 0 (warnings only)', async () => {
    const r = await cli('lint', DIR, '--json');
    assert.equal(r.code, 0);
    const body = JSON.parse(r.out) as {
      diagnostics: { code: string; file: string; line: number }[];
      errors: number;
      warnings: number;
    };
    assert.equal(body.errors, 0);
    assert.deepEqual(
      body.diagnostics.map((f) => [f.code, f.file, f.line]),
      [
        ['POLICY_PROBE_NOT_ROUTED', 'examples/homelab/policy/pods.yaml', 43],
        ['POLICY_PROBE_NOT_ROUTED', 'examples/homelab/policy/pods.yaml', 43],
      ],
    );
  });

  it('lint exits 1 on errors and prints file:line', async () => {
    const r = await cli('lint', 'test/policy/fixtures/lint/authn-ref-missing');
    assert.equal(r.code, 1);
    assert.match(
      r.out,
      /^test\/policy\/fixtures\/lint\/authn-ref-missing\/policy\.yaml:20: error POLICY_AUTHN_REF_MISSING/m,
    );
  });

  it('a rejected Server: one error, dependents warned with its place, authorize shows why', async () => {
    const dir = tempDirSync('policy-cli');
    writeFileSync(
      join(dir, 'policy.yaml'),
      [
        'apiVersion: v1',
        'kind: Pod',
        'metadata: { name: web-0, namespace: ns, labels: { app: web } }',
        'spec: { containers: [{ name: app, ports: [{ containerPort: 8080 }] }] }',
        '---',
        'apiVersion: policy.linkerd.io/v1beta3',
        'kind: Server',
        'metadata: { name: web, namespace: ns }',
        'spec:',
        '  podSelector: { matchLabels: { app: web } }',
        '  port: 8080',
        '  proxyProtocol: HTTP/7',
        '---',
        'apiVersion: gateway.networking.k8s.io/v1',
        'kind: HTTPRoute',
        'metadata: { name: api, namespace: ns }',
        'spec:',
        '  parentRefs: [{ group: policy.linkerd.io, kind: Server, name: web }]',
        '',
      ].join('\n'),
    );
    const lint = await cli('lint', dir, '--json');
    assert.equal(lint.code, 1);
    const body = JSON.parse(lint.out) as {
      diagnostics: { severity: string; code: string; line: number; message: string }[];
      errors: number;
      warnings: number;
    };
    assert.deepEqual(
      body.diagnostics.map((f) => [f.severity, f.code, f.line]),
      [
        ['error', 'POLICY_INVALID_PROTOCOL', 12],
        ['warning', 'POLICY_REF_INVALID', 18],
      ],
    );
    assert.match(
      body.diagnostics[1]?.message ?? '',
      /Server ns\/web is invalid \(see its error at .*policy\.yaml:12\)/,
    );
    assert.deepEqual([body.errors, body.warnings], [1, 1]);
    const decided = await cli(
      'authorize',
      dir,
      '--pod',
      'ns/web-0',
      '--port',
      '8080',
      '--path',
      'api',
      '--client-ip',
      '10.0.0.1',
    );
    assert.equal(decided.code, 1);
    assert.match(decided.err, /POLICY_RELATIVE_PATH/);
    const text = await cli(
      'authorize',
      dir,
      '--pod',
      'ns/web-0',
      '--port',
      '8080',
      '--path',
      '/api',
      '--client-ip',
      '10.0.0.1',
    );
    assert.equal(text.code, 0, text.err);
    assert.match(text.err, /^1 problem\(s\) in the input; the objects concerned are left out/);
    assert.match(text.err, /policy\.yaml:12: error POLICY_INVALID_PROTOCOL \[Server ns\/web\]/);
    assert.match(text.out, /not considered: Server ns\/web is invalid/);
  });

  it('a settings file that never ends is refused, not read for ever', async (t) => {
    if (!existsSync('/dev/zero')) {
      t.skip('no /dev/zero on this system');
      return;
    }
    const r = await cli('lint', DIR, '--settings', '/dev/zero', '--json');
    assert.equal(r.code, 1);
    const body = JSON.parse(r.out) as { error: { code: string; file: string } };
    assert.deepEqual([body.error.code, body.error.file], ['POLICY_INVALID_SETTING', '/dev/zero']);
  });

  it('an unreadable directory exits 3', async () => {
    const r = await cli('lint', 'no/such/dir');
    assert.equal(r.code, 3);
    assert.match(r.err, /POLICY_UNREADABLE/);
  });

  it('--help shows a real example', async () => {
    const r = await cli('authorize', '--help');
    assert.equal(r.code, 0);
    assert.match(r.out, /labelwise policy authorize examples\/homelab\/policy/);
  });
});

describe('labelwise policy through the real bin', () => {
  it('authorize --json from a child process', () => {
    const r = spawnSync(
      process.execPath,
      [
        'bin/labelwise.js',
        'policy',
        'authorize',
        DIR,
        '--pod',
        'booksapp/books-0',
        '--port',
        '7002',
        '--path',
        '/ping',
        '--client-ip',
        '10.0.0.9',
        '--json',
      ],
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(r.status, 0, r.stderr);
    const body = JSON.parse(r.stdout) as { decision: string; route: string; authorization: string };
    assert.deepEqual([body.decision, body.route, body.authorization], ['allow', 'probe', 'probe']);
  });
});
