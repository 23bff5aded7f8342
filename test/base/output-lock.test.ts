import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LabelwiseError, writeOwnedDirectory } from '../../src/base/index.js';
import { startTimeOf } from '../../src/base/io/output-lock.js';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-lock-'));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const BOOT = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

test('a lock naming our own PID is stale: a container run after an OOM kill is not blocked', () =>
  withDir(async (dir) => {
    // The repro: the killed run was PID 1, and so is the next one; the lock file holds "1".
    // Here the PID that is "reused" is this process's own.
    writeFileSync(join(dir, '.out.labelwise-lock'), `${process.pid}\n`);
    await writeOwnedDirectory(join(dir, 'out'), { a: '1' }, { writer: 'test', lockTimeoutMs: 0 });
    assert.equal(readFileSync(join(dir, 'out', 'a'), 'utf8'), '1');
    assert.deepEqual(readdirSync(dir), ['out'], 'the stale lock is gone');
  }));

test('a lock whose PID is alive but started at another time is stale (the PID was reused)', () =>
  withDir(async (dir) => {
    const start = startTimeOf(1);
    assert.ok(start !== undefined, '/proc/1/stat gives a start time');
    const reused = { pid: 1, start: `${Number(start) + 12345}`, boot: BOOT, token: 'ab' };
    writeFileSync(join(dir, '.out.labelwise-lock'), `${JSON.stringify(reused)}\n`);
    await writeOwnedDirectory(join(dir, 'out'), { a: '1' }, { writer: 'test', lockTimeoutMs: 0 });
    assert.equal(readFileSync(join(dir, 'out', 'a'), 'utf8'), '1');
  }));

test('a lock from another boot is stale', () =>
  withDir(async (dir) => {
    const other = { pid: 1, start: startTimeOf(1), boot: 'another-boot', token: 'ab' };
    writeFileSync(join(dir, '.out.labelwise-lock'), `${JSON.stringify(other)}\n`);
    await writeOwnedDirectory(join(dir, 'out'), { a: '1' }, { writer: 'test', lockTimeoutMs: 0 });
    assert.equal(readFileSync(join(dir, 'out', 'a'), 'utf8'), '1');
  }));

test('a lock held by a live process makes a writer wait, then refuse, naming the lock file', () =>
  withDir(async (dir) => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], {
      stdio: 'ignore',
    });
    try {
      const pid = child.pid as number;
      const holder = { pid, start: startTimeOf(pid), boot: BOOT, token: 'cd' };
      const lock = join(dir, '.out.labelwise-lock');
      writeFileSync(lock, `${JSON.stringify(holder)}\n`);
      const error = await writeOwnedDirectory(
        join(dir, 'out'),
        { a: '1' },
        { writer: 'test', lockTimeoutMs: 100 },
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof LabelwiseError, String(error));
      assert.equal(error.code, 'OUT_LOCKED');
      assert.equal(error.kind, 'unavailable');
      assert.ok(error.message.includes(lock), error.message);
      assert.match(error.message, new RegExp(`pid ${pid}`));
      assert.match(error.hint ?? '', /delete the lock file/);
      assert.equal(readFileSync(lock, 'utf8'), `${JSON.stringify(holder)}\n`, 'the lock is kept');
    } finally {
      child.kill();
    }
  }));

test('writers in one process to one target still take turns', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    const runs = Array.from({ length: 6 }, (_, i) =>
      writeOwnedDirectory(out, { n: String(i) }, { writer: 'test' }),
    );
    await Promise.all(runs);
    assert.match(readFileSync(join(out, 'n'), 'utf8'), /^[0-5]$/);
    assert.deepEqual(readdirSync(dir), ['out']);
  }));

test('a stage named by a dead or reused holder is swept', () =>
  withDir(async (dir) => {
    writeFileSync(join(dir, `.out.labelwise-stage-${process.pid}.1.ffff`), '');
    writeFileSync(join(dir, '.out.labelwise-stage-1.1.eeee'), '');
    await writeOwnedDirectory(join(dir, 'out'), { a: '1' }, { writer: 'test' });
    assert.deepEqual(readdirSync(dir), ['out']);
  }));
