/**
 * How `build` and `diff` behave on the repositories and checkouts people really have: a REPO
 * given as a symbolic link, a shallow CI clone, a bare repository, no REPO at all, a part that is
 * a link out of the repository, an output folder inside an input folder, and `--fail-on warning`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { runCheck } from '../../src/cli/check-output.js';
import { run as buildCommand } from '../../src/cli/build.js';
import { memoryIO } from '../../src/cli/io.js';
import type { CliIO } from '../../src/cli/io.js';
import { skipWithout } from '../support/capabilities.js';
import { cliIn as cli, git } from '../support/git.js';
import { withTempDir } from '../support/temp.js';

const POLICY = join(import.meta.dirname, '..', '..', 'examples', 'homelab', 'policy');

/** A checkout whose repository folder is `infra/` (the example's policy), with two commits. */
async function checkout(dir: string): Promise<string> {
  const repo = join(dir, 'checkout');
  await cp(POLICY, join(repo, 'infra', 'policy'), { recursive: true });
  git(dir, 'init', '-q', '-b', 'main', repo);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'one');
  writeFileSync(join(repo, 'infra', 'policy', 'README.md'), 'two\n');
  git(repo, 'commit', '-q', '-a', '-m', 'two');
  return repo;
}

test('REPO given as a symbolic link to a folder of the checkout works for diff and build', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withTempDir('symlink', async (dir) => {
    const repo = await checkout(dir);
    symlinkSync(join(repo, 'infra'), join(dir, 'link'));
    const diffed = await cli(dir, 'diff', 'link', '--from', 'HEAD~1', '--json');
    assert.equal(diffed.code, 0, diffed.out + diffed.err);
    assert.equal(JSON.parse(diffed.out).changed, false);
    const built = await cli(dir, 'build', 'link', '--out', join(dir, 'out'), '--json');
    assert.equal(built.code, 0, built.err);
  });
});

test('a shallow clone names fetch-depth: 0; a bare repository says it is bare', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withTempDir('shallow', async (dir) => {
    const repo = await checkout(dir);
    git(dir, 'clone', '-q', '--depth', '1', `file://${repo}`, 'shallow');
    const shallow = await cli(join(dir, 'shallow'), 'diff', 'infra', '--from', 'HEAD~1', '--json');
    assert.equal(shallow.code, 1);
    const error = JSON.parse(shallow.out).diagnostics[0];
    assert.equal(error.code, 'DIFF_BAD_REVISION');
    assert.match(error.hint, /fetch-depth: 0/);
    git(dir, 'clone', '-q', '--bare', repo, 'bare.git');
    const bare = await cli(join(dir, 'bare.git'), 'diff', '.', '--from', 'HEAD', '--json');
    assert.equal(bare.code, 1);
    assert.equal(JSON.parse(bare.out).diagnostics[0].code, 'DIFF_NOT_A_REPOSITORY');
    assert.match(JSON.parse(bare.out).diagnostics[0].message, /is a bare git repository/);
    const fleet = await cli(join(dir, 'bare.git'), 'fleet', 'affected', '.', '--from', 'HEAD');
    assert.equal(fleet.code, 1, 'fleet affected exits as diff does');
  });
});

test('build with no REPO builds the current directory', async () => {
  await withTempDir('cwd', async (dir) => {
    await cp(POLICY, join(dir, 'policy'), { recursive: true });
    const built = await cli(
      dir,
      'build',
      '--out',
      join(dir, '..', `${dir.split('/').pop()}-out`),
      '--json',
    );
    assert.equal(built.code, 0, built.err);
    assert.deepEqual(
      JSON.parse(built.out).modules.map((m: { module: string }) => m.module),
      ['policy'],
    );
    await cli(dir, 'build', '--help').then((help) =>
      assert.match(help.out, /default: the current directory/),
    );
  });
});

test('a labelwise.yaml part that links out of the repository is named, not "nothing found"', async () => {
  await withTempDir('partlink', async (dir) => {
    mkdirSync(join(dir, 'outside'));
    await cp(POLICY, join(dir, 'outside', 'policy'), { recursive: true });
    mkdirSync(join(dir, 'repo'));
    symlinkSync(join(dir, 'outside', 'policy'), join(dir, 'repo', 'infra'));
    writeFileSync(join(dir, 'repo', 'labelwise.yaml'), 'parts:\n  policy: infra\n');
    const built = await cli(dir, 'build', 'repo', '--out', 'out');
    assert.equal(built.code, 1);
    assert.match(built.err, /READ_SYMLINK_OUTSIDE: .*symbolic link leads outside the repository/);
    assert.doesNotMatch(built.err, /BUILD_NOTHING_FOUND/);
  });
});

test('an empty policy/ is an input folder: build r --out r/policy is refused', async () => {
  await withTempDir('emptypolicy', async (dir) => {
    mkdirSync(join(dir, 'r', 'policy'), { recursive: true });
    writeFileSync(join(dir, 'r', 'compose.yaml'), 'services:\n  web:\n    image: nginx\n');
    const built = await cli(dir, 'build', 'r', '--out', 'r/policy');
    assert.equal(built.code, 3, built.out);
    assert.match(built.err, /OUT_REFUSED: .*overlaps an input folder/);
  });
});

test('--fail-on warning: the build runs once and never prints "ok" before failing', async () => {
  await withTempDir('failon', async (dir) => {
    await cp(POLICY, join(dir, 'policy'), { recursive: true });
    const io = memoryIO({ cwd: dir });
    let runs = 0;
    const counted = (args: readonly string[], inner: CliIO) => {
      runs++;
      return buildCommand(args, inner);
    };
    const args = ['.', '--out', join(dir, 'out')];
    const code = await runCheck('labelwise build', { failOn: 'warning', args }, io, counted, '0');
    assert.equal(code, 1);
    assert.equal(runs, 1);
    assert.doesNotMatch(io.out, /^ok:/m);
    assert.match(io.out, /^failed \(--fail-on warning\): 0 error\(s\), 2 warning\(s\)/m);
    const through = await cli(dir, 'build', '.', '--out', join(dir, 'out'), '--fail-on', 'warning');
    assert.equal(through.code, 1);
    assert.doesNotMatch(through.out, /^ok:/m);
  });
});

test('help lists --format and --fail-on wherever they apply', async () => {
  for (const argv of [
    ['build'],
    ['diff'],
    ['fleet', 'validate'],
    ['catalog', 'check'],
    ['policy', 'lint'],
    ['anchor', 'check'],
  ]) {
    const help = await cli(process.cwd(), ...argv, '--help');
    assert.match(help.out, /--format <format>/, argv.join(' '));
    assert.match(help.out, /--fail-on <severity>/, argv.join(' '));
  }
});
