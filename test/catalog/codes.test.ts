// Every catalog code has a row in docs/catalog.md § Error codes and is produced in a test; the
// codes no other test reaches are produced here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { CATALOG_CODES, buildCatalogStage, emitFiles } from '../../src/catalog/index.js';
import { EXAMPLE_CATALOG, REPO, runOf } from './helpers.js';

function codesOf(files: Record<string, string>): string[] {
  const run = runOf(files);
  return [...run.errors, ...run.warnings].map((e) => e.code).sort();
}

const WEB = 'name: web\nsource: { image: x:1 }\n';

test('every code has a row in the Error codes table of docs/catalog.md', () => {
  const doc = readFileSync(join(REPO, 'docs/catalog.md'), 'utf8');
  const table = doc.slice(doc.indexOf('## Error codes'), doc.indexOf('## Library use'));
  const rows = new Set(
    table
      .split('\n')
      .filter((l) => l.startsWith('| `CATALOG_'))
      .flatMap((l) =>
        [...(l.split('|')[1] ?? '').matchAll(/`(CATALOG_[A-Z0-9_]+)`/g)].map((m) => m[1]),
      ),
  );
  for (const code of Object.keys(CATALOG_CODES)) assert.ok(rows.has(code), `no row for ${code}`);
});

test('every code appears in at least one catalog test', () => {
  const dir = join(REPO, 'test/catalog');
  const text = readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts') && f !== 'codes.test.ts')
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
  const own = readFileSync(join(dir, 'codes.test.ts'), 'utf8');
  const produced = own.slice(own.indexOf('// produced below'));
  for (const code of Object.keys(CATALOG_CODES))
    assert.ok(text.includes(code) || produced.includes(`'${code}'`), `no test uses ${code}`);
});

// produced below
test('the cross-field codes no other test reaches', () => {
  assert.deepEqual(codesOf({ 'web.yaml': `${WEB}vm: { cores: 2 }\n` }), ['CATALOG_VM_FIELD']);
  assert.deepEqual(
    codesOf({
      'web.yaml': `${WEB}storage: [{ name: c, class: longhorn, size: 1Gi }, { name: m, class: bulk, size: 1Gi, readOnly: true, export: /x, backup: offcluster }]\n`,
    }),
    ['CATALOG_STORAGE_BACKUP'],
  );
  assert.deepEqual(
    codesOf({
      'web.yaml': `${WEB}storage: [{ name: a, class: longhorn, size: 1Gi, mountPath: /d }, { name: b, class: longhorn, size: 1Gi, mountPath: /d }]\n`,
    }),
    ['CATALOG_STORAGE_DUPLICATE'],
  );
  assert.deepEqual(
    codesOf({ 'web.yaml': `${WEB}ports: [{ name: a, port: 80 }, { name: b, port: 80 }]\n` }),
    ['CATALOG_PORT_DUPLICATE'],
  );
  assert.deepEqual(
    codesOf({
      'web.yaml':
        'name: web\nkind: vm\nsource: { vmTemplate: "https://example.net/d.img" }\nauth: { mode: forward-auth }\nports: [{ name: http, port: 80 }]\n',
    }),
    ['CATALOG_AUTH_VM'],
  );
  assert.deepEqual(codesOf({ 'web.yaml': `${WEB}dependencies: [{ to: web, port: 80 }]\n` }), [
    'CATALOG_DEPENDENCY_SELF',
  ]);
  assert.deepEqual(codesOf({ 'web.yaml': `${WEB}inClusterClients: [web]\n` }), [
    'CATALOG_CLIENT_SELF',
  ]);
  assert.deepEqual(
    codesOf({
      'web.yaml':
        'name: web\nkind: vm\nsource: { vmTemplate: "https://example.net/d.img" }\nhardware: { gpu: intel-quicksync }\n',
    }),
    ['CATALOG_GPU_IGNORED'],
  );
  assert.deepEqual(codesOf({ 'other.yaml': WEB }), ['CATALOG_FILE_NAME']);
});

test('a VPN-class service without egress: vpn is a CATALOG_CONFORMANCE diagnostic at its file', () => {
  const run = runOf({ 'sonarr.yaml': 'name: sonarr\nsource: { image: x:1 }\n' });
  const found = run.diagnostics.find((d) => d.code === 'CATALOG_CONFORMANCE');
  assert.equal(found?.file, 'catalog/sonarr.yaml');
  assert.match(found?.message ?? '', /^vpn-class-services-use-vpn: /);
});

test('two objects of one kind with one name are a CATALOG_NAME_COLLISION, not an overwrite', () => {
  const object = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a', namespace: 'x' } };
  const { errors } = emitFiles([{ service: 'x', objects: [object, object] }]);
  assert.deepEqual(
    errors.map((e) => e.code),
    ['CATALOG_NAME_COLLISION'],
  );
});

test('build: an apps directory that does not reproduce is a CATALOG_GOLDEN_DIFF per file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-golden-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(EXAMPLE_CATALOG, join(dir, 'catalog'), { recursive: true });
  mkdirSync(join(dir, 'apps'));
  const stage = await buildCatalogStage(join(dir, 'catalog'), { root: dir, apps: 'apps' });
  const diff = stage.diagnostics.find((d) => d.code === 'CATALOG_GOLDEN_DIFF');
  assert.equal(diff?.file, 'apps/blog/ciliumnetworkpolicy-blog.yaml');
  assert.match(diff?.message ?? '', /missing from the apps directory/);
});
