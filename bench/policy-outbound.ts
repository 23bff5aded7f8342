/**
 * Outbound routing against find-my-way: one Service with 1,000 route rules (PathPrefix and Exact
 * paths with methods, as HTTPRoutes write them), and the same table in find-my-way (a prefix
 * `/p` is `/p` plus `/p/*`). Ours routes a whole outbound request — destination, route rule,
 * backends and their shares, timeouts, retries — with the trace off; both must pick the same
 * rule for every request before timing.
 */
import FindMyWay from 'find-my-way';
import { compareCpu, ratioRange, rng } from './harness.js';
import type { BenchResult } from './harness.js';
import {
  OutboundIndex,
  makeRequest,
  parseYamlDocs,
  readResources,
  routeOutbound,
} from '../src/policy/index.js';
import type { OutboundInput, PolicyRequest } from '../src/policy/index.js';

interface Rule {
  readonly type: 'PathPrefix' | 'Exact';
  readonly path: string;
  readonly method: 'GET' | 'POST';
  readonly id: string;
}

function rules(): Rule[] {
  const out: Rule[] = [];
  for (let v = 1; v <= 2; v++)
    for (let r = 0; r < 100; r++) {
      const base = `/api/v${v}/res${r}`;
      out.push({ type: 'PathPrefix', path: base, method: 'GET', id: `${v}-${r}-list` });
      out.push({ type: 'Exact', path: base, method: 'POST', id: `${v}-${r}-create` });
      out.push({ type: 'Exact', path: `${base}/search`, method: 'GET', id: `${v}-${r}-search` });
      out.push({ type: 'PathPrefix', path: `${base}/admin`, method: 'GET', id: `${v}-${r}-admin` });
      out.push({
        type: 'PathPrefix',
        path: `${base}/admin`,
        method: 'POST',
        id: `${v}-${r}-admin-post`,
      });
    }
  return out;
}

/** The rules as 10 HTTPRoutes of 100 rules each on Service `api`, every rule to a backend. */
function yaml(table: readonly Rule[]): string {
  const parts = [
    'apiVersion: v1\nkind: Namespace\nmetadata: { name: ns }',
    'apiVersion: v1\nkind: Pod\nmetadata: { name: client, namespace: ns }\nspec: { containers: [{ name: c }] }',
    'apiVersion: v1\nkind: Service\nmetadata: { name: api, namespace: ns, annotations: { retry.linkerd.io/http: 5xx, timeout.linkerd.io/response: 2s } }\nspec: { ports: [{ port: 80 }] }',
    'apiVersion: v1\nkind: Service\nmetadata: { name: api-v2, namespace: ns }\nspec: { ports: [{ port: 80 }] }',
  ];
  for (let route = 0; route < 10; route++) {
    const slice = table.slice(route * 100, route * 100 + 100);
    parts.push(
      `apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: { name: r${route}, namespace: ns, creationTimestamp: "2024-01-${String(route + 1).padStart(2, '0')}T00:00:00Z" }\nspec:\n  parentRefs: [{ group: core, kind: Service, name: api, port: 80 }]\n  rules:\n${slice
        .map(
          (r) =>
            `    - matches: [{ method: ${r.method}, path: { type: ${r.type}, value: "${r.path}" } }]\n      backendRefs: [{ name: api, port: 80, weight: 90 }, { name: api-v2, port: 80, weight: 10 }]`,
        )
        .join('\n')}`,
    );
  }
  return parts.join('\n---\n');
}

export function outboundLookups(
  results: BenchResult[],
  ratios: Record<string, number>,
  extra: Record<string, unknown>,
  seed: number,
): void {
  const table = rules();
  const read = readResources(parseYamlDocs(yaml(table), 'bench.yaml').docs);
  const index = new OutboundIndex(read.resources);
  const fmw = FindMyWay({ ignoreTrailingSlash: true });
  const byRule = new Map<string, number>();
  table.forEach((r, i) => {
    byRule.set(`ns/r${Math.floor(i / 100)}#${i % 100}`, i);
    fmw.on(r.method, r.path, () => undefined, { id: i });
    if (r.type === 'PathPrefix') fmw.on(r.method, `${r.path}/*`, () => undefined, { id: i });
  });
  const random = rng(seed);
  const requests: PolicyRequest[] = [];
  for (let i = 0; i < 2_000; i++) {
    const v = 1 + Math.floor(random() * 2);
    const r = Math.floor(random() * 100);
    const shape = random();
    const base = `/api/v${v}/res${r}`;
    const [method, path] =
      shape < 0.3
        ? ['GET', `${base}/${Math.floor(random() * 1e6)}`]
        : shape < 0.45
          ? ['POST', base]
          : shape < 0.6
            ? ['GET', `${base}/search`]
            : shape < 0.8
              ? ['GET', `${base}/admin/users/${i}`]
              : shape < 0.95
                ? ['POST', `${base}/admin/x`]
                : ['GET', `/nothing/here/${i}`];
    requests.push(makeRequest({ method, path, host: 'api.ns.svc.cluster.local' }));
  }
  const input = (request: PolicyRequest): OutboundInput => ({
    from: { namespace: 'ns', name: 'client' },
    to: { service: 'api', namespace: 'ns', port: 80 },
    request,
    settings: { clusterNetworks: ['10.0.0.0/8'] },
    trace: false,
  });
  const inputs = requests.map(input);
  let agree = 0;
  for (const [i, req] of requests.entries()) {
    const d = routeOutbound(index, inputs[i] as OutboundInput);
    const ours = d.route === null ? null : (byRule.get(`${d.route}#${d.rule ?? -1}`) ?? -2);
    const theirs =
      (fmw.find(req.method as 'GET', req.path)?.store as { id: number } | undefined)?.id ?? null;
    if (ours === theirs) agree++;
  }
  extra.outbound_findmyway_agreement = `${agree}/${requests.length}`;
  // Both sides take the same 2,000 requests in the same order, by CPU time in interleaved rounds
  // (`compareCpu`).
  const cpu = compareCpu(
    (i) => routeOutbound(index, inputs[i % inputs.length] as OutboundInput),
    (i) => {
      const r = requests[i % requests.length] as PolicyRequest;
      return fmw.find(r.method as 'GET', r.path);
    },
    { rounds: 21 },
  );
  results.push({
    name: `outbound: ours (route, backends, timeouts, retries; ${table.length} rules)`,
    clock: 'cpu',
    nsPerOp: cpu.aNs,
    opsPerSec: 1e9 / cpu.aNs,
  });
  results.push({
    name: `outbound: find-my-way (${table.length} rules)`,
    clock: 'cpu',
    nsPerOp: cpu.bNs,
    opsPerSec: 1e9 / cpu.bNs,
  });
  ratios.outbound_over_findmyway = cpu.ratio;
  ratioRange(extra, 'outbound_over_findmyway', cpu);
}
