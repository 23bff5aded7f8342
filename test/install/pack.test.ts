/**
 * The package as users get it: one `npm pack` of a clean copy of the checkout (prepare builds
 * dist/), then two installs of the tarball — into a fresh project and globally into a temporary
 * prefix — and the commands a user runs first. Dependencies come from the npm registry.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suiteSkip } from '../support/capabilities.js';
import { PACKAGE, ROOT, copyCheckout, failure, run, tempDir } from './support.js';

interface Packed {
  filename: string;
  size: number;
  files: { path: string; mode: number }[];
}

const INSTALL_FLAGS = ['--no-audit', '--no-fund', '--prefer-offline'];

describe('the npm package', { skip: suiteSkip('npm-registry', 'git') }, () => {
  let work = '';
  let checkout = '';
  let tarball = '';
  let packed: Packed = { filename: '', size: 0, files: [] };

  before(() => {
    work = tempDir('pack');
    checkout = join(work, 'checkout');
    copyCheckout(checkout, true);
    const result = run('npm', ['pack', '--json', '--pack-destination', work], { cwd: checkout });
    assert.equal(result.status, 0, failure(result));
    packed = (JSON.parse(result.stdout) as Packed[])[0] as Packed;
    tarball = join(work, packed.filename);
  });
  after(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  test('npm pack builds dist/ and ships what users run, not the sources', () => {
    const paths = new Set(packed.files.map((file) => file.path));
    for (const needed of [
      'bin/labelwise.js',
      'dist/cli/main.js',
      'dist/index.d.ts',
      'catalog/servicedefinition.schema.json',
      'examples/homelab/catalog/platform.yaml',
    ])
      assert.ok(paths.has(needed), `${needed} is in the tarball`);
    for (const path of paths) {
      assert.ok(!/^(src|test|bench|scripts|\.ci)\//.test(path), `${path} is not shipped`);
      assert.ok(!path.endsWith('.map'), `${path}: source maps point at sources not shipped`);
    }
    const bin = packed.files.find((file) => file.path === 'bin/labelwise.js');
    assert.ok(bin !== undefined && (bin.mode & 0o111) !== 0, 'the bin is executable');
  });

  test('every export names files the tarball holds, with their types', () => {
    const paths = new Set(packed.files.map((file) => file.path));
    for (const [entry, target] of Object.entries(PACKAGE.exports)) {
      if (typeof target === 'string') continue;
      const { types, default: main } = target as { types: string; default: string };
      assert.ok(paths.has(types.slice(2)), `${entry}: ${types}`);
      assert.ok(paths.has(main.slice(2)), `${entry}: ${main}`);
    }
  });

  test('npm publish --dry-run warns about nothing but the missing login', () => {
    const result = run('npm', ['publish', '--dry-run', '--ignore-scripts'], { cwd: checkout });
    assert.equal(result.status, 0, failure(result));
    const warnings = result.stderr
      .split('\n')
      .filter((line) => /^npm (warn|error)/i.test(line))
      .filter((line) => !/requires you to be logged in/.test(line));
    assert.deepEqual(warnings, []);
  });

  test('installed into a project, every module entry imports and has its types', () => {
    const project = join(work, 'project');
    cpSync(join(ROOT, 'test', 'install', 'fixtures', 'consumer'), project, { recursive: true });
    const install = run('npm', ['install', tarball, ...INSTALL_FLAGS], { cwd: project });
    assert.equal(install.status, 0, failure(install));
    const entries = Object.keys(PACKAGE.exports)
      .filter((entry) => !entry.includes('*') && !entry.endsWith('.json'))
      .map((entry) => entry.replace(/^\./, PACKAGE.name));
    writeFileSync(
      join(project, 'entries.mjs'),
      `for (const name of ${JSON.stringify(entries)}) {\n` +
        `  const module = await import(name);\n` +
        `  console.log(name, Object.keys(module).length);\n}\n`,
    );
    const imported = run(process.execPath, ['entries.mjs'], { cwd: project });
    assert.equal(imported.status, 0, failure(imported));
    const counts = imported.stdout.trim().split('\n');
    assert.equal(counts.length, entries.length);
    for (const line of counts) assert.match(line, / [1-9]\d*$/, `${line}: exports something`);
    // The consumer type-checks against the shipped declarations, as a TypeScript user's would.
    const tsc = run(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'],
      { cwd: project },
    );
    assert.equal(tsc.status, 0, failure(tsc));
  });

  test('installed globally, labelwise runs: --version, build on the example, schema', () => {
    const prefix = join(work, 'prefix');
    const install = run('npm', ['install', '-g', '--prefix', prefix, tarball, ...INSTALL_FLAGS], {
      cwd: work,
    });
    assert.equal(install.status, 0, failure(install));
    const labelwise = join(prefix, 'bin', 'labelwise');
    assert.ok(statSync(labelwise).mode & 0o111, 'the bin is on the prefix PATH');
    assert.ok(!existsSync(join(prefix, 'lib', 'node_modules', 'labelwise', 'src')));

    const version = run(labelwise, ['--version'], { cwd: work });
    assert.equal(version.status, 0, failure(version));
    assert.equal(version.stdout.trim(), PACKAGE.version);

    const repo = join(work, 'homelab');
    cpSync(join(ROOT, 'examples', 'homelab'), repo, { recursive: true });
    const out = join(work, 'out');
    const build = run(labelwise, ['build', repo, '--out', out], { cwd: work });
    assert.equal(build.status, 0, failure(build));
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as object;
    assert.ok('modules' in report || Object.keys(report).length > 0, 'report.json is written');

    const schema = run(labelwise, ['schema', 'servicedefinition'], { cwd: work });
    assert.equal(schema.status, 0, failure(schema));
    assert.equal((JSON.parse(schema.stdout) as { title?: string }).title, 'ServiceDefinition');
  });
});
