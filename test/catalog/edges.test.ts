// The catalog on the shared edges: the owned output writer, the repository reader, the one
// diagnostic shape. Each case is a way `catalog render`/`check` used to lose or leak data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/catalog.js';
import { memoryIO } from '../../src/cli/io.js';
import { buildCatalogStage } from '../../src/catalog/index.js';
import { EXAMPLE_APPS, EXAMPLE_CATALOG } from './helpers.js';

function workspace(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-catalog-edges-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(EXAMPLE_CATALOG, join(dir, 'catalog'), { recursive: true });
  return dir;
}

test('render --out . over the sources is refused and deletes nothing', async (t) => {
  const dir = workspace(t);
  // A service named "catalog" would once replace the catalog directory with its render.
  writeFileSync(join(dir, 'catalog/catalog.yaml'), 'name: catalog\nsource: { image: x:1 }\n');
  const before = readdirSync(join(dir, 'catalog')).sort();
  const io = memoryIO({ cwd: dir });
  assert.equal(await run(['render', 'catalog', '--out', '.'], io), 3);
  assert.match(io.err, /OUT_REFUSED/);
  assert.deepEqual(readdirSync(join(dir, 'catalog')).sort(), before);
  const inside = memoryIO({ cwd: dir });
  assert.equal(await run(['render', 'catalog', '--out', 'catalog/apps'], inside), 3);
  assert.match(inside.err, /overlaps an input folder/);
});

test('render --out / is refused', async (t) => {
  const dir = workspace(t);
  const io = memoryIO({ cwd: dir });
  assert.equal(await run(['render', 'catalog', '--out', '/', '--json'], io), 3);
  const report = JSON.parse(io.out) as {
    ok: boolean;
    diagnostics: { code: string; message: string }[];
  };
  assert.equal(report.ok, false);
  assert.equal(report.diagnostics[0]?.code, 'OUT_REFUSED');
  assert.match(report.diagnostics[0]?.message ?? '', /filesystem root/);
});

test('a symlinked --out is refused, not replaced by a real directory', async (t) => {
  const dir = workspace(t);
  const real = join(dir, 'real-apps');
  assert.equal(await run(['render', 'catalog', '--out', 'real-apps'], memoryIO({ cwd: dir })), 0);
  symlinkSync(real, join(dir, 'apps'));
  const io = memoryIO({ cwd: dir });
  assert.equal(await run(['render', 'catalog', '--out', 'apps'], io), 3);
  assert.match(io.err, /symbolic link/);
  assert.ok(existsSync(join(real, 'plex/deployment-plex.yaml')));
});

test('render writes the manifest, and check ignores it when comparing', async (t) => {
  const dir = workspace(t);
  assert.equal(await run(['render', 'catalog', '--out', 'apps'], memoryIO({ cwd: dir })), 0);
  const manifest = JSON.parse(readFileSync(join(dir, 'apps/.labelwise-manifest.json'), 'utf8')) as {
    files: Record<string, string>;
  };
  assert.ok(manifest.files['plex/deployment-plex.yaml'] !== undefined);
  const io = memoryIO({ cwd: dir });
  assert.equal(await run(['check', 'catalog', '--apps', 'apps', '--json'], io), 0, io.out);
  assert.deepEqual((JSON.parse(io.out) as { diffs: unknown[] }).diffs, []);
});

test('the checked-in example apps directory carries its manifest', () => {
  assert.ok(existsSync(join(EXAMPLE_APPS, '.labelwise-manifest.json')));
});

test('check --apps never follows a symlink out of the repository nor prints its target', async (t) => {
  const dir = workspace(t);
  assert.equal(await run(['render', 'catalog', '--out', 'apps'], memoryIO({ cwd: dir })), 0);
  const secret = join(mkdtempSync(join(tmpdir(), 'labelwise-secret-')), 'token.yaml');
  t.after(() => rmSync(join(secret, '..'), { recursive: true, force: true }));
  writeFileSync(secret, 'token: SECRET-4f1d\n');
  rmSync(join(dir, 'apps/plex/service-plex.yaml'));
  symlinkSync(secret, join(dir, 'apps/plex/service-plex.yaml'));
  symlinkSync('/proc/self/environ', join(dir, 'apps/plex/env.yaml'));
  symlinkSync('/proc/self/environ', join(dir, 'catalog/env.yaml'));
  const io = memoryIO({ cwd: dir });
  const code = await run(['check', 'catalog', '--apps', 'apps', '--json'], io);
  assert.equal(code, 2);
  assert.doesNotMatch(io.out + io.err, /SECRET-4f1d|PATH=/);
  const report = JSON.parse(io.out) as {
    diagnostics: { code: string; file?: string }[];
    warnings: number;
  };
  const skipped = report.diagnostics.filter((d) => d.code === 'READ_SYMLINK_OUTSIDE');
  assert.deepEqual(skipped.map((d) => d.file).sort(), [
    'apps/plex/env.yaml',
    'apps/plex/service-plex.yaml',
    'catalog/env.yaml',
  ]);
  // The skipped links, and the example's own public services' port-forward notes.
  const notes = report.diagnostics.filter((d) => d.code === 'CATALOG_PUBLIC_PORT_FORWARD');
  assert.equal(report.warnings, 3 + notes.length);
});

test('a catalog with platform.yml instead of platform.yaml is an error, never skipped', async (t) => {
  const dir = workspace(t);
  renameSync(join(dir, 'catalog/platform.yaml'), join(dir, 'catalog/platform.yml'));
  const io = memoryIO({ cwd: dir });
  assert.equal(await run(['check', 'catalog'], io), 1);
  assert.match(
    io.err,
    /CATALOG_PLATFORM_MISSING: the catalog has no platform\.yaml \(catalog\/platform\.yml is not read\)/,
  );
  assert.match(io.err, /hint: rename catalog\/platform\.yml to platform\.yaml/);
  const stage = await buildCatalogStage(join(dir, 'catalog'), { root: dir });
  assert.ok(
    stage.diagnostics.some((d) => d.code === 'CATALOG_PLATFORM_MISSING' && d.severity === 'error'),
  );
  assert.deepEqual(stage.outputs, {});
});

test('--json of check and render carries the base shape: diagnostics with counts', async (t) => {
  const dir = workspace(t);
  writeFileSync(
    join(dir, 'catalog/web.yaml'),
    'name: web\nsource: { image: x:1 }\ndependencies: [{ to: nobody, port: 80 }]\nfile: 1\n',
  );
  for (const args of [
    ['check', 'catalog', '--json'],
    ['render', 'catalog', '--out', 'apps', '--json'],
  ]) {
    const io = memoryIO({ cwd: dir });
    assert.equal(await run(args, io), 1);
    const report = JSON.parse(io.out) as {
      diagnostics: { severity: string; code: string; file: string; line: number; column: number }[];
      errors: number;
      warnings: number;
    };
    assert.equal(typeof report.errors, 'number');
    assert.equal(report.errors, report.diagnostics.filter((d) => d.severity === 'error').length);
    const schema = report.diagnostics.find((d) => d.code === 'CATALOG_SCHEMA');
    assert.deepEqual(schema && [schema.file, schema.line], ['catalog/web.yaml', 4]);
  }
});

test('a checked-in file with terminal escapes is shown escaped in the diff', async (t) => {
  const dir = workspace(t);
  assert.equal(await run(['render', 'catalog', '--out', 'apps'], memoryIO({ cwd: dir })), 0);
  const file = join(dir, 'apps/blog/service-blog.yaml');
  writeFileSync(file, `${readFileSync(file, 'utf8')}# \u001b]0;pwned\u0007\u001b[2J\n`);
  const io = memoryIO({ cwd: dir });
  assert.equal(await run(['check', 'catalog', '--apps', 'apps'], io), 2);
  // eslint-disable-next-line no-control-regex -- the point: no raw control character is printed
  assert.doesNotMatch(io.out, /[\u0000-\u0008\u000b-\u001f\u007f]/);
  assert.match(io.out, /^-# .*pwned/m);
});
