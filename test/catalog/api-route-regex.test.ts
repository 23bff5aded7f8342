// auth.apiRoutes are compiled by the proxy with RE2 (Go's regexp): what JavaScript accepts but
// RE2 refuses would crash-loop the sidecar, so it is refused when the catalog loads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { apiRouteProblem } from '../../src/catalog/apply/api-route-regex.js';
import { catalogSchemas, loadCatalog } from '../../src/catalog/index.js';
import { catalogOf } from './helpers.js';

const rows: { name: string; pattern: string; want: RegExp | undefined }[] = [
  { name: 'anchored prefix', pattern: '^/api/', want: undefined },
  { name: 'alternation and classes', pattern: '^/(api|health)[a-z0-9_-]*$', want: undefined },
  { name: 'escaped parenthesis is a literal', pattern: '^/x\\(?=y', want: undefined },
  { name: 'lookahead inside a class is literal', pattern: '^/[(?=]', want: undefined },
  { name: 'a leading ] is a class member', pattern: '^/[]?=]+$', want: undefined },
  { name: 'RE2 named group (?P<name>)', pattern: '^/(?P<v>v[0-9])/', want: undefined },
  { name: 'RE2 inline flags (?i)', pattern: '(?i)^/api/', want: undefined },
  { name: 'RE2 flag group (?i:…)', pattern: '^/(?i:api)/', want: undefined },
  { name: 'RE2 text anchors \\A and \\z', pattern: '\\A/api\\z', want: undefined },
  { name: 'a trailing backslash', pattern: '^/api\\', want: /is not a valid regular expression/ },
  { name: 'invalid', pattern: '^/api/(', want: /is not a valid regular expression/ },
  { name: 'lookahead', pattern: '^/api/(?=v2)', want: /a lookahead \(\?=…\)/ },
  { name: 'negative lookahead', pattern: '^/(?!login)', want: /a negative lookahead/ },
  { name: 'lookbehind', pattern: '(?<=/api)/x', want: /a lookbehind/ },
  { name: 'negative lookbehind', pattern: '(?<!/admin)/x', want: /a negative lookbehind/ },
  { name: 'backreference', pattern: '^/(a)\\1$', want: /backreference \\1/ },
  { name: 'named backreference', pattern: '^/(?<v>a)\\k<v>$', want: /named backreference/ },
];

for (const row of rows) {
  test(`apiRoutes: ${row.name}`, () => {
    const problem = apiRouteProblem(row.pattern);
    if (row.want === undefined) assert.equal(problem, undefined);
    else assert.match(problem ?? '(accepted)', row.want);
  });
}

test('apiRoutes: a lookbehind is a CATALOG_AUTH_API_ROUTES error at its line', () => {
  const loaded = loadCatalog(
    catalogOf({
      'web.yaml':
        "name: web\nsource: { image: x:1 }\nauth:\n  apiRoutes:\n    - '^/api/'\n    - '(?<=/api)/v2'\ningressRoutes: [{ host: web.home.example.net, port: 80 }]\n",
    }),
    catalogSchemas(),
  );
  assert.deepEqual(
    loaded.errors.map((e) => `${e.code}:${e.source.line}:${e.source.path}`),
    ['CATALOG_AUTH_API_ROUTES:6:auth.apiRoutes[1]'],
  );
});

test('apiRouteProblem never throws, for any text', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (pattern) => {
      const problem = apiRouteProblem(pattern);
      assert.ok(problem === undefined || problem.length > 0);
    }),
    { numRuns: 500 },
  );
});
