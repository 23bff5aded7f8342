/**
 * Every host name the fleet accepts can be written as an output file. The repro: a 256-character
 * name (or 120 `_`, which the report's page names escape to four characters each) failed the
 * build with ENAMETOOLONG, naming no host.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hostFileName, hostOutputPath } from '../../src/fleet/index.js';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';
import { withTempDir } from '../support/temp.js';

const LONG = 'a'.repeat(256);
const UNDERSCORES = '_'.repeat(120);
const HIDDEN = '..hidden';

test('safe names are kept; long or hidden names get a bounded, stable, distinct file name', () => {
  assert.equal(hostFileName('web-1.example+x_y'), 'web-1.example+x_y');
  for (const name of [LONG, UNDERSCORES.repeat(2) + 'x', HIDDEN, '.', '..'])
    assert.ok(Buffer.byteLength(hostFileName(name)) + '.json'.length <= 200, name);
  assert.match(hostFileName(LONG), /^a{160}~[0-9a-f]{16}$/);
  assert.equal(hostFileName(LONG), hostFileName('a'.repeat(256)), 'stable');
  assert.notEqual(hostFileName(LONG), hostFileName(`${'a'.repeat(255)}b`), 'distinct');
  assert.equal(hostFileName(UNDERSCORES), UNDERSCORES, 'short enough to keep');
  assert.match(hostFileName(HIDDEN), /^hidden~[0-9a-f]{16}$/);
  assert.equal(hostOutputPath('web-1'), 'fleet/web-1.json');
});

test('labelwise build writes the outputs and pages of hosts with the longest names accepted', () =>
  withTempDir('host-files', async (dir) => {
    const repo = join(dir, 'repo');
    await mkdir(join(repo, 'fleet'), { recursive: true });
    await writeFile(join(repo, 'fleet', 'fleet.yaml'), 'datum: v1alpha1\ntype: Fleet\nname: f\n');
    const hosts = [LONG, UNDERSCORES, HIDDEN]
      .map((name) => `datum: v1alpha1\ntype: Host\nname: "${name}"\nlabels:\n  role: web\n`)
      .join('---\n');
    await writeFile(join(repo, 'fleet', 'hosts.yaml'), hosts);
    const out = join(dir, 'out');
    const io = memoryIO({ cwd: dir });
    const code = await run(['build', repo, '--out', out], io);
    assert.equal(code, 0, io.err + io.out);
    const written = (await readdir(join(out, 'fleet'))).sort();
    assert.deepEqual(
      written,
      [LONG, UNDERSCORES, HIDDEN].map((h) => `${hostFileName(h)}.json`).sort(),
    );
    const manifest = JSON.parse(await readFile(join(out, hostOutputPath(LONG)), 'utf8')) as {
      host: string;
    };
    assert.equal(manifest.host, LONG, 'the file holds the whole name');
    const pages = await readdir(join(out, 'hosts'));
    assert.equal(pages.length, 3);
    for (const page of pages) assert.ok(Buffer.byteLength(page) <= 255, page);
  }));
