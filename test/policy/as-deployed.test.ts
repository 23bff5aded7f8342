// Inbound as deployed: Linkerd's CRDs per version, a default namespace (-n), accepted findings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { toSarif } from '../../src/base/index.js';
import type { Diagnostic } from '../../src/base/index.js';
import * as loadApi from '../../src/policy/index.js';
import { buildPolicyStage } from '../../src/policy/index.js';
import { withTempDir } from '../support/temp.js';
import { load } from './helpers.js';

const POLICY = join(import.meta.dirname, '..', '..', 'examples', 'homelab', 'policy');
const BROAD = join(import.meta.dirname, 'fixtures', 'lint', 'authz-broader-than-routes');

async function policy(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO();
  const code = await run(['policy', ...argv], io);
  return { code, out: io.out, err: io.err };
}

/** The example with every `metadata.namespace: booksapp` removed, as many charts write it. */
async function namespaceLess(dir: string): Promise<void> {
  await cp(POLICY, dir, { recursive: true });
  for (const name of await readdir(dir)) {
    if (!name.endsWith('.yaml')) continue;
    const text = await readFile(join(dir, name), 'utf8');
    await writeFile(join(dir, name), text.replace(/^ {2}namespace: booksapp\n/gm, ''));
  }
}

const AUTHORS_GET = [
  '--pod',
  'booksapp/authors-0',
  '--port',
  '7001',
  '--path',
  '/authors/1.json',
  '--client-ip',
  '10.1.2.3',
  '--identity',
  'web.booksapp.serviceaccount.identity.linkerd.cluster.local',
  '--json',
];

test('a namespace-less booksapp with -n booksapp decides as the namespaced one', () =>
  withTempDir('policy-ns', async (dir) => {
    await namespaceLess(dir);
    const withNs = await policy('authorize', dir, '-n', 'booksapp', ...AUTHORS_GET);
    const original = await policy('authorize', POLICY, ...AUTHORS_GET);
    assert.equal(withNs.code, 0, withNs.err);
    const a = JSON.parse(withNs.out) as Record<string, unknown>;
    const b = JSON.parse(original.out) as Record<string, unknown>;
    assert.equal(a.decision, 'allow');
    assert.deepEqual(
      [a.decision, a.server, a.route, a.authorization],
      [b.decision, b.server, b.route, b.authorization],
    );
    assert.equal(withNs.err.includes('POLICY_DEFAULT_NAMESPACE'), false);
  }));

test('without -n, namespace-less objects land in default with one warning per file', () =>
  withTempDir('policy-ns-default', async (dir) => {
    await namespaceLess(dir);
    const lint = await policy('lint', dir, '--json');
    const body = JSON.parse(lint.out) as { diagnostics: Diagnostic[] };
    const warned = body.diagnostics.filter((d) => d.code === 'POLICY_DEFAULT_NAMESPACE');
    const files = warned.map((d) => d.file);
    assert.equal(new Set(files).size, files.length, 'one warning per file');
    assert.ok(warned.length >= 5, JSON.stringify(warned));
    assert.ok(warned.every((d) => d.severity === 'warning' && /namespace default/.test(d.message)));
    // The Namespace object itself is cluster-scoped: its file is not warned about.
    assert.equal(
      files.some((f) => f?.endsWith('namespace.yaml')),
      false,
    );
    const noPod = await policy('authorize', dir, ...AUTHORS_GET);
    assert.notEqual(noPod.code, 0, 'booksapp/authors-0 is in default now');
  }));

test('labelwise.yaml per-folder namespaces: the deepest folder wins, -n wins over both', () => {
  const text =
    'apiVersion: v1\nkind: Pod\nmetadata: { name: p }\nspec: { containers: [{ name: c }] }\n';
  const { readResources } = loadApi;
  const docs = (file: string) => loadApi.parseYamlDocs(text, file).docs;
  const folders = { '': 'root-ns', apps: 'apps-ns', 'apps/books': 'books-ns' };
  const ns = (file: string, namespace?: string): string | undefined =>
    readResources(docs(file), {
      folderNamespaces: folders,
      ...(namespace === undefined ? {} : { namespace }),
    }).resources.pods[0]?.meta.namespace;
  assert.equal(ns('x.yaml'), 'root-ns');
  assert.equal(ns('apps/x.yaml'), 'apps-ns');
  assert.equal(ns('apps/books/x.yaml'), 'books-ns');
  assert.equal(ns('apps-other/x.yaml'), 'root-ns');
  assert.equal(ns('apps/books/x.yaml', 'flag-ns'), 'flag-ns');
});

test('a v1beta2 Server with externalWorkloadSelector is admitted; an unknown field is refused', () => {
  const external = load(`apiVersion: policy.linkerd.io/v1beta2
kind: Server
metadata: { name: vms, namespace: ns }
spec:
  externalWorkloadSelector: { matchLabels: { app: vm } }
  port: 8080
`);
  assert.deepEqual(external.problems, []);
  assert.equal(external.model.resources.servers[0]?.selects, 'externalWorkloads');
  const typo = load(`apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: { name: typo, namespace: ns }
spec:
  podSelector: {}
  port: 8080
  proxyProtocl: HTTP/2
`);
  assert.deepEqual(
    typo.problems.map((p) => [p.code, p.line, p.path]),
    [['POLICY_UNKNOWN_FIELD', 7, 'spec.proxyProtocl']],
  );
  assert.match(typo.problems[0]?.message ?? '', /Linkerd edge-26\.8\.3 CRD/);
  const old = load(`apiVersion: policy.linkerd.io/v1beta9
kind: Server
metadata: { name: old, namespace: ns }
spec: { podSelector: {}, port: 8080 }
`);
  assert.deepEqual(
    old.problems.map((p) => p.code),
    ['POLICY_UNSUPPORTED_API_VERSION'],
  );
});

test('an accepted broad policy is listed as accepted, counts as nothing, and SARIF suppresses it', () =>
  withTempDir('policy-accept', async (dir) => {
    await cp(BROAD, dir, { recursive: true });
    const file = join(dir, 'policy.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(
      file,
      text.replace(
        'metadata: { name: reader-everywhere, namespace: ns }',
        'metadata:\n  name: reader-everywhere\n  namespace: ns\n  annotations:\n    ignore-check.labelwise.io/POLICY_AUTHZ_BROADER_THAN_ROUTES: readers may see writes on purpose',
      ),
    );
    const lint = await policy('lint', dir, '--json');
    const body = JSON.parse(lint.out) as {
      diagnostics: Diagnostic[];
      warnings: number;
      accepted?: number;
    };
    const broad = body.diagnostics.find((d) => d.code === 'POLICY_AUTHZ_BROADER_THAN_ROUTES');
    assert.deepEqual(broad?.accepted, {
      reason: 'readers may see writes on purpose',
      by: 'annotation',
    });
    assert.equal(body.accepted, 1);
    assert.equal(body.warnings, body.diagnostics.filter((d) => d.accepted === undefined).length);
    const text2 = await policy('lint', dir);
    assert.match(text2.out, /accepted warning POLICY_AUTHZ_BROADER_THAN_ROUTES/);
    assert.match(text2.out, /accepted \(annotation\): readers may see writes on purpose/);
    const stage = await buildPolicyStage(dir, {
      accept: [{ code: 'POLICY_AUTHZ_BROADER_THAN_ROUTES', reason: 'also in labelwise.yaml' }],
    });
    const sarif = toSarif(stage.diagnostics, { version: '0.0.0' });
    const result = sarif.runs[0]?.results?.find(
      (r) => r.ruleId === 'POLICY_AUTHZ_BROADER_THAN_ROUTES',
    );
    // The annotation on the object wins over the labelwise.yaml rule.
    assert.deepEqual(result?.suppressions, [
      { kind: 'inSource', status: 'accepted', justification: 'readers may see writes on purpose' },
    ]);
    assert.equal(stage.counts.warnings, 0);
  }));

test('a labelwise.yaml rule accepts by code, object and folder', () =>
  withTempDir('policy-accept-config', async (dir) => {
    await cp(BROAD, join(dir, 'policy'), { recursive: true });
    const accept = (rule: Record<string, string>) =>
      buildPolicyStage(join(dir, 'policy'), {
        root: dir,
        accept: [{ code: 'POLICY_AUTHZ_BROADER_THAN_ROUTES', reason: 'known', ...rule }],
      }).then(
        (s) => s.diagnostics.find((d) => d.code === 'POLICY_AUTHZ_BROADER_THAN_ROUTES')?.accepted,
      );
    assert.deepEqual(await accept({}), { reason: 'known', by: 'config' });
    assert.deepEqual(await accept({ object: 'ServerAuthorization ns/reader-everywhere' }), {
      reason: 'known',
      by: 'config',
    });
    assert.equal(await accept({ object: 'ServerAuthorization ns/other' }), undefined);
    assert.deepEqual(await accept({ file: 'policy' }), { reason: 'known', by: 'config' });
    assert.equal(await accept({ file: 'elsewhere' }), undefined);
  }));
