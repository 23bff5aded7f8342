// `labelwise catalog render|check` in-process: exit codes, JSON shapes, the golden diff, and
// that a refused render writes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/catalog.js';
import { buildCatalogStage } from '../../src/catalog/index.js';
import { memoryIO } from '../../src/cli/io.js';
import { EXAMPLE_APPS, EXAMPLE_CATALOG, REPO } from './helpers.js';

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-catalog-'));
  cpSync(EXAMPLE_CATALOG, join(dir, 'catalog'), { recursive: true });
  return dir;
}

test('render writes every service, and a second render changes nothing', async (t) => {
  const dir = workspace();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const io = memoryIO({ cwd: dir });
  assert.equal(await run(['render', 'catalog', '--out', 'apps'], io), 0, io.err);
  assert.match(io.out, /rendered 7 services/);
  const first = readFileSync(join(dir, 'apps/plex/deployment-plex.yaml'), 'utf8');
  assert.equal(first, readFileSync(join(EXAMPLE_APPS, 'plex/deployment-plex.yaml'), 'utf8'));
  const again = memoryIO({ cwd: dir });
  assert.equal(await run(['render', 'catalog', '--out', 'apps', '--json'], again), 0);
  const json = JSON.parse(again.out) as { ok: boolean; files: string[] };
  assert.equal(json.ok, true);
  assert.ok(json.files.includes('plex/kustomization.yaml'));
  // "Changes nothing": the same bytes, and the render says so.
  const third = memoryIO({ cwd: dir });
  assert.equal(await run(['render', 'catalog', '--out', 'apps'], third), 0, third.err);
  assert.match(third.out, /\(0 files changed\)/);
  assert.equal(readFileSync(join(dir, 'apps/plex/deployment-plex.yaml'), 'utf8'), first);
});

test('check: exit 0 on the example, exit 2 with a readable diff after a hand edit', async (t) => {
  const dir = workspace();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(EXAMPLE_APPS, join(dir, 'apps'), { recursive: true });
  const ok = memoryIO({ cwd: dir });
  assert.equal(await run(['check', 'catalog', '--apps', 'apps'], ok), 0, ok.err + ok.out);
  const file = join(dir, 'apps/blog/service-blog.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('port: 8080', 'port: 8081'));
  const text = memoryIO({ cwd: dir });
  assert.equal(await run(['check', 'catalog', '--apps', 'apps'], text), 2);
  assert.match(text.out, /^-\s+port: 8081$/m);
  assert.match(text.out, /^\+\s+port: 8080$/m);
  const json = memoryIO({ cwd: dir });
  assert.equal(await run(['check', 'catalog', '--apps', 'apps', '--json'], json), 2);
  const report = JSON.parse(json.out) as {
    ok: boolean;
    diffs: { path: string }[];
    checks: { name: string; ok: boolean; object: string; message: string }[];
  };
  assert.equal(report.ok, false);
  assert.deepEqual(
    report.diffs.map((d) => d.path),
    ['blog/service-blog.yaml'],
  );
  assert.ok(report.checks.length > 0);
  assert.deepEqual(Object.keys(report.checks[0]!), ['name', 'ok', 'object', 'message']);
});

test('check: a missing and an extra file are differences too', async (t) => {
  const dir = workspace();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(EXAMPLE_APPS, join(dir, 'apps'), { recursive: true });
  rmSync(join(dir, 'apps/plex/service-plex.yaml'));
  writeFileSync(join(dir, 'apps/plex/configmap-extra.yaml'), 'kind: ConfigMap\n');
  const io = memoryIO({ cwd: dir });
  assert.equal(await run(['check', 'catalog', '--apps', 'apps', '--json'], io), 2);
  const report = JSON.parse(io.out) as { diffs: { path: string; change: string }[] };
  assert.deepEqual(
    report.diffs.map((d) => `${d.change} ${d.path}`),
    ['removed plex/configmap-extra.yaml', 'added plex/service-plex.yaml'],
  );
});

test('an invalid definition: exit 1, file:line in the message, nothing written', async (t) => {
  const dir = workspace();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'catalog/broken.yaml'),
    'name: broken\nsource: { image: x:1 }\negress: satellite\n',
  );
  const io = memoryIO({ cwd: dir });
  assert.equal(await run(['render', 'catalog', '--out', 'apps'], io), 1);
  assert.match(io.err, /^catalog\/broken\.yaml:3:\d+: error CATALOG_SCHEMA: .*\(at egress\)$/m);
  assert.equal(existsSync(join(dir, 'apps')), false);
});

test('the Deployment → StatefulSet flip is refused by render and check until acknowledged', async (t) => {
  const dir = workspace();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.equal(await run(['render', 'catalog', '--out', 'apps'], memoryIO({ cwd: dir })), 0);
  const plex = join(dir, 'catalog/plex.yaml');
  writeFileSync(plex, `${readFileSync(plex, 'utf8')}availability:\n  replicas: 2\n`);
  const io = memoryIO({ cwd: dir });
  assert.equal(await run(['render', 'catalog', '--out', 'apps'], io), 1);
  assert.match(io.err, /storage-migration-acknowledged/);
  assert.ok(existsSync(join(dir, 'apps/plex/deployment-plex.yaml')), 'nothing was replaced');
  const check = memoryIO({ cwd: dir });
  assert.equal(await run(['check', 'catalog', '--apps', 'apps'], check), 1);
  writeFileSync(plex, `${readFileSync(plex, 'utf8')}  acknowledgeStorageMigration: true\n`);
  assert.equal(await run(['render', 'catalog', '--out', 'apps'], memoryIO({ cwd: dir })), 0);
  assert.ok(existsSync(join(dir, 'apps/plex/statefulset-plex.yaml')));
  assert.equal(existsSync(join(dir, 'apps/plex/deployment-plex.yaml')), false);
});

test('an unreadable catalog directory is exit 3 (unavailable), with the base JSON shape', async () => {
  const io = memoryIO({ cwd: REPO });
  assert.equal(await run(['check', 'no/such/dir'], io), 3);
  assert.match(io.err, /error CATALOG_UNREADABLE: cannot read directory no\/such\/dir/);
  // Both commands say which command group stopped, as every other group does.
  assert.match(io.err, /^labelwise catalog: /);
  const rendering = memoryIO({ cwd: REPO });
  assert.equal(await run(['render', 'no/such/dir', '--out', 'out'], rendering), 3);
  assert.match(rendering.err, /^labelwise catalog: no\/such\/dir: error CATALOG_UNREADABLE/);
  const json = memoryIO({ cwd: REPO });
  assert.equal(await run(['check', 'no/such/dir', '--json'], json), 3);
  const report = JSON.parse(json.out) as { diagnostics: { code: string }[]; errors: number };
  assert.equal(report.errors, 1);
  assert.equal(report.diagnostics[0]?.code, 'CATALOG_UNREADABLE');
});

test('--help shows a real example', async () => {
  const io = memoryIO();
  assert.equal(await run(['check', '--help'], io), 0);
  assert.match(
    io.out,
    /labelwise catalog check examples\/homelab\/catalog --apps examples\/homelab\/apps/,
  );
});

test('build stage: outputs, counts and no diagnostics for the example', async () => {
  const result = await buildCatalogStage(EXAMPLE_CATALOG, {
    root: join(REPO, 'examples/homelab'),
    apps: 'apps',
  });
  // Only the manual port-forwards of its two public services, which the contract keeps manual.
  assert.deepEqual(
    result.diagnostics.map((d) => [d.code, d.file]),
    [
      ['CATALOG_PUBLIC_PORT_FORWARD', 'catalog/blog.yaml'],
      ['CATALOG_PUBLIC_PORT_FORWARD', 'catalog/plex.yaml'],
    ],
  );
  assert.ok(result.outputs['apps/plex/deployment-plex.yaml']?.includes('kind: Deployment'));
  assert.equal(result.counts.services, 7);
  assert.equal(result.counts.diffs, 0);
  assert.equal(result.counts.failedChecks, 0);
});

test('build stage: diagnostics carry module, code, repository-relative file and line', async (t) => {
  const dir = workspace();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'catalog/broken.yaml'),
    'name: broken\nsource: { image: x:1 }\nexposure: secret\n',
  );
  const result = await buildCatalogStage(join(dir, 'catalog'), { root: dir });
  const finding = result.diagnostics.find((f) => f.code === 'CATALOG_SCHEMA');
  assert.deepEqual(
    finding && {
      module: finding.module,
      severity: finding.severity,
      file: finding.file,
      line: finding.line,
    },
    { module: 'catalog', severity: 'error', file: 'catalog/broken.yaml', line: 3 },
  );
  assert.deepEqual(result.outputs, {});
});

test('render removes the directory of a deleted service and never replaces hand-written files', async (t) => {
  const dir = workspace();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.equal(await run(['render', 'catalog', '--out', 'apps'], memoryIO({ cwd: dir })), 0);
  mkdirSync(join(dir, 'apps/hand-made'));
  writeFileSync(join(dir, 'apps/hand-made/kustomization.yaml'), 'resources: []\n');
  writeFileSync(join(dir, 'apps/blog/notes.md'), 'mine');
  rmSync(join(dir, 'catalog/blog.yaml'));
  const homepage = join(dir, 'catalog/homepage.yaml');
  writeFileSync(
    homepage,
    readFileSync(homepage, 'utf8').replace(/dependencies:\n( {2}- .*\n)+/, ''),
  );
  const check = memoryIO({ cwd: dir });
  assert.equal(await run(['check', 'catalog', '--apps', 'apps', '--json'], check), 2, check.err);
  const report = JSON.parse(check.out) as { diffs: { path: string; change: string }[] };
  assert.ok(
    report.diffs.some((d) => d.path === 'blog/kustomization.yaml' && d.change === 'removed'),
  );
  // A folder the render did not make is a difference too: `kubectl apply -R` would apply it.
  assert.ok(
    report.diffs.some((d) => d.path === 'hand-made/kustomization.yaml' && d.change === 'removed'),
  );
  // Files labelwise did not write are never replaced: the render is refused and lists them.
  const refused = memoryIO({ cwd: dir });
  assert.equal(await run(['render', 'catalog', '--out', 'apps'], refused), 3);
  assert.match(refused.err, /OUT_NOT_OURS.*blog\/notes\.md, hand-made\/kustomization\.yaml/);
  assert.equal(readFileSync(join(dir, 'apps/blog/notes.md'), 'utf8'), 'mine');
  rmSync(join(dir, 'apps/hand-made'), { recursive: true });
  rmSync(join(dir, 'apps/blog/notes.md'));
  const io = memoryIO({ cwd: dir });
  assert.equal(await run(['render', 'catalog', '--out', 'apps'], io), 0, io.err);
  assert.equal(existsSync(join(dir, 'apps/blog')), false);
  assert.equal(await run(['check', 'catalog', '--apps', 'apps'], memoryIO({ cwd: dir })), 0);
});

test('e2e: the labelwise bin maps outcomes to exit codes (0 check passes, 3 unreadable)', () => {
  const bin = join(REPO, 'bin/labelwise.js');
  const ok = spawnSync(
    process.execPath,
    [bin, 'catalog', 'check', 'examples/homelab/catalog', '--apps', 'examples/homelab/apps'],
    {
      cwd: REPO,
      encoding: 'utf8',
    },
  );
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /reproduces/);
  const missing = spawnSync(process.execPath, [bin, 'catalog', 'check', 'no/such/dir', '--json'], {
    cwd: REPO,
    encoding: 'utf8',
  });
  assert.equal(missing.status, 3, missing.stderr);
  const report = JSON.parse(missing.stdout) as {
    diagnostics: { code: string }[];
    errors: number;
    warnings: number;
  };
  assert.deepEqual(
    [report.diagnostics.map((d) => d.code), report.errors, report.warnings],
    [['CATALOG_UNREADABLE'], 1, 0],
  );
});

test('an invalid service is reported once: its dependents get no "no service named" error', async (t) => {
  const dir = workspace();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const blog = join(dir, 'catalog/blog.yaml');
  writeFileSync(
    blog,
    readFileSync(blog, 'utf8').replace('exposure: public', 'exposure: everywhere'),
  );
  const io = memoryIO({ cwd: dir });
  assert.equal(await run(['check', 'catalog'], io), 1);
  assert.equal(
    io.err.trim().split('\n')[0],
    'catalog/blog.yaml:5:1: error CATALOG_SCHEMA: found "everywhere", expected one of "internal", "public" (at exposure)',
  );
  assert.doesNotMatch(io.err, /error CATALOG_DEPENDENCY_UNKNOWN/);
  assert.match(io.out, /, 1 error\n$/);
});

test('render into a directory that cannot be created fails with exit 3 instead of hanging', (t) => {
  if (!existsSync('/proc/self')) {
    t.skip('needs /proc, where the kernel refuses to create directories');
    return;
  }
  // A child process with a timeout: a synchronous hang could not be caught in-process.
  const result = spawnSync(
    process.execPath,
    [
      join(REPO, 'bin/labelwise.js'),
      'catalog',
      'render',
      EXAMPLE_CATALOG,
      '--out',
      '/proc/labelwise-no-such-dir/apps',
      '--json',
    ],
    { cwd: REPO, encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(result.signal, null, 'the render did not finish');
  assert.equal(result.status, 3, result.stderr);
  assert.equal(
    (JSON.parse(result.stdout) as { diagnostics: { code: string }[] }).diagnostics[0]?.code,
    'OUT_REFUSED',
  );
});

test('check --apps with a directory that does not exist is exit 3, not "every file differs"', async (t) => {
  const dir = workspace();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const io = memoryIO({ cwd: dir });
  assert.equal(await run(['check', 'catalog', '--apps', 'aps'], io), 3);
  assert.match(io.err, /CATALOG_UNREADABLE: the apps directory aps does not exist/);
  assert.match(io.err, /hint: render it first: labelwise catalog render catalog --out aps/);
});
