// Edits that render fine and fail on apply: catalog check compares the new render with the
// checked-in apps directory and names each immutable field it changes, and the way out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/catalog.js';
import { memoryIO } from '../../src/cli/io.js';
import { immutableFieldDiagnostics } from '../../src/catalog/index.js';
import { at, find, objectsOf, runOf } from './helpers.js';
import { EXAMPLE_CATALOG } from './helpers.js';

const WEB = 'name: web\nsource: { image: x:1 }\n';

function changes(before: string, after: string) {
  const first = runOf({ 'web.yaml': before });
  assert.deepEqual(first.errors, []);
  const second = runOf({ 'web.yaml': after }, first.files);
  return immutableFieldDiagnostics(second, first.files, 'apps').map(
    (d) => `${d.severity} ${d.code} ${d.file} ${d.path}`,
  );
}

test('shrinking a claim is an error naming the field', () => {
  assert.deepEqual(
    changes(
      `${WEB}storage: [{ name: data, class: longhorn, size: 10Gi }]\n`,
      `${WEB}storage: [{ name: data, class: longhorn, size: 5Gi }]\n`,
    ),
    [
      'error CATALOG_IMMUTABLE_FIELD apps/web/persistentvolumeclaim-data.yaml spec.resources.requests.storage',
    ],
  );
  // Growing a Longhorn claim is allowed (the class expands volumes).
  assert.deepEqual(
    changes(
      `${WEB}storage: [{ name: data, class: longhorn, size: 10Gi }]\n`,
      `${WEB}storage: [{ name: data, class: longhorn, size: 20Gi }]\n`,
    ),
    [],
  );
});

test("a static NFS claim cannot be resized, nor a PV's source or a claim's access modes changed", () => {
  assert.deepEqual(
    changes(
      `${WEB}storage: [{ name: media, class: bulk, export: /tank/a, size: 1Ti }]\n`,
      `${WEB}storage: [{ name: media, class: bulk, export: /tank/b, size: 2Ti, readOnly: true }]\n`,
    ),
    [
      'error CATALOG_IMMUTABLE_FIELD apps/web/persistentvolume-web-media.yaml spec.nfs',
      'error CATALOG_IMMUTABLE_FIELD apps/web/persistentvolumeclaim-media.yaml spec.accessModes',
      'error CATALOG_IMMUTABLE_FIELD apps/web/persistentvolumeclaim-media.yaml spec.resources.requests.storage',
    ],
  );
});

test("a StatefulSet's claim templates are immutable; the acknowledgement renders the recreation", () => {
  const three = `${WEB}availability: { replicas: 3 }\nstorage: [{ name: data, class: longhorn, size: 1Gi }]\n`;
  const bigger = three.replace('size: 1Gi', 'size: 2Gi');
  assert.deepEqual(changes(three, bigger), [
    'error CATALOG_IMMUTABLE_FIELD apps/web/statefulset-web.yaml spec.volumeClaimTemplates',
  ]);
  const acknowledged = bigger.replace(
    'replicas: 3',
    'replicas: 3, acknowledgeStorageMigration: true',
  );
  assert.deepEqual(changes(three, acknowledged), [
    'warning CATALOG_IMMUTABLE_FIELD apps/web/statefulset-web.yaml spec.volumeClaimTemplates',
  ]);
  const rendered = runOf({ 'web.yaml': acknowledged });
  assert.equal(
    at(
      find(objectsOf(rendered, 'web'), 'StatefulSet'),
      'metadata',
      'annotations',
      'kustomize.toolkit.fluxcd.io/force',
    ),
    'enabled',
  );
});

test('catalog check exits 1 and names the field and the acknowledgement', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-immutable-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(EXAMPLE_CATALOG, join(dir, 'catalog'), { recursive: true });
  assert.equal(await run(['render', 'catalog', '--out', 'apps'], memoryIO({ cwd: dir })), 0);
  const plex = join(dir, 'catalog/plex.yaml');
  writeFileSync(plex, readFileSync(plex, 'utf8').replace('size: 20Gi', 'size: 10Gi'));
  const io = memoryIO({ cwd: dir });
  assert.equal(await run(['check', 'catalog', '--apps', 'apps'], io), 1);
  assert.match(
    io.err,
    /apps\/plex\/persistentvolumeclaim-config\.yaml: error CATALOG_IMMUTABLE_FIELD \[PersistentVolumeClaim plex\/config\]: shrinks the claim \(20Gi → 10Gi\); the API server only lets a claim grow; applying this render would fail \(at spec\.resources\.requests\.storage\)$/m,
  );
  assert.match(
    io.err,
    /hint: .*availability\.acknowledgeStorageMigration: true in catalog\/plex\.yaml/,
  );
});
