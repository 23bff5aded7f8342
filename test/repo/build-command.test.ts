import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import type { BuildReport } from '../../src/repo/index.js';
import { withTempDir, editFile } from '../support/temp.js';

const HOMELAB = join(import.meta.dirname, '..', '..', 'examples', 'homelab');

const withTemp = (fn: (dir: string) => Promise<void>): Promise<void> => withTempDir('build', fn);

test('labelwise build examples/homelab exits 0 and writes every output with a full report', () =>
  withTemp(async (dir) => {
    const out = join(dir, 'out');
    const io = memoryIO({ cwd: dir });
    const code = await run(['build', HOMELAB, '--out', out, '--json'], io);
    assert.equal(code, 0, io.err);
    const report = JSON.parse(io.out) as BuildReport;
    assert.equal(report.ok, true);
    assert.deepEqual(
      report.modules.map((m) => m.module),
      ['fleet', 'catalog', 'policy', 'anchor'],
    );
    assert.deepEqual(
      report.diagnostics.filter((f) => f.severity === 'error'),
      [],
    );
    const top = (await readdir(out)).sort();
    for (const name of ['report.json', 'report.html', 'anchors.json', 'fleet', 'apps', 'policy'])
      assert.ok(top.includes(name), name);
    assert.ok((await readdir(join(out, 'fleet'))).some((f) => f.endsWith('.json')));
    assert.ok((await readdir(join(out, 'policy'))).includes('compiled.json'));
    assert.deepEqual(JSON.parse(await readFile(join(out, 'report.json'), 'utf8')), report);
    const html = await readFile(join(out, 'report.html'), 'utf8');
    for (const id of [
      'summary',
      'diagnostics',
      'fleet-matrix',
      'anchor-claims',
      'catalog-services',
      'policy-matrix',
    ])
      assert.ok(html.includes(`id="${id}"`), id);
  }));

test('the build is deterministic: two runs write identical reports', () =>
  withTemp(async (dir) => {
    const first = memoryIO({ cwd: dir });
    const second = memoryIO({ cwd: dir });
    await run(['build', HOMELAB, '--out', join(dir, 'a'), '--json'], first);
    await run(['build', HOMELAB, '--out', join(dir, 'b'), '--json'], second);
    assert.equal(first.out, second.out);
    assert.equal(
      await readFile(join(dir, 'a', 'report.html'), 'utf8'),
      await readFile(join(dir, 'b', 'report.html'), 'utf8'),
    );
  }));

test('one deliberate error in each part: exit 1 and all four reported with file and line', () =>
  withTemp(async (dir) => {
    const repo = join(dir, 'repo');
    await cp(HOMELAB, repo, { recursive: true });
    // fleet: a Host may not set a reserved datum/ label.
    await editFile(
      join(repo, 'fleet', 'hosts', 'production.yaml'),
      '  role: web\n',
      '  role: web\n  datum/owner: me\n',
    );
    // catalog: an exposure outside the enum.
    await editFile(join(repo, 'catalog', 'blog.yaml'), 'exposure: public', 'exposure: everywhere');
    // policy: a Server whose proxyProtocol Linkerd does not know.
    await editFile(
      join(repo, 'policy', 'servers.yaml'),
      'proxyProtocol: HTTP/1',
      'proxyProtocol: HTTP/7',
    );
    // anchors: an expose label with a port out of range.
    await editFile(
      join(repo, 'compose', 'compose.yaml'),
      /anchord\.expose: "?tcp\/443"?/,
      'anchord.expose: "tcp/99999"',
    );

    const io = memoryIO({ cwd: dir });
    const code = await run(['build', repo, '--out', join(dir, 'out'), '--json'], io);
    assert.equal(code, 1, io.err);
    const report = JSON.parse(io.out) as BuildReport;
    assert.equal(report.ok, false);
    const errors = report.diagnostics.filter((f) => f.severity === 'error');
    const expectations: [string, RegExp][] = [
      ['fleet', /^fleet\/hosts\/production\.yaml$/],
      ['catalog', /^catalog\/blog\.yaml$/],
      ['policy', /^policy\/servers\.yaml$/],
      ['anchor', /^compose\/compose\.yaml$/],
    ];
    for (const [module, file] of expectations) {
      const found = errors.filter((f) => f.module === module);
      assert.ok(
        found.length > 0,
        `${module} reports its error: ${JSON.stringify(report.diagnostics)}`,
      );
      assert.ok(
        found.some(
          (f) =>
            f.file !== undefined && file.test(f.file) && typeof f.line === 'number' && f.line > 0,
        ),
        `${module} names file and line: ${JSON.stringify(found)}`,
      );
    }
  }));

test('text mode prints a table per module and the diagnostics', () =>
  withTemp(async (dir) => {
    const io = memoryIO({ cwd: dir });
    const code = await run(['build', HOMELAB, '--out', join(dir, 'out')], io);
    assert.equal(code, 0, io.err);
    for (const module of ['fleet', 'catalog', 'policy', 'anchor'])
      assert.match(io.out, new RegExp(`^${module} \\(`, 'm'));
    assert.match(io.out, /^ {2}errors +0$/m);
    assert.match(io.out, /^ok: \d+ warning\(s\); wrote \d+ files to out\/ \(open report\.html\)$/m);
  }));

test('a missing repository exits 3; a repository with nothing to build exits 1', () =>
  withTemp(async (dir) => {
    const missing = memoryIO({ cwd: dir });
    assert.equal(await run(['build', join(dir, 'nope')], missing), 3);
    assert.match(missing.err, /BUILD_NO_REPOSITORY/);
    const empty = memoryIO({ cwd: dir });
    assert.equal(await run(['build', dir, '--out', join(dir, 'out')], empty), 1);
    assert.match(empty.err, /BUILD_NOTHING_FOUND.*holds nothing to build/);
    assert.deepEqual(await readdir(dir), [], 'nothing was written');
  }));

test('a hand-edited rendered manifest is a golden difference located at its file', () =>
  withTemp(async (dir) => {
    const repo = join(dir, 'repo');
    await cp(HOMELAB, repo, { recursive: true });
    await editFile(
      join(repo, 'apps', 'blog', 'deployment-blog.yaml'),
      /replicas: 1/,
      'replicas: 5',
    );
    const io = memoryIO({ cwd: dir });
    assert.equal(await run(['build', repo, '--out', join(dir, 'out'), '--json'], io), 1, io.err);
    const report = JSON.parse(io.out) as BuildReport;
    const diffs = report.diagnostics.filter((f) => f.code === 'CATALOG_GOLDEN_DIFF');
    assert.deepEqual(
      diffs.map((f) => [f.severity, f.file]),
      [['error', 'apps/blog/deployment-blog.yaml']],
    );
  }));
