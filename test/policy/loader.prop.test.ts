// The loader on hostile input: any document shape, any field type, never a throw — only
// problems with a code. fast-check prints the seed on failure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { compilePolicy, lintPolicy, readResources } from '../../src/policy/index.js';
import type { YamlDoc } from '../../src/policy/resources/yaml-docs.js';

const KINDS: [string, string][] = [
  ['v1', 'Namespace'],
  ['v1', 'Pod'],
  ['policy.linkerd.io/v1beta3', 'Server'],
  ['gateway.networking.k8s.io/v1', 'HTTPRoute'],
  ['gateway.networking.k8s.io/v1', 'GRPCRoute'],
  ['policy.linkerd.io/v1alpha1', 'AuthorizationPolicy'],
  ['policy.linkerd.io/v1alpha1', 'MeshTLSAuthentication'],
  ['policy.linkerd.io/v1alpha1', 'NetworkAuthentication'],
  ['policy.linkerd.io/v1beta1', 'ServerAuthorization'],
  ['policy.labelwise.dev/v1alpha1', 'HttpRouteGroup'],
  ['policy.labelwise.dev/v1alpha1', 'HttpRouteBinding'],
  ['policy.labelwise.dev/v1alpha1', 'HttpRouteClass'],
  ['policy.labelwise.dev/v1alpha1', 'TimeoutPolicy'],
  ['policy.labelwise.dev/v1alpha1', 'HeaderRewritePolicy'],
];

const leaf = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('__proto__', 'constructor', '*', '/', '10.0.0.0/8', 'Server', 'In'),
);
const value = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('any'), { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom(
        'name',
        'kind',
        'group',
        'port',
        'path',
        'value',
        'type',
        'matches',
        'rules',
        'cidr',
        'except',
        'identities',
        'targetRef',
        'podSelector',
        'matchLabels',
        'routes',
        'methods',
        'labels',
        '__proto__',
      ),
      tie('any'),
      { maxKeys: 4 },
    ),
  ),
})).any;
const docArb = fc
  .tuple(
    fc.constantFrom(...KINDS),
    fc.record({
      metadata: fc.oneof(
        value,
        fc.record({
          name: fc.constantFrom('a', 'b', 'web'),
          namespace: fc.constantFrom('ns', 'other'),
        }),
      ),
      spec: value,
    }),
  )
  .map(([[apiVersion, kind], rest]) => ({ apiVersion, kind, ...rest }));

test('readResources, compile and lint never throw on hostile documents', () => {
  fc.assert(
    fc.property(fc.array(docArb, { maxLength: 8 }), (values) => {
      const docs: YamlDoc[] = values.map((v, index) => ({
        file: 'x.yaml',
        index,
        value: v,
        lineOf: () => index + 1,
      }));
      const { resources, problems } = readResources(docs);
      for (const p of problems) assert.match(p.code, /^POLICY_[A-Z_]+$/);
      const model = compilePolicy(resources);
      for (const pod of model.podList)
        for (const port of model.portsOf(pod)) model.portPolicy(pod, port);
      lintPolicy(model);
    }),
    { numRuns: 1500 },
  );
});

/** Every path to a value inside `value`. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...prefix, i])));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  return out;
}

function replaced(value: unknown, path: readonly (string | number)[], next: unknown): unknown {
  if (path.length === 0) return next;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaced(v, rest, next) : v));
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  copy[head as string] = replaced(copy[head as string], rest, next);
  return copy;
}

test('mutated valid fixtures: one field changed anywhere, never a throw', async () => {
  const { readFileSync, readdirSync } = await import('node:fs');
  const { parseAllDocuments } = await import('yaml');
  const dir = new URL('../../examples/homelab/policy/', import.meta.url);
  const originals: unknown[] = [];
  for (const name of readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    for (const d of parseAllDocuments(readFileSync(new URL(name, dir), 'utf8')))
      originals.push(d.toJS());
  }
  const all = originals.map((v) => paths(v).slice(1));
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(), fc.nat(), value), { minLength: 1, maxLength: 4 }),
      (edits) => {
        const values = [...originals];
        for (const [d, p, next] of edits) {
          const index = d % values.length;
          const candidates = all[index] ?? [];
          if (candidates.length === 0) continue;
          values[index] = replaced(values[index], candidates[p % candidates.length] ?? [], next);
        }
        const docs: YamlDoc[] = values.map((v, index) => ({
          file: 'x.yaml',
          index,
          value: v,
          lineOf: () => index + 1,
        }));
        const { resources, problems } = readResources(docs);
        for (const p of problems) assert.match(p.code, /^POLICY_[A-Z_]+$/);
        const model = compilePolicy(resources);
        for (const pod of model.podList)
          for (const port of model.portsOf(pod)) model.portPolicy(pod, port);
        const findings = lintPolicy(model);
        // An object that is in the input but rejected is never reported as missing (the
        // cascade the POLICY_REF_INVALID finding replaces).
        for (const r of resources.rejected ?? []) {
          for (const f of findings) {
            assert.ok(
              !f.message.includes(`${r.kind} ${r.namespace}/${r.name} does not exist`) &&
                !f.message.includes(`group ${r.namespace}/${r.name} does not exist`),
              `${JSON.stringify(r)} reported missing: ${f.message}`,
            );
          }
        }
      },
    ),
    { numRuns: 1500 },
  );
});
