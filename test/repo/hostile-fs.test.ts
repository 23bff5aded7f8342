/**
 * The hostile-filesystem suite: every way a repository or an --out could make labelwise destroy
 * a user's work or leak a file from outside the repository, each with the safe outcome.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeOwnedDirectory, MANIFEST } from '../../src/base/index.js';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { withTempDir } from '../support/temp.js';

const HOMELAB = join(import.meta.dirname, '..', '..', 'examples', 'homelab');
const SECRET = 'labelwise-secret-4f1c9a';

const withTemp = (fn: (dir: string) => Promise<void>): Promise<void> => withTempDir('hostile', fn);

async function build(cwd: string, ...args: string[]) {
  const io = memoryIO({ cwd });
  const code = await run(['build', ...args], io);
  return { code, out: io.out, err: io.err };
}

/** Exit 0 or 1: the build ran and wrote its output (errors in the input are not the point here). */
function built(code: number): boolean {
  return code === 0 || code === 1;
}

/** A copy of the example repository with a secret file beside it (outside the repository). */
async function repoWithSecret(dir: string): Promise<{ repo: string; secret: string }> {
  const repo = join(dir, 'repo');
  await cp(HOMELAB, repo, { recursive: true });
  const secret = join(dir, 'secret.yaml');
  await writeFile(secret, `token: ${SECRET}\n`);
  return { repo, secret };
}

async function treeOf(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

test('build . --out . in a git checkout with a forged marker deletes nothing', () =>
  withTemp(async (dir) => {
    const { repo } = await repoWithSecret(dir);
    spawnSync('git', ['init', '-q', repo]);
    await writeFile(join(repo, '.labelwise-build'), '');
    await writeFile(join(repo, 'uncommitted.txt'), 'my work');
    const before = await treeOf(repo);
    const result = await build(repo, '.', '--out', '.');
    assert.equal(result.code, 3, result.err);
    assert.match(result.err, /refusing to write --out .*: it is the repository itself/);
    assert.equal(result.err.trim().split('\n').length <= 2, true, result.err);
    assert.deepEqual(await treeOf(repo), before);
  }));

test('a symlink to /proc/self/environ or a file outside the repository is skipped, never printed', () =>
  withTemp(async (dir) => {
    const { repo, secret } = await repoWithSecret(dir);
    await symlink('/proc/self/environ', join(repo, 'catalog', 'env.yaml'));
    await symlink(secret, join(repo, 'policy', 'stolen.yaml'));
    await symlink(secret, join(repo, 'fleet', 'layers', 'stolen.yaml'));
    await symlink('/etc/passwd', join(repo, 'catalog', 'passwd.yaml'));
    const out = join(dir, 'out');
    const result = await build(dir, repo, '--out', out, '--json');
    const written = await Promise.all(
      ['report.json', 'report.html'].map((f) => readFile(join(out, f), 'utf8')),
    );
    for (const [index, text] of [result.out, result.err, ...written].entries()) {
      // Messages would be huge: report only which output leaked.
      for (const needle of [SECRET, 'PATH=', 'root:x:0:0'])
        assert.ok(
          !text.includes(needle),
          `output ${index} holds ${needle} from outside the repository`,
        );
    }
    const report = JSON.parse(result.out) as { diagnostics: { code: string; file?: string }[] };
    const skipped = report.diagnostics.filter((d) => d.code === 'READ_SYMLINK_OUTSIDE');
    assert.ok(
      skipped.some((d) => d.file === 'policy/stolen.yaml'),
      JSON.stringify(skipped),
    );
  }));

test('files a user added to a previous --out are never deleted', () =>
  withTemp(async (dir) => {
    const out = join(dir, 'out');
    assert.ok(built((await build(dir, HOMELAB, '--out', out)).code));
    await writeFile(join(out, 'notes.txt'), 'mine');
    const result = await build(dir, HOMELAB, '--out', out);
    assert.equal(result.code, 3);
    assert.match(result.err, /holds files labelwise did not write: notes\.txt/);
    assert.equal(await readFile(join(out, 'notes.txt'), 'utf8'), 'mine');
  }));

test("an edited output file counts as the user's and is kept", () =>
  withTemp(async (dir) => {
    const out = join(dir, 'out');
    await writeOwnedDirectory(out, { 'a.txt': 'ours' }, { writer: 'test' });
    await writeFile(join(out, 'a.txt'), 'edited by hand');
    await assert.rejects(
      writeOwnedDirectory(out, { 'a.txt': 'ours' }, { writer: 'test' }),
      /a\.txt/,
    );
    assert.equal(await readFile(join(out, 'a.txt'), 'utf8'), 'edited by hand');
  }));

test('a repository inside --out, or --out inside an input folder, is refused', () =>
  withTemp(async (dir) => {
    const { repo } = await repoWithSecret(dir);
    const before = await treeOf(repo);
    const around = await build(dir, repo, '--out', dir);
    assert.equal(around.code, 3);
    assert.match(around.err, /the repository lies inside it/);
    const inside = await build(dir, repo, '--out', join(repo, 'policy', 'out'));
    assert.equal(inside.code, 3);
    assert.match(inside.err, /overlaps an input folder/);
    assert.deepEqual(await treeOf(repo), before);
  }));

test('--out in the repository root works and is never read back as input', () =>
  withTemp(async (dir) => {
    const { repo } = await repoWithSecret(dir);
    const first = await build(repo, '.', '--out', 'out', '--json');
    assert.ok(built(first.code), first.err);
    const second = await build(repo, '.', '--out', 'out', '--json');
    assert.ok(built(second.code), second.err);
    const a = JSON.parse(first.out) as { diagnostics: unknown[] };
    const b = JSON.parse(second.out) as { diagnostics: unknown[] };
    assert.deepEqual(b.diagnostics, a.diagnostics);
  }));

test('unwritable or dangerous --out values are one-line errors with exit 3, never hang', () =>
  withTemp(async (dir) => {
    await writeFile(join(dir, 'file'), 'x');
    await symlink(join(dir, 'nowhere'), join(dir, 'dangling'));
    await mkdir(join(dir, 'real'));
    await symlink(join(dir, 'real'), join(dir, 'linked'));
    const cases: [string, RegExp][] = [
      ['/', /filesystem root/],
      ['/proc/x', /kernel file system/],
      ['/sys/x', /kernel file system/],
      [join(dir, 'file', 'out'), /a part of the path is a file/],
      [join(dir, 'file'), /exists and is not a directory/],
      [join(dir, 'dangling'), /symbolic link/],
      [join(dir, 'linked'), /symbolic link/],
    ];
    for (const [out, pattern] of cases) {
      const result = await build(dir, HOMELAB, '--out', out);
      assert.equal(result.code, 3, `${out}: ${result.err}`);
      assert.match(result.err, pattern, out);
      assert.doesNotMatch(result.err, /internal error|\n\s+at /, out);
    }
    assert.equal(
      existsSync(join(dir, 'real', MANIFEST)),
      false,
      'nothing written through the link',
    );
  }));

test('20 concurrent writes to one --out are serialised; the result is one complete output', () =>
  withTemp(async (dir) => {
    const out = join(dir, 'out');
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        writeOwnedDirectory(
          out,
          { 'n.txt': String(i), [`only-${i}.txt`]: 'x' },
          { writer: 'test' },
        ),
      ),
    );
    assert.deepEqual(
      results.filter((r) => r.status === 'rejected'),
      [],
    );
    const names = (await readdir(out)).sort();
    assert.equal(names.length, 3, names.join(','));
    assert.deepEqual(await readdir(dir), ['out'], 'no stage or lock left behind');
  }));

test('concurrent builds to one --out all succeed and leave one complete build', () =>
  withTemp(async (dir) => {
    const out = join(dir, 'out');
    const codes = await Promise.all(
      Array.from({ length: 4 }, () => build(dir, HOMELAB, '--out', out).then((r) => r.code)),
    );
    assert.ok(codes.every(built), codes.join(','));
    assert.ok(existsSync(join(out, 'report.json')));
    assert.deepEqual(await readdir(dir), ['out']);
  }));

test('SIGINT mid-write leaves no stage behind and the previous output intact', () =>
  withTemp(async (dir) => {
    const out = join(dir, 'out');
    await writeOwnedDirectory(out, { 'old.txt': 'previous' }, { writer: 'test' });
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'write-many.ts'), out, '20000'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    // Wait until the stage exists, then interrupt.
    for (let i = 0; i < 400; i++) {
      const stages = (await readdir(dir)).filter((n) => n.includes('labelwise-stage'));
      if (stages.length > 0) break;
      await new Promise((done) => setTimeout(done, 25));
    }
    child.kill('SIGINT');
    const status = await new Promise<number | null>((done) =>
      child.on('exit', (code) => done(code)),
    );
    assert.doesNotMatch(output, /done/, 'the write was interrupted before it finished');
    assert.notEqual(status, 0);
    assert.deepEqual(await readdir(dir), ['out'], 'the stage and the lock are gone');
    assert.equal(await readFile(join(out, 'old.txt'), 'utf8'), 'previous');
  }));

test('stages and locks left by a dead process are swept by the next run', () =>
  withTemp(async (dir) => {
    const out = join(dir, 'out');
    await mkdir(join(dir, '.out.labelwise-stage-999999999-dead'));
    await writeFile(join(dir, '.out.labelwise-lock'), '999999999\n');
    await writeOwnedDirectory(out, { 'a.txt': '1' }, { writer: 'test' });
    assert.deepEqual(await readdir(dir), ['out']);
  }));

test('a swap interrupted after the old output was moved aside is undone, not swept away', () =>
  withTemp(async (dir) => {
    const aside = join(dir, '.out.labelwise-stage-999999999-dead-old');
    await mkdir(aside);
    await writeFile(join(aside, 'report.json'), 'the last good build');
    await writeOwnedDirectory(join(dir, 'elsewhere'), { a: '1' }, { writer: 'test' });
    // Writing out/ sweeps first: the moved-aside output comes back as out/, then is replaced only if ours.
    await assert.rejects(
      writeOwnedDirectory(join(dir, 'out'), { b: '2' }, { writer: 'test' }),
      /labelwise did not write/,
    );
    assert.equal(await readFile(join(dir, 'out', 'report.json'), 'utf8'), 'the last good build');
  }));

test('FIFOs, a directory named x.yaml, symlink loops and odd names do not hang or leak', () =>
  withTemp(async (dir) => {
    const { repo } = await repoWithSecret(dir);
    spawnSync('mkfifo', [join(repo, 'policy', 'fifo.yaml')]);
    await mkdir(join(repo, 'policy', 'dir.yaml'));
    await symlink('loop-b.yaml', join(repo, 'policy', 'loop-a.yaml'));
    await symlink('loop-a.yaml', join(repo, 'policy', 'loop-b.yaml'));
    await symlink('..', join(repo, 'policy', 'up'));
    await writeFile(join(repo, 'policy', 'odd\u001b[2J\nname.yaml'), 'kind: [\n');
    const result = await build(dir, repo, '--out', join(dir, 'out'));
    assert.notEqual(result.code, 70, result.err);
    assert.ok(!(result.out + result.err).includes('\u001b'), 'no raw escape reaches the terminal');
  }));
