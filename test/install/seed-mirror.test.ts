/**
 * `.ci/seed-base-image.sh` seeds the base image from the Debian mirror this machine's apt uses.
 * Each case writes an apt configuration (LABELWISE_APT_DIR) and asks the script which mirror
 * it would use (`--print-mirror`): one-line and deb822 formats, options, disabled stanzas and
 * other suites.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, failure, run, tempDir } from './support.js';

function mirrorFor(files: Record<string, string>): string {
  const dir = tempDir('apt');
  try {
    mkdirSync(join(dir, 'sources.list.d'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const env: NodeJS.ProcessEnv = { ...process.env, LABELWISE_APT_DIR: dir };
    delete env.LABELWISE_DEBIAN_MIRROR;
    const result = run('bash', [join(ROOT, '.ci', 'seed-base-image.sh'), '--print-mirror'], {
      cwd: dir,
      env,
    });
    assert.equal(result.status, 0, failure(result));
    return result.stdout.trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a one-line sources.list: the bookworm deb line, options skipped', () => {
  const list = [
    '# a comment',
    'deb-src http://src.example/debian bookworm main',
    'deb http://security.example/debian-security bookworm-security main',
    'deb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] http://mirror.example/debian bookworm main',
  ].join('\n');
  assert.equal(mirrorFor({ 'sources.list': list }), 'http://mirror.example/debian');
});

test('deb822 .sources: the first enabled stanza with deb and bookworm', () => {
  const sources = [
    'Types: deb',
    'URIs: http://off.example/debian',
    'Suites: bookworm',
    'Enabled: no',
    '',
    'Types: deb',
    'URIs: http://security.example/debian-security',
    'Suites: bookworm-security',
    '',
    'Types: deb-src deb',
    '# http://snapshot.debian.org/archive/debian/20250520T000000Z',
    'URIs: http://proxy.example:3142/debian http://second.example/debian',
    'Suites: bookworm bookworm-updates',
    'Components: main',
  ].join('\n');
  assert.equal(
    mirrorFor({ 'sources.list.d/debian.sources': sources }),
    'http://proxy.example:3142/debian',
  );
});

test('no bookworm source: nothing, and seeding then says to set LABELWISE_DEBIAN_MIRROR', () => {
  assert.equal(mirrorFor({ 'sources.list': 'deb http://mirror.example/debian trixie main\n' }), '');
});
