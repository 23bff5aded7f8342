import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { LabelwiseError, RepoReader } from '../../src/base/index.js';

function withRepo(fn: (root: string, outside: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-reader-'));
  try {
    mkdirSync(join(dir, 'repo'));
    writeFileSync(join(dir, 'outside.yaml'), 'secret: outside-7d2e\n');
    fn(join(dir, 'repo'), join(dir, 'outside.yaml'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const codes = (reader: RepoReader) => reader.diagnostics.map((d) => `${d.code} ${d.file}`);

test('lists regular files in code-point order, following links inside the repository once', () =>
  withRepo((root) => {
    mkdirSync(join(root, 'b'));
    writeFileSync(join(root, 'b', 'x.yaml'), 'x: 1');
    writeFileSync(join(root, 'B.yaml'), 'y: 1');
    writeFileSync(join(root, 'a.txt'), '');
    symlinkSync('b', join(root, 'link-to-b'));
    symlinkSync('.', join(root, 'b', 'self'));
    const reader = RepoReader.open(root);
    assert.deepEqual(
      reader.list('', { extensions: ['.yaml'] }).map((e) => e.path),
      ['B.yaml', 'b/x.yaml'],
    );
    assert.equal(reader.readText('link-to-b/x.yaml'), 'x: 1');
    assert.deepEqual(reader.diagnostics, []);
  }));

test('links leaving the repository, into /proc, dangling or looping are skipped with a warning', () =>
  withRepo((root, outside) => {
    symlinkSync(outside, join(root, 'out.yaml'));
    symlinkSync('/proc/self/environ', join(root, 'env.yaml'));
    symlinkSync('missing', join(root, 'dangling.yaml'));
    symlinkSync('loop.yaml', join(root, 'loop.yaml'));
    const reader = RepoReader.open(root);
    assert.deepEqual(reader.list(''), []);
    assert.equal(reader.readText('out.yaml'), undefined);
    assert.deepEqual(codes(reader).sort(), [
      'READ_BROKEN_SYMLINK dangling.yaml',
      'READ_BROKEN_SYMLINK loop.yaml',
      'READ_SYMLINK_OUTSIDE env.yaml',
      'READ_SYMLINK_OUTSIDE out.yaml',
    ]);
  }));

test('special files, directories, large files and paths out of the root are refused', () =>
  withRepo((root) => {
    spawnSync('mkfifo', [join(root, 'pipe.yaml')]);
    mkdirSync(join(root, 'dir.yaml'));
    writeFileSync(join(root, 'big.yaml'), 'x'.repeat(2000));
    const reader = RepoReader.open(root, { maxFileBytes: 1000 });
    assert.deepEqual(
      reader.list('', { extensions: ['.yaml'] }).map((e) => e.path),
      ['big.yaml'],
    );
    assert.equal(reader.readText('pipe.yaml'), undefined, 'a FIFO is never opened for reading');
    assert.equal(reader.readText('dir.yaml'), undefined);
    assert.equal(reader.readText('big.yaml'), undefined);
    assert.equal(reader.readText('../outside.yaml'), undefined);
    assert.equal(reader.readText('nope.yaml'), undefined);
    assert.deepEqual(codes(reader).sort(), [
      'READ_IS_A_DIRECTORY dir.yaml',
      'READ_OUTSIDE_REPOSITORY ../outside.yaml',
      'READ_SPECIAL_FILE pipe.yaml',
      'READ_TOO_LARGE big.yaml',
      'READ_UNREADABLE nope.yaml',
    ]);
  }));

test('the excluded output directory is never read', () =>
  withRepo((root) => {
    mkdirSync(join(root, 'out'));
    writeFileSync(join(root, 'out', 'report.yaml'), 'x: 1');
    writeFileSync(join(root, 'in.yaml'), 'x: 1');
    const reader = RepoReader.open(root, { excluded: [join(root, 'out')] });
    assert.deepEqual(
      reader.list('').map((e) => e.path),
      ['in.yaml'],
    );
    assert.equal(reader.readText('out/report.yaml'), undefined);
  }));

test('opening a missing root, a file or a system tree is a clear error', () =>
  withRepo((root) => {
    writeFileSync(join(root, 'f'), '');
    const code = (path: string) => {
      try {
        RepoReader.open(path);
        return 'opened';
      } catch (error) {
        return error instanceof LabelwiseError ? `${error.code} ${error.kind}` : 'bug';
      }
    };
    assert.equal(code(join(root, 'missing')), 'READ_UNREADABLE unavailable');
    assert.equal(code(join(root, 'f')), 'READ_NOT_A_DIRECTORY input');
    assert.equal(code('/proc/self'), 'READ_SYSTEM_PATH input');
  }));

test('property: no byte from outside the repository ever reaches what the reader returns', () => {
  const SECRET = 'outside-7d2e';
  const entry = fc.record({
    name: fc.stringMatching(/^[a-z]{1,6}(\.yaml)?$/),
    kind: fc.constantFrom('file', 'dir', 'link-out', 'link-in', 'link-up', 'link-proc'),
  });
  fc.assert(
    fc.property(fc.array(entry, { maxLength: 12 }), (entries) => {
      withRepo((root, outside) => {
        const made: string[] = [];
        for (const { name, kind } of entries) {
          const parent = made.find((m) => m.startsWith('d')) ?? '';
          const path = join(root, parent, name);
          try {
            if (kind === 'file') writeFileSync(path, `inside ${name}\n`);
            else if (kind === 'dir') {
              mkdirSync(path);
              made.push(name);
            } else if (kind === 'link-out') symlinkSync(outside, path);
            else if (kind === 'link-in') symlinkSync(join(root, made[0] ?? '.'), path);
            else if (kind === 'link-up') symlinkSync('..', path);
            else symlinkSync('/proc/self/environ', path);
          } catch {
            // a name taken twice: keep the first
          }
        }
        const reader = RepoReader.open(root);
        const seen: string[] = [];
        for (const file of reader.list('')) seen.push(file.path, reader.readText(file.path) ?? '');
        for (const { name } of entries) seen.push(reader.readText(name) ?? '');
        seen.push(...reader.diagnostics.map((d) => `${d.file} ${d.message}`));
        const all = seen.join('\n');
        assert.ok(!all.includes(SECRET) && !all.includes('PATH='), 'outside bytes leaked');
      });
    }),
    { numRuns: 60 },
  );
});
