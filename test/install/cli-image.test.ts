/**
 * The CLI image (Dockerfile.cli, built by .ci/build-cli-image.sh as LABELWISE_CLI_IMAGE) run as
 * the docs say: the repository mounted read-only, --out on a mounted folder, the image's
 * non-root user, no network, a read-only root file system.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { skipOrFail, skipWithout } from '../support/capabilities.js';
import { ROOT, failure, run, tempDir } from './support.js';

const IMAGE = process.env.LABELWISE_CLI_IMAGE ?? 'labelwise-cli:ci';

/** Whether the test must stop: no Docker, or the image is not built (a failure in CI). */
function unavailable(t: TestContext): boolean {
  if (skipWithout(t, 'docker')) return true;
  const inspect = run('docker', ['image', 'inspect', IMAGE], { cwd: ROOT, timeout: 30_000 });
  const reason =
    inspect.status === 0
      ? undefined
      : `the CLI image ${IMAGE} is not built (.ci/build-cli-image.sh)`;
  return skipOrFail(t, 'docker', reason);
}

function docker(args: readonly string[], mounts: readonly string[] = []) {
  return run(
    'docker',
    [
      'run',
      '--rm',
      '--network',
      'none',
      '--read-only',
      ...mounts.flatMap((m) => ['-v', m]),
      IMAGE,
      ...args,
    ],
    { cwd: ROOT, timeout: 600_000 },
  );
}

describe('the CLI image', () => {
  let work = '';
  before(() => {
    work = tempDir('cli-image');
    // The image's user is not this one: what it reads must be readable by others.
    chmodSync(work, 0o755);
  });
  after(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  test('runs as a non-root user with no network', (t) => {
    if (unavailable(t)) return;
    const id = run('docker', ['run', '--rm', '--network', 'none', '--entrypoint', 'id', IMAGE], {
      cwd: ROOT,
    });
    assert.equal(id.status, 0, failure(id));
    assert.doesNotMatch(id.stdout, /uid=0\(/);
    const version = docker(['--version']);
    assert.equal(version.status, 0, failure(version));
    assert.match(version.stdout.trim(), /^\d+\.\d+\.\d+$/);
  });

  test('builds a read-only mounted repository into a mounted output folder', (t) => {
    if (unavailable(t)) return;
    const out = join(work, 'out');
    mkdirSync(out);
    chmodSync(out, 0o777);
    const repo = `${join(ROOT, 'examples', 'homelab')}:/repo:ro`;
    const result = docker(['build', '/repo', '--out', '/out/build'], [repo, `${out}:/out`]);
    assert.equal(result.status, 0, failure(result));
    const report = JSON.parse(readFileSync(join(out, 'build', 'report.json'), 'utf8')) as object;
    assert.ok(Object.keys(report).length > 0);
    assert.ok(existsSync(join(out, 'build', 'report.html')));
  });

  test('bad input is one line naming the file, not a stack trace', (t) => {
    if (unavailable(t)) return;
    const repo = join(work, 'bad');
    cpSync(join(ROOT, 'test', 'install', 'fixtures', 'schemas', 'bad', 'repo'), repo, {
      recursive: true,
    });
    chmodSync(repo, 0o755);
    writeFileSync(join(repo, 'README.md'), 'a repository with a broken labelwise.yaml\n');
    const out = join(work, 'bad-out');
    mkdirSync(out);
    chmodSync(out, 0o777);
    const result = docker(
      ['build', '/repo', '--json', '--out', '/out/build'],
      [`${repo}:/repo:ro`, `${out}:/out`],
    );
    assert.equal(result.status, 1, failure(result));
    assert.doesNotMatch(result.stderr, /\n\s+at /);
    const json = JSON.parse(result.stdout) as { diagnostics: { code: string; file?: string }[] };
    assert.ok(
      json.diagnostics.some(
        (d) => d.code === 'BUILD_CONFIG_INVALID' && d.file === 'labelwise.yaml',
      ),
      result.stdout,
    );
  });
});
