// Conformance to Linkerd: cases recorded from Linkerd's own tests (the policy controller's
// index and admission tests, the policy-test suite, linkerd2-proxy's route matcher), as data.
// Each case file holds one area; each case names its upstream repository, file and test, the
// objects, and what Linkerd decides: admission, the compiled port, or a request's outcome.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { compilePolicy, decide, parseYamlDocs, readResources } from '../../../src/policy/index.js';
import type { PolicyModel, SettingsInput } from '../../../src/policy/index.js';

const DIR = fileURLToPath(new URL('.', import.meta.url));

interface Upstream {
  repo: 'linkerd/linkerd2' | 'linkerd/linkerd2-proxy';
  file: string;
  /** The test, or `fn: <name>` / `schema: <field>` where the rule sits in code or a CRD. */
  test: string;
}

interface RequestCase {
  /** `ns/name` of the pod (default: the file's `pod`). */
  pod?: string;
  port?: number;
  method?: string;
  path?: string;
  host?: string;
  headers?: [string, string][];
  identity?: string;
  clientIp?: string;
  rate?: number;
  totalRate?: number;
  /** Fields of the decision that must hold (a subset). */
  expect: Record<string, unknown>;
}

interface PortCase {
  pod?: string;
  port: number;
  expect: {
    server?: string;
    protocol?: string;
    /** Route names of the port's table, in table order. */
    routes?: string[];
    /** Server-level authorization names, in order (localhost last). */
    authorizations?: string[];
    /** Exact paths of the probe route; [] when there is none. */
    probePaths?: string[];
    rateLimit?: string | null;
  };
}

interface Case {
  name: string;
  upstream: Upstream;
  /** Kubernetes YAML; the file's `prelude` is prepended unless `prelude: false`. */
  objects: string;
  prelude?: boolean;
  settings?: SettingsInput;
  /** `admitted`: no error; otherwise the error codes, in order. */
  admission?: 'admitted' | string[];
  ports?: PortCase[];
  requests?: RequestCase[];
}

interface CaseFile {
  area: string;
  prelude?: string;
  pod?: string;
  cases: Case[];
}

const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

function compile(file: CaseFile, c: Case): { model: PolicyModel; errors: string[] } {
  const text = c.prelude === false ? c.objects : `${file.prelude ?? ''}\n---\n${c.objects}`;
  const parsed = parseYamlDocs(text, 'case.yaml');
  const read = readResources(parsed.docs);
  const errors = [...parsed.problems, ...read.problems]
    .filter((p) => p.severity === 'error')
    .map((p) => p.code);
  return { model: compilePolicy(read.resources, c.settings ?? {}), errors };
}

function subset(actual: Record<string, unknown>, expected: Record<string, unknown>): unknown {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(expected)) {
    const value = actual[key];
    const want = expected[key];
    out[key] =
      want !== null &&
      typeof want === 'object' &&
      !Array.isArray(want) &&
      value !== null &&
      typeof value === 'object'
        ? subset(value as Record<string, unknown>, want as Record<string, unknown>)
        : value === undefined
          ? null
          : value;
  }
  return out;
}

function podOf(file: CaseFile, ref: string | undefined): string {
  const pod = ref ?? file.pod;
  assert.ok(pod !== undefined, 'a request names no pod and the file has no default pod');
  return pod;
}

let total = 0;
const byArea = new Map<string, number>();

for (const name of files) {
  const file = parse(readFileSync(join(DIR, name), 'utf8')) as CaseFile;
  byArea.set(file.area, (byArea.get(file.area) ?? 0) + file.cases.length);
  total += file.cases.length;
  describe(`Linkerd conformance: ${file.area} (${name})`, () => {
    for (const c of file.cases) {
      it(`${c.name} — ${c.upstream.repo} ${c.upstream.file} ${c.upstream.test}`, () => {
        assert.match(c.upstream.file, /\.(rs|yaml)$/, 'every case names its upstream file');
        const { model, errors } = compile(file, c);
        const checks = (c.admission === undefined ? 0 : 1) + (c.ports?.length ?? 0);
        assert.ok(checks + (c.requests?.length ?? 0) > 0, 'a case must check something');
        if (c.admission === 'admitted' || c.admission === undefined)
          assert.deepEqual(errors, [], 'the objects must be admitted');
        else assert.deepEqual(errors, c.admission);
        for (const p of c.ports ?? []) {
          const pod = model.podByRef(podOf(file, p.pod));
          const policy = model.portPolicy(pod, p.port);
          const actual: Record<string, unknown> = {
            server: policy.server,
            protocol: policy.protocol,
            routes: policy.table.routes.map((r) => r.name),
            authorizations: policy.authorizations.map((a) => a.name),
            probePaths:
              policy.table.routes
                .find((r) => r.kind === 'probe')
                ?.rules.flatMap((r) => r.matches.map((m) => m.path.value)) ?? [],
            rateLimit: policy.rateLimit?.name ?? null,
          };
          assert.deepEqual(
            subset(actual, p.expect),
            p.expect,
            `port ${p.port}: ${JSON.stringify(actual)}`,
          );
        }
        for (const r of c.requests ?? []) {
          const decision = decide(model, {
            pod: podOf(file, r.pod),
            port: r.port ?? 8080,
            method: r.method ?? 'GET',
            path: r.path ?? '/',
            ...(r.host === undefined ? {} : { host: r.host }),
            headers: r.headers ?? [],
            ...(r.identity === undefined ? {} : { identity: r.identity }),
            clientIp: r.clientIp ?? '10.1.2.3',
            ...(r.rate === undefined ? {} : { rate: r.rate }),
            ...(r.totalRate === undefined ? {} : { totalRate: r.totalRate }),
          });
          assert.deepEqual(
            subset(decision as unknown as Record<string, unknown>, r.expect),
            r.expect,
            `${r.method ?? 'GET'} ${r.path ?? '/'}:\n${decision.trace.join('\n')}`,
          );
        }
      });
    }
  });
}

describe('Linkerd conformance suite', () => {
  it('holds cases from every upstream source', () => {
    assert.ok(total >= 60, `only ${total} cases`);
    assert.ok(byArea.size >= 5, `only ${byArea.size} areas`);
  });
});
