/**
 * --format sarif|junit and --fail-on, made from each check command's --json output. The SARIF is
 * validated against the OASIS SARIF 2.1.0 schema.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { sarifValidator } from '../support/sarif.js';

/** A repository whose policy has a YAML error, and a link leaving it (a warning). */
async function withRepo(fn: (dir: string, repo: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'labelwise-check-'));
  try {
    const repo = join(dir, 'repo');
    await mkdir(join(repo, 'policy'), { recursive: true });
    await writeFile(join(repo, 'policy', 'broken.yaml'), 'kind: Server\nspec: [\n');
    await writeFile(join(dir, 'secret.yaml'), 'x: 1\n');
    await symlink(join(dir, 'secret.yaml'), join(repo, 'policy', 'link.yaml'));
    await fn(dir, repo);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function cli(cwd: string, ...args: string[]) {
  const io = memoryIO({ cwd });
  const code = await run(args, io);
  return { code, out: io.out, err: io.err };
}

test('build --format sarif is a valid SARIF 2.1.0 log with file and line', () =>
  withRepo(async (dir, repo) => {
    const result = await cli(dir, 'build', repo, '--out', join(dir, 'out'), '--format', 'sarif');
    assert.equal(result.code, 1, result.err);
    const log = JSON.parse(result.out) as {
      runs: { results: { ruleId: string; level: string; locations?: unknown[] }[] }[];
    };
    const validate = sarifValidator();
    assert.ok(validate(log), JSON.stringify(validate.errors?.slice(0, 3)));
    const broken = structuredClone(log) as { runs: { results: { level: string }[] }[] };
    (broken.runs[0]?.results[0] as { level: string }).level = 'fatal';
    assert.equal(validate(broken), false, 'the schema check can fail');
    const results = log.runs[0]?.results ?? [];
    const syntax = results.find((r) => r.ruleId === 'POLICY_YAML_SYNTAX');
    assert.equal(syntax?.level, 'error');
    const location = syntax?.locations?.[0] as {
      physicalLocation: { artifactLocation: unknown; region: { startLine: number } };
    };
    assert.deepEqual(location.physicalLocation.artifactLocation, {
      uri: 'policy/broken.yaml',
      uriBaseId: '%SRCROOT%',
    });
    assert.equal(location.physicalLocation.region.startLine, 3);
    assert.ok(results.some((r) => r.ruleId === 'READ_SYMLINK_OUTSIDE' && r.level === 'warning'));
  }));

test('build --format junit has one failing case per error', () =>
  withRepo(async (dir, repo) => {
    const result = await cli(dir, 'build', repo, '--out', join(dir, 'out'), '--format=junit');
    assert.equal(result.code, 1);
    assert.match(result.out, /^<\?xml version="1.0"/);
    assert.match(result.out, /<failure type="error" message="[^"]+">/);
    assert.match(
      result.out,
      /classname="policy" name="POLICY_YAML_SYNTAX at policy\/broken.yaml:3(:\d+)?"/,
    );
    assert.doesNotMatch(result.out, /<failure type="warning"/);
    const strict = await cli(
      dir,
      'build',
      repo,
      '--out',
      join(dir, 'out'),
      '--format',
      'junit',
      '--fail-on',
      'warning',
    );
    assert.match(strict.out, /<failure type="warning"/);
  }));

test('--fail-on warning fails a run that has only warnings; --fail-on error does not', () =>
  withRepo(async (dir, repo) => {
    await rm(join(repo, 'policy', 'broken.yaml'));
    await writeFile(
      join(repo, 'policy', 'ok.yaml'),
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n',
    );
    const out = join(dir, 'out');
    assert.equal((await cli(dir, 'build', repo, '--out', out)).code, 0);
    assert.equal((await cli(dir, 'build', repo, '--out', out, '--fail-on', 'error')).code, 0);
    const failing = await cli(dir, 'build', repo, '--out', out, '--fail-on', 'warning');
    assert.equal(failing.code, 1);
    assert.match(failing.out, /READ_SYMLINK_OUTSIDE/, 'text output is unchanged');
    assert.equal(
      (await cli(dir, 'build', repo, '--out', out, '--json', '--fail-on', 'warning')).code,
      1,
    );
  }));

test('--format and --fail-on take only known values, and only on check commands', () =>
  withRepo(async (dir, repo) => {
    const bad = await cli(dir, 'build', repo, '--format', 'xml');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /CLI_USAGE.*--format takes text, json, sarif or junit/);
    const notCheck = await cli(dir, 'selector', 'parse', 'a=1', '--format', 'sarif');
    assert.equal(notCheck.code, 1, 'selector parse has no --format');
  }));
