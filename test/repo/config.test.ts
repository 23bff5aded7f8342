import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RepoReader } from '../../src/base/index.js';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { readRepoConfig } from '../../src/repo/index.js';
import type { BuildReport } from '../../src/repo/index.js';
import { withTempDir } from '../support/temp.js';

const HOMELAB = join(import.meta.dirname, '..', '..', 'examples', 'homelab');

const withTemp = (fn: (dir: string) => Promise<void>): Promise<void> => withTempDir('config', fn);

async function build(cwd: string, ...args: string[]) {
  const io = memoryIO({ cwd });
  const code = await run(['build', ...args, '--json'], io);
  return { code, report: code <= 1 ? (JSON.parse(io.out) as BuildReport) : undefined, err: io.err };
}

test('--only and --skip pick the parts that are built', () =>
  withTemp(async (dir) => {
    const only = await build(dir, HOMELAB, '--out', join(dir, 'a'), '--only', 'fleet,policy');
    assert.deepEqual(
      only.report?.modules.map((m) => m.module),
      ['fleet', 'policy'],
    );
    const skip = await build(dir, HOMELAB, '--out', join(dir, 'b'), '--skip', 'anchor');
    assert.deepEqual(
      skip.report?.modules.map((m) => m.module),
      ['fleet', 'catalog', 'policy'],
    );
    const bad = await build(dir, HOMELAB, '--out', join(dir, 'c'), '--only', 'fleet,nope');
    assert.equal(bad.code, 1);
  }));

test('labelwise.yaml names where each part lives and what to skip', () =>
  withTemp(async (dir) => {
    const repo = join(dir, 'repo');
    await cp(HOMELAB, repo, { recursive: true });
    await mkdir(join(repo, 'infra'));
    await rename(join(repo, 'fleet'), join(repo, 'infra', 'machines'));
    await rename(join(repo, 'policy'), join(repo, 'infra', 'mesh'));
    await writeFile(
      join(repo, 'labelwise.yaml'),
      'parts:\n  fleet: infra/machines\n  policy: infra/mesh/\nskip: [anchor, catalog]\n',
    );
    const result = await build(dir, repo, '--out', join(dir, 'out'));
    assert.deepEqual(
      result.report?.modules.map((m) => `${m.module} ${m.input}`),
      ['fleet infra/machines', 'policy infra/mesh'],
    );
    const flags = await build(dir, repo, '--out', join(dir, 'out2'), '--skip', 'fleet');
    assert.deepEqual(
      flags.report?.modules.map((m) => m.module),
      ['catalog', 'policy', 'anchor'],
      'flags win over labelwise.yaml',
    );
  }));

test('a broken labelwise.yaml is a BUILD_CONFIG_INVALID diagnostic with file and line', () =>
  withTemp(async (dir) => {
    await writeFile(
      join(dir, 'labelwise.yaml'),
      'parts:\n  fleet: ../../etc\n  nope: x\nonly: [fleet, bogus]\nextra: 1\n',
    );
    const { diagnostics } = readRepoConfig(RepoReader.open(dir));
    assert.deepEqual(
      diagnostics.map((d) => `${d.code} ${d.file}:${d.line} ${d.path}`),
      [
        'BUILD_CONFIG_INVALID labelwise.yaml:2 parts.fleet',
        'BUILD_CONFIG_INVALID labelwise.yaml:3 parts.nope',
        'BUILD_CONFIG_INVALID labelwise.yaml:4 only',
        'BUILD_CONFIG_INVALID labelwise.yaml:5 extra',
      ],
    );
  }));
