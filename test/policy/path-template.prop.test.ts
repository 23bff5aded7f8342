// Property tests: the template router against the naive reference, the parser on any input,
// and the route index against a full scan. fast-check prints the seed on failure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  TemplateRouter,
  makeRequest,
  matchTemplate,
  parseTemplate,
} from '../../src/policy/index.js';
import type { Template } from '../../src/policy/index.js';
import { compareSpecificity } from '../../src/policy/path-template.js';
import { RouteTable } from '../../src/policy/routes/route-table.js';
import type { CompiledRoute } from '../../src/policy/routes/route-table.js';
import type { RouteMatchSpec } from '../../src/policy/types.js';
import { compilePattern } from '../../src/policy/pattern.js';
import type { Pattern } from '../../src/policy/pattern.js';

const segment = fc.oneof(
  fc.constantFrom('a', 'b', 'books', 'a-b'),
  fc.constantFrom(':id', ':book-id', ':x'),
);
const templateText = fc
  .tuple(fc.array(segment, { maxLength: 4 }), fc.boolean(), fc.boolean())
  .map(([segments, rest, slash]) => {
    const seen = new Set<string>();
    const named = segments
      .map((s, i) => (s.startsWith(':') ? `${s}${i}` : s))
      .filter((s) => !seen.has(s) && (seen.add(s), true));
    return `/${[...named, ...(rest ? ['*rest'] : [])].join('/')}${slash && named.length > 0 && !rest ? '/' : ''}`;
  });
const method = fc.constantFrom('GET', 'POST');
const routeArb = fc.tuple(templateText, fc.array(method, { maxLength: 2 }));
const pathArb = fc
  .tuple(
    fc.array(fc.constantFrom('a', 'b', 'books', 'a-b', '42', '', 'x.y'), { maxLength: 6 }),
    fc.boolean(),
  )
  .map(([parts, slash]) => `/${parts.join('/')}${slash ? '/' : ''}`);

/** The reference: every template that matches, most specific first, methods before any-method, then insertion order. */
function naive(
  routes: { template: Template; methods: string[]; id: number }[],
  m: string,
  path: string,
): { id: number; params: Record<string, string> } | null {
  const hits = routes
    .map((r) => ({ r, params: matchTemplate(r.template, path) }))
    .filter((h) => h.params !== undefined && (h.r.methods.length === 0 || h.r.methods.includes(m)));
  hits.sort(
    (x, y) =>
      compareSpecificity(x.r.template, y.r.template) ||
      Number(y.r.methods.includes(m)) - Number(x.r.methods.includes(m)) ||
      x.r.id - y.r.id,
  );
  const best = hits[0];
  return best === undefined ? null : { id: best.r.id, params: { ...best.params } };
}

test('template router ≡ naive matcher', () => {
  fc.assert(
    fc.property(fc.array(routeArb, { maxLength: 12 }), method, pathArb, (raw, m, path) => {
      const routes: { template: Template; methods: string[]; id: number }[] = [];
      const router = new TemplateRouter<number>();
      raw.forEach(([text, methods], id) => {
        const t = parseTemplate(text);
        assert.ok(!('error' in t), `${text}: ${'error' in t ? t.error : ''}`);
        const unique = [...new Set(methods)];
        routes.push({ template: t, methods: unique, id });
        router.add(t, unique, id);
      });
      const hit = router.find(m, path);
      const want = naive(routes, m, path);
      assert.deepEqual(hit === null ? null : { id: hit.value, params: { ...hit.params } }, want);
    }),
    { numRuns: 2000 },
  );
});

// Nodes with more than 8 static children look them up in a hash table: routes with many
// distinct first segments reach it, which the small alphabet above never does.
const wide = fc.integer({ min: 0, max: 39 }).map((i) => `s${i}`);
const wideTemplate = fc
  .tuple(wide, fc.oneof(wide, fc.constant(':id')), fc.boolean())
  .map(([a, b, two]) => (two ? `/${a}/${b}` : `/${a}`));
const widePath = fc
  .tuple(wide, fc.oneof(wide, fc.constant('42')), fc.boolean())
  .map(([a, b, two]) => (two ? `/${a}/${b}` : `/${a}`));

test('template router ≡ naive matcher on nodes with many static children', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(wideTemplate, fc.array(method, { maxLength: 1 })), {
        minLength: 9,
        maxLength: 60,
      }),
      method,
      widePath,
      (raw, m, path) => {
        const routes: { template: Template; methods: string[]; id: number }[] = [];
        const router = new TemplateRouter<number>();
        raw.forEach(([text, methods], id) => {
          const t = parseTemplate(text);
          assert.ok(!('error' in t), text);
          routes.push({ template: t, methods, id });
          router.add(t, methods, id);
        });
        const hit = router.find(m, path);
        assert.deepEqual(
          hit === null ? null : { id: hit.value, params: { ...hit.params } },
          naive(routes, m, path),
        );
      },
    ),
    { numRuns: 1500 },
  );
});

test('parseTemplate and makeRequest never throw and parse→shape is stable', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 40 }), (text) => {
      const t = parseTemplate(text);
      if (!('error' in t)) {
        const again = parseTemplate(t.text);
        assert.ok(!('error' in again));
        assert.equal(again.shape, t.shape);
      }
      makeRequest({ path: text, method: text, host: text, headers: [[text, text]] });
    }),
    { numRuns: 2000 },
  );
});

const pathMatch = fc.oneof(
  fc.record({
    type: fc.constant('Exact' as const),
    value: fc.constantFrom('/', '/a', '/a/b', '/a/', '/ab'),
  }),
  fc.record({
    type: fc.constant('PathPrefix' as const),
    value: fc.constantFrom('/', '/a', '/a/', '/a/b', '/ab', '//'),
  }),
  fc.constantFrom('/a.*', '/a|/ab', '/[ab]+', '/a/b').map((value) => ({
    type: 'RegularExpression' as const,
    value,
    regex: compilePattern(value) as Pattern,
  })),
);
const matchArb: fc.Arbitrary<RouteMatchSpec> = fc
  .record({
    path: pathMatch,
    headers: fc.array(
      fc.record({
        name: fc.constantFrom('x', 'y'),
        type: fc.constant('Exact' as const),
        value: fc.constantFrom('1', '2'),
      }),
      { maxLength: 2 },
    ),
    queryParams: fc.array(
      fc.record({
        name: fc.constantFrom('q'),
        type: fc.constant('Exact' as const),
        value: fc.constantFrom('1', '2'),
      }),
      { maxLength: 1 },
    ),
    method: fc.option(fc.constantFrom('GET', 'POST'), { nil: undefined }),
  })
  .map((m) =>
    m.method === undefined ? { path: m.path, headers: m.headers, queryParams: m.queryParams } : m,
  );
const compiledRoute = fc
  .record({
    name: fc.constantFrom('r1', 'r2', 'r3', 'r4'),
    created: fc.constantFrom('', '2024-01-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z'),
    hostnames: fc.constantFrom([], ['a.com'], ['*.a.com'], ['x.a.com', '*.com']),
    rules: fc.array(fc.array(matchArb, { minLength: 1, maxLength: 3 }), {
      minLength: 1,
      maxLength: 3,
    }),
  })
  .map((r): CompiledRoute => ({
    name: r.name,
    kind: 'HTTPRoute',
    created: r.created,
    hostnames: r.hostnames,
    rules: r.rules.map((matches) => ({ matches, filters: [] })),
    labels: Object.create(null),
    authorizations: [],
    timeouts: [],
    rewrites: [],
  }));
const requestArb = fc
  .record({
    path: fc.constantFrom('/', '/a', '/a/', '/a/b', '/a/b/', '/ab', '/a//b', '/b', '//'),
    method: fc.constantFrom('GET', 'POST'),
    host: fc.constantFrom(undefined, 'a.com', 'x.a.com', 'y.x.a.com', 'b.com'),
    x: fc.constantFrom(undefined, '1', '2'),
    q: fc.constantFrom('', '?q=1', '?q=2'),
  })
  .map((r) =>
    makeRequest({
      method: r.method,
      path: r.path + r.q,
      ...(r.host === undefined ? {} : { host: r.host }),
      headers: r.x === undefined ? [] : [['x', r.x]],
    }),
  );

test('route index ≡ full scan, in both precedence modes', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(compiledRoute, { selector: (r) => r.name, maxLength: 4 }),
      requestArb,
      fc.constantFrom('linkerd' as const, 'gateway-api' as const),
      (routes, request, precedence) => {
        const table = new RouteTable(routes);
        const a = table.find(request, precedence);
        const b = table.scan(request, precedence);
        assert.deepEqual(
          a === null ? null : [a.route.name, a.rule, a.match, a.score],
          b === null ? null : [b.route.name, b.rule, b.match, b.score],
        );
      },
    ),
    { numRuns: 3000 },
  );
});

test('findRule ≡ full scan (linkerd precedence), whenever it answers', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(compiledRoute, { selector: (r) => r.name, maxLength: 4 }),
      requestArb,
      (routes, request) => {
        const table = new RouteTable(routes);
        const quick = table.findRule(request);
        const b = table.scan(request, 'linkerd');
        // Undefined only for tables whose scores do not pack (gRPC) or with templates.
        assert.notEqual(quick, undefined);
        assert.deepEqual(
          quick === null || quick === undefined
            ? null
            : [quick.route.name, quick.rule, quick.match],
          b === null ? null : [b.route.name, b.rule, b.match],
        );
      },
    ),
    { numRuns: 3000 },
  );
});

// Many sibling prefixes (a node past its scanned children), shared heads that split, empty
// segments: the radix tree of PathPrefix entries against the scan.
const prefixSegment = fc.constantFrom(
  'a',
  'ab',
  'abc',
  'b',
  'c',
  'd',
  'e',
  'f',
  'g',
  '',
  'é',
  'a1',
);
const prefixPath = fc
  .array(prefixSegment, { minLength: 1, maxLength: 3 })
  .map((segments) => `/${segments.join('/')}`);
test('PathPrefix and Exact lookups ≡ full scan over many sibling prefixes', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          type: fc.constantFrom('PathPrefix' as const, 'Exact' as const),
          value: prefixPath,
          method: fc.option(fc.constantFrom('GET', 'POST'), { nil: undefined }),
        }),
        { minLength: 1, maxLength: 12 },
      ),
      prefixPath,
      fc.constantFrom('', '/', '/z'),
      fc.constantFrom('GET', 'POST'),
      (matches, path, tail, method) => {
        const route: CompiledRoute = {
          name: 'r',
          kind: 'HTTPRoute',
          created: '',
          hostnames: [],
          rules: matches.map((m) => ({
            matches: [
              {
                path: { type: m.type, value: m.value },
                headers: [],
                queryParams: [],
                ...(m.method === undefined ? {} : { method: m.method }),
              },
            ],
            filters: [],
          })),
          labels: Object.create(null),
          authorizations: [],
          timeouts: [],
          rewrites: [],
        };
        const table = new RouteTable([route]);
        const request = makeRequest({ method, path: path + tail });
        const want = table.scan(request, 'linkerd');
        const found = table.find(request, 'linkerd');
        const quick = table.findRule(request);
        const key = (h: { rule: number; match: number } | null | undefined): unknown =>
          h === null || h === undefined ? null : [h.rule, h.match];
        assert.deepEqual(key(found), key(want));
        assert.deepEqual(key(quick), key(want));
      },
    ),
    { numRuns: 3000 },
  );
});

const templateRoute = fc
  .record({
    name: fc.constantFrom('t1', 't2', 't3'),
    created: fc.constantFrom('', '2024-01-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z'),
    text: fc.constantFrom('/a', '/a/:x', '/:y', '/a/b', '/a/*rest', '/*rest', '/ab'),
    methods: fc.constantFrom([], ['GET'], ['POST']),
  })
  .map((r): CompiledRoute => {
    const template = parseTemplate(r.text) as Template;
    return {
      name: r.name,
      kind: 'HttpRouteGroup',
      created: r.created,
      hostnames: [],
      rules: [{ matches: [], filters: [] }],
      labels: Object.create(null),
      authorizations: [],
      timeouts: [],
      rewrites: [],
      template: { template, methods: r.methods, binding: 'b', group: 'g', index: 0 },
    };
  });

test('route index with templates ≡ scan + naive template choice', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.oneof(compiledRoute, templateRoute), {
        selector: (r) => r.name,
        maxLength: 6,
      }),
      requestArb,
      fc.constantFrom('linkerd' as const, 'gateway-api' as const),
      (routes, request, precedence) => {
        const table = new RouteTable(routes);
        const order = (r: CompiledRoute): number => table.routes.indexOf(r);
        const plain = table.scan(request, precedence);
        const templates = table.routes
          .filter(
            (r) =>
              r.template !== undefined &&
              matchTemplate(r.template.template, request.path) !== undefined,
          )
          .filter(
            (r) => r.template?.methods.length === 0 || r.template?.methods.includes(request.method),
          )
          .sort(
            (a, b) =>
              compareSpecificity(a.template!.template, b.template!.template) ||
              Number(b.template!.methods.length > 0) - Number(a.template!.methods.length > 0) ||
              order(a) - order(b),
          );
        const t = templates[0];
        let want: string | null = plain?.route.name ?? null;
        if (t !== undefined) {
          const method = t.template!.methods.length > 0 ? 1 : 0;
          const score =
            precedence === 'linkerd'
              ? [0, 0, request.path.length, 0, 0, method]
              : [0, 0, 1, request.path.length, method, 0, 0];
          const cmp =
            plain === null
              ? 1
              : (score.map((v, i) => v - (plain.score[i] as number)).find((d) => d !== 0) ?? 0);
          if (plain === null || cmp > 0 || (cmp === 0 && order(t) < order(plain.route)))
            want = t.name;
        }
        assert.equal(table.find(request, precedence)?.route.name ?? null, want);
      },
    ),
    { numRuns: 3000 },
  );
});
