// Conformance to Linkerd's outbound policy: cases recorded from Linkerd's own tests (the policy
// controller's outbound index and its annotation parsers, the policy-test outbound suites,
// linkerd2-proxy's route matcher with a Service parent), as data. A case either parses
// annotations (what the controller reads from a Service or route) or routes requests (what a
// client's proxy is told for a Service or an EgressNetwork port).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import {
  OutboundIndex,
  compilePolicy,
  computeMatrix,
  flowNamespaces,
  makeRequest,
  parseDestination,
  parseYamlDocs,
  readResources,
  routeOutbound,
} from '../../../../src/policy/index.js';
import type { OutboundDecision, PolicyMatrix } from '../../../../src/policy/index.js';
import {
  parseAccrual,
  parseBoolAnnotation,
  parseGrpcRetry,
  parseHttpRetry,
  parseLinkerdDuration,
  parseTimeouts,
} from '../../../../src/policy/outbound/annotations.js';

const CLUSTER_NETWORKS = [
  '10.0.0.0/8',
  '100.64.0.0/10',
  '172.16.0.0/12',
  '192.168.0.0/16',
  'fd00::/8',
];
const DIR = fileURLToPath(new URL('.', import.meta.url));

interface Upstream {
  repo: 'linkerd/linkerd2' | 'linkerd/linkerd2-proxy';
  file: string;
  test: string;
}

interface ParseCase {
  parser: 'duration' | 'bool' | 'timeouts' | 'httpRetry' | 'grpcRetry' | 'accrual';
  input: string | Record<string, string>;
  /** The parsed value (`null`: nothing configured), or `{ error: <substring> }`. */
  expect: unknown;
}

interface RouteCase {
  from?: string;
  to: string;
  method?: string;
  path?: string;
  host?: string;
  headers?: [string, string][];
  /** Fields of the decision that must hold (a subset, recursively for objects). */
  expect: Record<string, unknown>;
}

interface Case {
  name: string;
  upstream: Upstream;
  parse?: ParseCase[];
  objects?: string;
  prelude?: boolean;
  /** `admitted` (default) or the error codes, in order. */
  admission?: 'admitted' | string[];
  /** The cluster networks (default: Linkerd's). The index's unit tests resolve any address. */
  clusterNetworks?: string[];
  routes?: RouteCase[];
}

interface CaseFile {
  area: string;
  prelude?: string;
  cases: Case[];
}

const PARSERS: Record<ParseCase['parser'], (input: never) => unknown> = {
  duration: (s: string) => parseLinkerdDuration(s),
  bool: (s: string) => parseBoolAnnotation(s, 'annotation'),
  timeouts: (a: Record<string, string>) => parseTimeouts(a),
  httpRetry: (a: Record<string, string>) => parseHttpRetry(a),
  grpcRetry: (a: Record<string, string>) => parseGrpcRetry(a),
  accrual: (a: Record<string, string>) => parseAccrual(a),
};

function subset(actual: unknown, expected: unknown): unknown {
  if (Array.isArray(expected) && Array.isArray(actual))
    return expected.map((e, i) => subset(actual[i], e));
  if (expected === null || typeof expected !== 'object')
    return actual === undefined ? null : actual;
  if (actual === null || typeof actual !== 'object') return actual ?? null;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(expected))
    out[key] = subset(
      (actual as Record<string, unknown>)[key],
      (expected as Record<string, unknown>)[key],
    );
  return out;
}

function checkParse(p: ParseCase): void {
  const result = PARSERS[p.parser](p.input as never) as { value?: unknown; error?: string };
  const want = p.expect as { error?: string } | null;
  if (want !== null && typeof want === 'object' && 'error' in want) {
    assert.ok(
      result.error !== undefined,
      `${JSON.stringify(p.input)}: expected an error, got ${JSON.stringify(result)}`,
    );
    assert.ok(
      result.error.includes(want.error ?? ''),
      `error ${JSON.stringify(result.error)} lacks ${JSON.stringify(want.error)}`,
    );
    return;
  }
  assert.equal(result.error, undefined, `${JSON.stringify(p.input)}: ${result.error ?? ''}`);
  assert.deepEqual(subset(result.value ?? null, p.expect), p.expect, JSON.stringify(result.value));
}

/**
 * The matrix must hold the decision's flow for the client's namespace: same parent port (or the
 * EgressNetwork's other ports, `*`), route and rule, and the same outcome.
 */
function assertMatrixHas(matrix: PolicyMatrix, namespace: string, d: OutboundDecision) {
  const flows = matrix.outbound;
  const parents = [d.parent, d.parent?.replace(/:\d+$/, ':*')];
  // A Service without routes or outbound annotations has no outbound policy: no flow lists it.
  if (d.routeKind === 'default' && d.egress === null && !flows.some((f) => f.parent === d.parent))
    return;
  const flow = flows.find(
    (f) =>
      flowNamespaces(f, matrix.clientNamespaces).includes(namespace) &&
      parents.includes(f.parent) &&
      f.route === d.route &&
      f.rule === d.rule,
  );
  assert.ok(
    flow !== undefined,
    `no matrix flow for ${namespace} → ${d.parent} ${d.route} ${d.rule}: ${flows.map((f) => `${f.id} ${f.namespaces.join()}`).join('; ')}`,
  );
  const address = (name: string): string => (name === d.to ? '(original destination)' : name);
  assert.deepEqual(
    [flow.decision, flow.status, flow.backends, flow.timeouts, flow.retry, flow.circuitBreaker],
    [
      d.decision,
      d.status,
      d.backends.map((b) => ({ ...b, name: address(b.name) })),
      d.timeouts,
      d.retry,
      d.circuitBreaker,
    ],
    flow.id,
  );
}

function checkRoutes(file: CaseFile, c: Case): void {
  const text =
    c.prelude === false ? (c.objects ?? '') : `${file.prelude ?? ''}\n---\n${c.objects ?? ''}`;
  const parsed = parseYamlDocs(text, 'case.yaml');
  const read = readResources(parsed.docs);
  const errors = [...parsed.problems, ...read.problems]
    .filter((p) => p.severity === 'error')
    .map((p) => p.code);
  if (c.admission === undefined || c.admission === 'admitted')
    assert.deepEqual(errors, [], 'the objects must be admitted');
  else assert.deepEqual(errors, c.admission);
  const index = new OutboundIndex(read.resources);
  const clusterNetworks = c.clusterNetworks ?? CLUSTER_NETWORKS;
  const model = compilePolicy(read.resources, { clusterNetworks });
  const matrix = computeMatrix(model);
  for (const r of c.routes ?? []) {
    const [namespace = 'ns', name = 'client'] = (r.from ?? 'ns/client').split('/');
    const to = parseDestination(r.to);
    const host =
      r.host ?? ('service' in to ? `${to.service}.${to.namespace}.svc.cluster.local` : undefined);
    const decision = routeOutbound(index, {
      from: { namespace, name },
      to,
      request: makeRequest({
        method: r.method ?? 'GET',
        path: r.path ?? '/',
        headers: r.headers ?? [],
        ...(host === undefined ? {} : { host }),
      }),
      settings: { clusterNetworks },
    });
    assert.deepEqual(
      subset(decision, r.expect),
      r.expect,
      `${r.method ?? 'GET'} ${r.to}${r.path ?? '/'}:\n${decision.trace.join('\n')}`,
    );
    // The matrix's outbound flows say the same, for clients the input holds.
    if (
      decision.decision !== 'forward' &&
      model.podList.some((p) => p.meta.namespace === namespace)
    )
      assertMatrixHas(matrix, namespace, decision);
  }
}

const counts = new Map<string, number>();
for (const name of readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort()) {
  const file = parse(readFileSync(join(DIR, name), 'utf8')) as CaseFile;
  describe(`Linkerd outbound conformance: ${file.area} (${name})`, () => {
    for (const c of file.cases) {
      const key = `${c.upstream.repo} ${c.upstream.file}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      it(`${c.name} — ${c.upstream.repo} ${c.upstream.file} ${c.upstream.test}`, () => {
        assert.match(c.upstream.file, /\.rs$/, 'every case names its upstream file');
        assert.ok(
          (c.parse?.length ?? 0) + (c.routes?.length ?? 0) > 0,
          'a case must check something',
        );
        for (const p of c.parse ?? []) checkParse(p);
        if (c.objects !== undefined || c.routes !== undefined) checkRoutes(file, c);
      });
    }
  });
}

describe('Linkerd outbound conformance suite', () => {
  it('holds cases from the controller, policy-test and the proxy', () => {
    const files = [...counts.keys()];
    for (const part of ['outbound/index', 'policy-test/tests/outbound_api', 'linkerd/http/route'])
      assert.ok(
        files.some((f) => f.includes(part)),
        `no case from ${part}: ${files.join(', ')}`,
      );
  });
});
