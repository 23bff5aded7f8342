/**
 * `Fleet.exclude` prunes the walk: an excluded folder is never listed nor read. The repro: a
 * large tree of small files under an excluded `drafts/` took 51 s and 1.9 GB, because every
 * file was read and the exclude applied afterwards. Reads are counted, not timed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RepoReader } from '../../src/base/index.js';
import { loadFleetDir } from '../../src/fleet/index.js';
import { withTempDir } from '../support/temp.js';

const FLEET_DOC = (exclude: string): string =>
  `datum: v1alpha1\ntype: Fleet\nname: big\nexclude:\n  - ${exclude}\n`;
const HOST = 'datum: v1alpha1\ntype: Host\nname: web-1\nlabels:\n  role: web\n';

/** A fleet with `drafts/` holding 20 folders of 25 YAML files each (one of them broken). */
async function bigDrafts(dir: string, exclude: string): Promise<void> {
  await writeFile(join(dir, 'fleet.yaml'), FLEET_DOC(exclude));
  await mkdir(join(dir, 'hosts'));
  await writeFile(join(dir, 'hosts', 'web.yaml'), HOST);
  for (let d = 0; d < 20; d++) {
    const sub = join(dir, 'drafts', `d${d}`);
    await mkdir(sub, { recursive: true });
    for (let f = 0; f < 25; f++) await writeFile(join(sub, `h${f}.yaml`), HOST);
  }
  await writeFile(join(dir, 'drafts', 'broken.yaml'), 'key: [unclosed\n');
}

for (const exclude of ['drafts', 'drafts/**', '"{drafts,wip}/"']) {
  test(`an excluded tree (${exclude}) is never listed nor read`, () =>
    withTempDir('prune', async (dir) => {
      await bigDrafts(dir, exclude);
      const reader = RepoReader.open(dir);
      const fleet = await loadFleetDir('', dir, reader);
      assert.deepEqual(
        fleet.hosts.map((h) => h.name),
        ['web-1'],
      );
      assert.deepEqual(
        fleet.problems.filter((p) => p.severity === 'error'),
        [],
      );
      // The root (twice: first for the Fleet document, then the walk) and hosts/ are listed;
      // fleet.yaml and hosts/web.yaml are read; nothing under drafts/.
      assert.deepEqual(reader.counts, { directories: 3, files: 2 });
    }));
}

test('a fleet whose root lies deeper is still read whole (nothing to prune from the top)', () =>
  withTempDir('prune', async (dir) => {
    await mkdir(join(dir, 'fleet'));
    await bigDrafts(join(dir, 'fleet'), 'drafts');
    const reader = RepoReader.open(dir);
    const fleet = await loadFleetDir('', dir, reader);
    assert.deepEqual(
      fleet.hosts.map((h) => h.name),
      ['web-1'],
    );
    assert.ok(reader.counts.files > 500, 'without a Fleet document at the top, all is read');
  }));
