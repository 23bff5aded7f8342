// The renderer contract's warnings: each names the file, line and path, carries a hint, and
// does not stop the render.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Diagnostic } from '../../src/base/index.js';
import { runOf } from './helpers.js';

const HEAD = `name: media
source: { image: "ghcr.io/example/media:1.0.0" }
ports: [{ name: http, port: 8080, protocol: TCP }]
`;

function warningsOf(text: string, code: string): Diagnostic[] {
  const run = runOf({ 'media.yaml': text });
  assert.deepEqual(
    run.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  assert.ok(Object.keys(run.files).length > 0, 'a warning does not stop the render');
  return run.diagnostics.filter((d) => d.code === code);
}

function one(text: string, code: string, line: number, path: string): Diagnostic {
  const found = warningsOf(text, code);
  assert.equal(found.length, 1, JSON.stringify(found));
  const d = found[0]!;
  assert.equal(d.severity, 'warning');
  assert.equal(d.file, 'catalog/media.yaml');
  assert.equal(d.line, line);
  assert.equal(d.path, path);
  assert.ok((d.hint ?? '').length > 0);
  return d;
}

const CONFIG = '  - { name: config, class: longhorn, size: 1Gi, mountPath: /config }\n';
const RUN_AS = 'security:\n  runAs: { user: 1000, group: 1000 }\n';

test('CATALOG_BULK_SIZE: a bulk entry without size advertises a capacity nobody chose', () => {
  const d = one(
    `${HEAD}${RUN_AS}storage:\n${CONFIG}  - { name: media, class: bulk, export: /tank/media, readOnly: true }\n`,
    'CATALOG_BULK_SIZE',
    8,
    'storage[1]',
  );
  assert.match(d.message, /"media" has no size.*advertises 1Gi/);
  assert.match(d.hint ?? '', /actual size/);
});

test('CATALOG_BULK_FSGROUP: fsGroup next to a writable bulk mount is a no-op on NFS', () => {
  const d = one(
    `${HEAD}security:\n  runAs: { user: 1000, group: 1000, fsGroup: 2000 }\nstorage:\n${CONFIG}  - { name: media, class: bulk, size: 8Ti, export: /tank/media }\n`,
    'CATALOG_BULK_FSGROUP',
    5,
    'security.runAs.fsGroup',
  );
  assert.match(d.message, /fsGroup 2000 is a no-op on the NFS bulk mount "media".*gid 1000/);
  // Equal to the process's own gid it grants nothing the gid does not: no warning.
  assert.deepEqual(
    warningsOf(
      `${HEAD}security:\n  runAs: { user: 1000, group: 1000, fsGroup: 1000 }\nstorage:\n${CONFIG}  - { name: media, class: bulk, size: 8Ti, export: /tank/media }\n`,
      'CATALOG_BULK_FSGROUP',
    ),
    [],
  );
});

test('CATALOG_BULK_OWNER: a writable bulk mount with no fixed uid/gid', () => {
  const d = one(
    `${HEAD}storage:\n${CONFIG}  - { name: media, class: bulk, size: 8Ti, export: /tank/media }\n`,
    'CATALOG_BULK_OWNER',
    6,
    'storage[1]',
  );
  assert.match(d.message, /writable bulk mount "media" runs with no fixed uid\/gid/);
  // Read-only, or with a fixed uid and gid: no warning.
  assert.deepEqual(
    warningsOf(
      `${HEAD}${RUN_AS}storage:\n${CONFIG}  - { name: media, class: bulk, size: 8Ti, export: /tank/media }\n`,
      'CATALOG_BULK_OWNER',
    ),
    [],
  );
});

test('CATALOG_STORAGE_EXDEV: two subPath mounts of one export in one service', () => {
  const d = one(
    `${HEAD}${RUN_AS}storage:\n${CONFIG}  - { name: downloads, class: bulk, size: 1Ti, export: /tank/media, subPath: downloads, mountPath: /downloads }\n  - { name: tv, class: bulk, size: 7Ti, export: /tank/media, subPath: tv, mountPath: /tv }\n`,
    'CATALOG_STORAGE_EXDEV',
    9,
    'storage[2]',
  );
  assert.match(d.message, /"downloads" and "tv" mount "\/tank\/media" separately.*EXDEV/);
  assert.match(d.hint ?? '', /common ancestor/);
});

test('CATALOG_STORAGE_NO_CONFIG: a stateful service with no config volume', () => {
  const d = one(
    `${HEAD}${RUN_AS}storage:\n  - { name: media, class: bulk, size: 8Ti, export: /tank/media }\n`,
    'CATALOG_STORAGE_NO_CONFIG',
    6,
    'storage',
  );
  assert.match(d.message, /only bulk storage.*lost on every restart/);
  assert.deepEqual(warningsOf(HEAD, 'CATALOG_STORAGE_NO_CONFIG'), []);
});

test('CATALOG_PUBLIC_PORT_FORWARD: a public service lists the edge port-forwards to set by hand', () => {
  const d = one(
    `${HEAD.replace('ports: [{ name: http, port: 8080, protocol: TCP }]', 'ports:\n  - { name: http, port: 8080, protocol: TCP }\n  - { name: game, port: 25565, protocol: TCP, lan: true }')}exposure: public\ningressRoutes:\n  - { host: media.home.example.net, port: http }\n`,
    'CATALOG_PUBLIC_PORT_FORWARD',
    6,
    'exposure',
  );
  assert.match(d.message, /TCP 80, TCP 443, TCP 25565 to 192\.168\.1\.20/);
  assert.match(d.hint ?? '', /by hand/);
  assert.deepEqual(warningsOf(HEAD, 'CATALOG_PUBLIC_PORT_FORWARD'), []);
});
