// Lint fixtures: each directory under fixtures/lint triggers exactly one finding (clean: none).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compilePolicy, lintPolicy, loadPolicyDir } from '../../src/policy/index.js';

const FIXTURES = join(fileURLToPath(new URL('.', import.meta.url)), 'fixtures', 'lint');

const cases: {
  dir: string;
  code?: string;
  severity?: 'error' | 'warning';
  line?: number;
  object?: string;
  witness?: unknown;
  mentions?: string[];
}[] = [
  {
    dir: 'authn-ref-missing',
    code: 'POLICY_AUTHN_REF_MISSING',
    severity: 'error',
    line: 20,
    object: 'AuthorizationPolicy ns/web-clients',
    mentions: ['MeshTLSAuthentication ns/cleints'],
  },
  {
    dir: 'target-missing',
    code: 'POLICY_TARGET_MISSING',
    severity: 'warning',
    line: 12,
    mentions: ['Server ns/webb'],
  },
  {
    dir: 'route-parent-missing',
    code: 'POLICY_ROUTE_PARENT_MISSING',
    severity: 'error',
    line: 13,
    object: 'HTTPRoute ns/api',
  },
  {
    dir: 'route-conflicted',
    code: 'POLICY_ROUTE_CONFLICTED',
    severity: 'warning',
    line: 21,
    object: 'HTTPRoute ns/http',
    mentions: ['GRPCRoutes'],
  },
  {
    dir: 'route-parent-ignored',
    code: 'POLICY_ROUTE_PARENT_IGNORED',
    severity: 'warning',
    line: 14,
    mentions: ['sets port'],
  },
  {
    dir: 'route-parent-default-kind',
    code: 'POLICY_ROUTE_PARENT_IGNORED',
    severity: 'warning',
    line: 14,
    object: 'HTTPRoute ns/api',
    mentions: ['no group or kind', 'Gateway'],
  },
  {
    dir: 'server-overlap',
    code: 'POLICY_SERVER_OVERLAP',
    severity: 'warning',
    line: 8,
    object: 'Server ns/canary',
    witness: { pod: { app: 'web', track: 'canary' } },
    mentions: ['web wins as the older'],
  },
  {
    dir: 'probe-not-routed',
    code: 'POLICY_PROBE_NOT_ROUTED',
    severity: 'warning',
    line: 8,
    object: 'Pod ns/web-0',
    mentions: ['GET /healthz', '404'],
  },
  {
    dir: 'rule-shadowed',
    code: 'POLICY_RULE_SHADOWED',
    severity: 'warning',
    line: 22,
    object: 'HTTPRoute ns/books-exact',
    mentions: ['rule 0', 'books-prefix rule 0'],
  },
  {
    dir: 'route-policy-no-effect',
    code: 'POLICY_ROUTE_POLICY_NO_EFFECT',
    severity: 'warning',
    line: 17,
    mentions: ['default:all-unauthenticated'],
  },
  {
    dir: 'authz-broader-than-routes',
    code: 'POLICY_AUTHZ_BROADER_THAN_ROUTES',
    severity: 'warning',
    line: 42,
    object: 'ServerAuthorization ns/reader-everywhere',
    mentions: ['write (DELETE)', 'Server api'],
  },
  {
    dir: 'rewrite-collision',
    code: 'POLICY_REWRITE_COLLISION',
    severity: 'warning',
    line: 32,
    object: 'HeaderRewritePolicy ns/set-foobar',
    witness: {
      request: {
        method: 'GET',
        path: '/items/x',
        headers: { 'content-type': 'application/json', host: 'example.com' },
      },
    },
  },
  {
    dir: 'route-group-missing',
    code: 'POLICY_ROUTE_GROUP_MISSING',
    severity: 'error',
    line: 8,
    mentions: ['ns/api-v2'],
  },
  {
    dir: 'invalid-annotation',
    code: 'POLICY_INVALID_ANNOTATION',
    severity: 'error',
    line: 1,
    object: 'Pod ns/web-0',
  },
  {
    dir: 'route-on-opaque',
    code: 'POLICY_ROUTE_ON_OPAQUE',
    severity: 'warning',
    line: 1,
    object: 'Server ns/db',
    mentions: ['opaque', 'admin'],
  },
  {
    dir: 'class-selects-nothing',
    code: 'POLICY_CLASS_SELECTS_NOTHING',
    severity: 'warning',
    line: 24,
    object: 'HttpRouteClass ns/idempotent',
    mentions: ['http.linkerd.io/idempotent=true'],
  },
  { dir: 'clean' },
];

describe('policy lint fixtures', () => {
  for (const c of cases) {
    it(`${c.dir}: ${c.code ?? 'no findings'}`, async () => {
      const loaded = await loadPolicyDir(join(FIXTURES, c.dir), { root: FIXTURES });
      assert.deepEqual(loaded.problems, []);
      const findings = lintPolicy(compilePolicy(loaded.resources));
      if (c.code === undefined) {
        assert.deepEqual(findings, []);
        return;
      }
      assert.equal(findings.length, 1, JSON.stringify(findings, null, 2));
      const [f] = findings;
      assert.ok(f);
      assert.equal(f.code, c.code);
      assert.equal(f.severity, c.severity);
      assert.equal(f.file, `${c.dir}/policy.yaml`);
      assert.equal(f.line, c.line, f.message);
      if (c.object !== undefined) assert.equal(f.object, c.object);
      if (c.witness !== undefined)
        assert.deepEqual(JSON.parse(JSON.stringify(f.witness)), c.witness);
      for (const text of c.mentions ?? [])
        assert.ok(f.message.includes(text), `${JSON.stringify(text)} not in: ${f.message}`);
    });
  }

  it('the homelab example has exactly its documented finding', async () => {
    const dir = fileURLToPath(new URL('../../examples/homelab/policy', import.meta.url));
    const loaded = await loadPolicyDir(dir);
    assert.deepEqual(loaded.problems, []);
    const findings = lintPolicy(compilePolicy(loaded.resources));
    assert.deepEqual(
      findings.map((f) => [f.code, f.object, f.message.slice(0, 26)]),
      [
        ['POLICY_PROBE_NOT_ROUTED', 'Pod booksapp/authors-0', 'probe GET /ping on port 70'],
        ['POLICY_PROBE_NOT_ROUTED', 'Pod booksapp/authors-0', 'probe GET /ready on port 7'],
      ],
    );
  });
});
