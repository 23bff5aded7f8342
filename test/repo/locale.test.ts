/**
 * Same input, same bytes, whatever the machine's locale: report.json under sv_SE (which sorts
 * w with v) and tr_TR (dotless i) equals the one under C. Order is by code point everywhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

test('report.json does not depend on the locale', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'labelwise-locale-'));
  try {
    const reports: string[] = [];
    for (const locale of ['C.UTF-8', 'sv_SE.UTF-8', 'tr_TR.UTF-8']) {
      const out = join(dir, locale);
      const result = spawnSync(
        process.execPath,
        [
          join(ROOT, 'bin', 'labelwise.js'),
          'build',
          join(ROOT, 'examples', 'homelab'),
          '--out',
          out,
        ],
        { env: { ...process.env, LANG: locale, LC_ALL: locale }, encoding: 'utf8', cwd: dir },
      );
      assert.ok(result.status === 0 || result.status === 1, result.stderr);
      reports.push(await readFile(join(out, 'report.json'), 'utf8'));
    }
    assert.equal(reports[1], reports[0], 'sv_SE');
    assert.equal(reports[2], reports[0], 'tr_TR');
    // The locales really are in force: localeCompare sorts ä after z in Swedish, before it in C.
    const collate = (locale: string): string =>
      spawnSync(
        process.execPath,
        ['-e', "console.log(['ä','z','a'].sort((x, y) => x.localeCompare(y)).join(''))"],
        {
          env: { ...process.env, LANG: locale, LC_ALL: locale },
          encoding: 'utf8',
        },
      ).stdout.trim();
    assert.notEqual(collate('sv_SE.UTF-8'), collate('C.UTF-8'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
