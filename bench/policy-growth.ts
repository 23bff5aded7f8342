/**
 * Inputs for the lint growth figures: one large policy file of many objects (the shape of a
 * rendered Helm chart: pods, Servers, routes with several rules, policies and authentications in
 * one stream), and many Servers in one namespace. Both are generated as YAML text so the whole
 * `policy lint` path — parse, validate, compile, lint — is what gets timed.
 */
import { compilePolicy, lintPolicy, parseYamlDocs, readResources } from '../src/policy/index.js';
import { consume, medianOf } from './harness.js';
import type { BenchResult } from './harness.js';

/**
 * One stream of `apps` applications, each a pod, a Server, two routes and two policies, plus one
 * gateway route of `10 × apps` rules on the first Server (generated route tables are long).
 * `apps = 200` is about 850 KB.
 */
export function largeFileYaml(apps: number): string {
  const parts: string[] = [];
  parts.push(`apiVersion: v1
kind: Namespace
metadata:
  name: shop
  annotations:
    config.linkerd.io/default-inbound-policy: deny
`);
  parts.push(`apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata:
  name: shop-clients
  namespace: shop
spec:
  identityRefs:
    - kind: Namespace
      name: shop
`);
  for (let a = 0; a < apps; a++) {
    parts.push(`apiVersion: v1
kind: Pod
metadata:
  name: app${a}-0
  namespace: shop
  labels:
    app: app${a}
    tier: ${['web', 'api', 'db'][a % 3]}
spec:
  serviceAccountName: app${a}
  containers:
    - name: main
      ports:
        - name: http
          containerPort: 8080
      readinessProbe:
        httpGet:
          path: /ready
          port: http
`);
    parts.push(`apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata:
  name: app${a}-http
  namespace: shop
  labels:
    app: app${a}
spec:
  podSelector:
    matchLabels:
      app: app${a}
  port: http
  proxyProtocol: HTTP/1
`);
    for (const verb of ['read', 'write']) {
      parts.push(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: app${a}-${verb}
  namespace: shop
spec:
  parentRefs:
    - group: policy.linkerd.io
      kind: Server
      name: app${a}-http
  rules:
    - matches:
        - path:
            type: PathPrefix
            value: /api/${verb}/${a}
          method: ${verb === 'read' ? 'GET' : 'POST'}
        - path:
            type: Exact
            value: /api/${verb}/all
    - matches:
        - path:
            type: PathPrefix
            value: /v2/${verb}
          headers:
            - name: x-tenant
              value: t${a % 7}
    - matches:
        - path:
            type: Exact
            value: /ready
`);
      parts.push(`apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata:
  name: app${a}-${verb}
  namespace: shop
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: app${a}-${verb}
  requiredAuthenticationRefs:
    - group: policy.linkerd.io
      kind: MeshTLSAuthentication
      name: shop-clients
`);
    }
  }
  const rules: string[] = [];
  for (let r = 0; r < apps * 10; r++) {
    rules.push(`    - matches:
        - path:
            type: PathPrefix
            value: /gw/r${r}
          method: GET
        - path:
            type: Exact
            value: /gw/r${r}/x
`);
  }
  parts.push(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: gateway
  namespace: shop
spec:
  parentRefs:
    - group: policy.linkerd.io
      kind: Server
      name: app0-http
  rules:
${rules.join('')}`);
  return parts.join('---\n');
}

/** `servers` Servers in one namespace, each selecting its own pod, with one ServerAuthorization each. */
export function manyServersYaml(servers: number): string {
  const parts: string[] = [];
  for (let s = 0; s < servers; s++) {
    parts.push(`apiVersion: v1
kind: Pod
metadata:
  name: pod${s}
  namespace: big
  labels:
    app: app${s}
spec:
  containers:
    - name: main
      ports:
        - name: http
          containerPort: 8080
        - name: admin
          containerPort: 9990
`);
    parts.push(`apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata:
  name: srv${s}
  namespace: big
  labels:
    app: app${s}
spec:
  podSelector:
    matchLabels:
      app: app${s}
  port: ${s % 2 === 0 ? 'http' : 8080}
  proxyProtocol: HTTP/1
`);
    parts.push(`apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata:
  name: srv${s}-clients
  namespace: big
spec:
  server:
    name: srv${s}
  client:
    meshTLS:
      serviceAccounts:
        - name: client${s % 50}
`);
  }
  return parts.join('---\n');
}

/** Parse, validate, compile and lint one YAML stream, as `policy lint` does. */
function lintText(text: string): number {
  const parsed = parseYamlDocs(text, 'input.yaml');
  const read = readResources(parsed.docs);
  const model = compilePolicy(read.resources);
  return parsed.problems.length + read.problems.length + lintPolicy(model).length;
}

/** CPU time (user and system, this process) of one call, and its wall time, in ms. */
function cpuOnce<T>(fn: () => T): { cpuMs: number; wallMs: number; value: T } {
  const wall = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const value = fn();
  const used = process.cpuUsage(cpu);
  return {
    cpuMs: (used.user + used.system) / 1000,
    wallMs: Number(process.hrtime.bigint() - wall) / 1e6,
    value,
  };
}

interface Timed {
  cpuMs: number[];
  wallMs: number[];
  findings: number;
}

/**
 * Lint runs of the small and the large input, interleaved (small, large, small, …) so that
 * load from other processes falls on both alike; each run's CPU time is what the ratio uses.
 */
function interleaved(
  rounds: { small: number; large: number },
  small: string,
  large: string,
): { small: Timed; large: Timed } {
  const out = {
    small: { cpuMs: [], wallMs: [], findings: 0 } as Timed,
    large: { cpuMs: [], wallMs: [], findings: 0 } as Timed,
  };
  const runs = Math.max(rounds.small, rounds.large);
  for (let i = 0; i < runs; i++)
    for (const [which, text, count] of [
      ['small', small, rounds.small],
      ['large', large, rounds.large],
    ] as const) {
      if (i >= count) continue;
      const t = cpuOnce(() => lintText(text));
      out[which].cpuMs.push(t.cpuMs);
      out[which].wallMs.push(t.wallMs);
      out[which].findings = t.value;
    }
  return out;
}

/**
 * `policy lint` at 1× and 10× of each input: a large file (85 KB → 850 KB, the size of the
 * file that took 26 s) and many Servers in one namespace (600 → 6,000, the case that took
 * 68 s). The ratio is near 10 when lint is linear; 100 would mean quadratic. It is the median
 * CPU time of the 10× runs over that of the 1× runs (interleaved): CPU time, unlike wall time,
 * does not grow when other processes share the cores. `ms` is the median wall time, for context.
 */
export function lintGrowth(results: BenchResult[], ratios: Record<string, number>): void {
  consume(lintText(largeFileYaml(5)));
  consume(lintText(manyServersYaml(300)));
  const cases = [
    ['file', 'lint_growth_file_10x', (n: number) => largeFileYaml(20 * n)],
    ['servers', 'lint_growth_servers_10x', (n: number) => manyServersYaml(600 * n)],
  ] as const;
  for (const [what, ratio, make] of cases) {
    const small = make(1);
    const large = make(10);
    const { small: one, large: ten } = interleaved({ small: 9, large: 5 }, small, large);
    const kb = (text: string): string => `${Math.round(text.length / 1024)} KB`;
    for (const [scale, text, t] of [
      ['1x', small, one],
      ['10x', large, ten],
    ] as const)
      results.push({
        name: `lint ${what} ${scale} (${kb(text)})`,
        ms: medianOf(t.wallMs),
        cpu_ms: medianOf(t.cpuMs),
        runs: t.cpuMs.length,
        findings: t.findings,
      });
    ratios[ratio] = medianOf(ten.cpuMs) / medianOf(one.cpuMs);
  }
}
