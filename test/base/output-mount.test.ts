/**
 * `--out` on a mount point (`docker run -v $PWD/out:/out`, a PVC, a tmpfs): a real tmpfs is
 * mounted on the target, so renaming the target fails with EBUSY exactly as in a container.
 */
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LabelwiseError, MANIFEST, writeOwnedDirectory } from '../../src/base/index.js';
import { startTimeOf } from '../../src/base/io/output-lock.js';

/** Mounts a tmpfs on a fresh `out/` in a temp directory; undefined (test skipped) when refused. */
async function withMount(
  t: TestContext,
  fn: (dir: string, out: string) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-mount-'));
  const out = join(dir, 'out');
  mkdirSync(out);
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', out], {
    encoding: 'utf8',
  });
  try {
    if (mounted.status !== 0) {
      t.skip(`mount -t tmpfs is refused here: ${mounted.stderr.trim() || 'not root?'}`);
      return;
    }
    await fn(dir, out);
  } finally {
    if (mounted.status === 0) spawnSync('umount', [out]);
    rmSync(dir, { recursive: true, force: true });
  }
}

test('--out on a mount point is written, replaced, and never leaves the parent touched', (t) =>
  withMount(t, async (dir, out) => {
    await writeOwnedDirectory(out, { 'a/b.json': '{}\n', 'c.txt': 'one' }, { writer: 'test' });
    assert.deepEqual(readdirSync(out).sort(), [MANIFEST, 'a', 'c.txt']);
    await writeOwnedDirectory(out, { 'd.txt': 'two' }, { writer: 'test' });
    assert.deepEqual(readdirSync(out).sort(), [MANIFEST, 'd.txt']);
    assert.equal(readFileSync(join(out, 'd.txt'), 'utf8'), 'two');
    assert.deepEqual(readdirSync(dir), ['out'], 'no lock or stage beside the mount point');
  }));

test('a mount point with foreign files is refused and left as it was', (t) =>
  withMount(t, async (_dir, out) => {
    writeFileSync(join(out, 'notes.txt'), 'mine');
    await assert.rejects(
      writeOwnedDirectory(out, { 'a.txt': '1' }, { writer: 'test' }),
      (e: unknown) => e instanceof LabelwiseError && e.code === 'OUT_NOT_OURS',
    );
    assert.deepEqual(readdirSync(out), ['notes.txt']);
  }));

test('a failed write into a mount point keeps the previous output whole', (t) =>
  withMount(t, async (_dir, out) => {
    await writeOwnedDirectory(out, { 'old.txt': 'previous' }, { writer: 'test' });
    // `a` as a file and as a directory cannot both be staged.
    await assert.rejects(
      writeOwnedDirectory(out, { a: '1', 'a/b': '2' }, { writer: 'test' }),
      (e: unknown) => e instanceof LabelwiseError && e.code === 'OUT_UNWRITABLE',
    );
    assert.deepEqual(readdirSync(out).sort(), [MANIFEST, 'old.txt']);
    // A file too big for the 8 MiB tmpfs fails mid-write: still all or nothing.
    await assert.rejects(
      writeOwnedDirectory(out, { 'big.bin': Buffer.alloc(9 * 1024 * 1024) }, { writer: 'test' }),
      (e: unknown) =>
        e instanceof LabelwiseError &&
        e.message.includes('(file big.bin): no space left on device'),
    );
    assert.deepEqual(readdirSync(out).sort(), [MANIFEST, 'old.txt']);
    assert.equal(readFileSync(join(out, 'old.txt'), 'utf8'), 'previous');
  }));

test('a swap into a mount point interrupted at either step is undone by the next run', (t) =>
  withMount(t, async (_dir, out) => {
    await writeOwnedDirectory(out, { 'old.txt': 'previous' }, { writer: 'test' });
    const dead = `.labelwise-stage-999999999.${startTimeOf(process.pid) ?? '1'}.dead`;
    // Killed while moving the old entries aside: old.txt went, the manifest had not.
    mkdirSync(join(out, `${dead}-moving`));
    writeFileSync(join(out, `${dead}-moving`, 'old.txt'), 'previous');
    rmSync(join(out, 'old.txt'));
    // The next run puts old.txt back before it checks ownership, so the write goes through.
    await writeOwnedDirectory(out, { 'new.txt': 'next' }, { writer: 'test' });
    assert.deepEqual(readdirSync(out).sort(), [MANIFEST, 'new.txt']);
    // Killed while moving the new entries up: the manifest is not there yet.
    mkdirSync(join(out, `${dead}-old`));
    for (const name of readdirSync(out).filter((n) => !n.startsWith('.labelwise-stage-')))
      writeFileSync(join(out, `${dead}-old`, name), readFileSync(join(out, name)));
    rmSync(join(out, MANIFEST));
    writeFileSync(join(out, 'half.txt'), 'partial');
    await writeOwnedDirectory(out, { 'last.txt': 'final' }, { writer: 'test' });
    assert.deepEqual(readdirSync(out).sort(), [MANIFEST, 'last.txt']);
  }));
