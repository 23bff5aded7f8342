// readUserFile and readStreamWithin: a file or stream the user names, read under the reader's
// rules and limits, refused in one LabelwiseError naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { LabelwiseError, readStreamWithin, readUserFile } from '../../src/base/index.js';

const dir = mkdtempSync(join(tmpdir(), 'labelwise-user-file-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function refusal(path: string, options: Parameters<typeof readUserFile>[1] = { cwd: dir }) {
  try {
    readUserFile(path, options);
  } catch (error) {
    assert.ok(error instanceof LabelwiseError, String(error));
    return { code: error.code, kind: error.kind, file: error.source.file, message: error.message };
  }
  assert.fail(`${path} was read`);
}

test('a regular file is read relative to cwd, its byte-order mark dropped', () => {
  writeFileSync(join(dir, 'a.txt'), '\ufeffhello\n');
  assert.equal(readUserFile('a.txt', { cwd: dir }), 'hello\n');
});

test('each refusal has its reader code, its exit kind and the file as named', () => {
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'big'), 'x'.repeat(11));
  mkdirSync(join(dir, 'inner'));
  symlinkSync('/etc/hostname', join(dir, 'inner', 'out'));
  const cases: [string, Parameters<typeof readUserFile>[1], string, string][] = [
    ['fifo', { cwd: dir }, 'READ_SPECIAL_FILE', 'input'],
    ['sub', { cwd: dir }, 'READ_IS_A_DIRECTORY', 'input'],
    ['big', { cwd: dir, maxBytes: 10 }, 'READ_TOO_LARGE', 'input'],
    ['inner/out', { cwd: dir }, 'READ_SYMLINK_OUTSIDE', 'input'],
    ['/dev/zero', { cwd: dir }, 'READ_SYSTEM_PATH', 'input'],
    ['/proc/self/environ', { cwd: dir }, 'READ_SYSTEM_PATH', 'input'],
    ['absent', { cwd: dir }, 'READ_UNREADABLE', 'unavailable'],
    ['no/such/dir/x', { cwd: dir }, 'READ_UNREADABLE', 'unavailable'],
  ];
  for (const [path, options, code, kind] of cases) {
    const got = refusal(path, options);
    assert.deepEqual([got.code, got.kind, got.file], [code, kind, path], path);
    assert.doesNotMatch(got.message, /\n/, 'one line');
  }
});

test("a command's own codes replace the reader's, by kind; the message keeps the reason", () => {
  const codes = { invalid: 'POLICY_INVALID_SETTING', unreadable: 'POLICY_UNREADABLE' } as const;
  const big = refusal('big', { cwd: dir, maxBytes: 10, what: 'settings file', codes });
  assert.equal(big.code, 'POLICY_INVALID_SETTING');
  assert.equal(big.message, 'the settings file is over the limit of 10 bytes');
  const absent = refusal('absent', { cwd: dir, what: 'settings file', codes });
  assert.deepEqual([absent.code, absent.kind], ['POLICY_UNREADABLE', 'unavailable']);
  assert.match(absent.message, /^cannot read the settings file: /);
});

test('readStreamWithin stops at the limit, not at the end', async () => {
  let pulled = 0;
  const endless = Readable.from(
    (function* () {
      for (;;) {
        pulled += 1;
        yield Buffer.alloc(1024);
      }
    })(),
  );
  const tooLarge = () => new LabelwiseError('READ_TOO_LARGE', 'stdin is over the limit');
  await assert.rejects(readStreamWithin(endless, 4096, tooLarge), /over the limit/);
  assert.ok(pulled < 10, `read ${pulled} chunks past a limit of 4`);
  assert.equal(await readStreamWithin(Readable.from(['a', Buffer.from('b')]), 2, tooLarge), 'ab');
});
