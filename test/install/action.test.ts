/**
 * The action's entry script, run as the runner runs it: a real git repository with two
 * commits, the pull_request payload in GITHUB_EVENT_PATH, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT,
 * RUNNER_TEMP and the INPUT_* variables a composite step passes. `labelwise` is this checkout's
 * bin on PATH, as action/install.sh leaves the installed one.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suiteSkip } from '../support/capabilities.js';
import { ROOT, failure, run, tempDir } from './support.js';

const ENTRY = join(ROOT, 'action', 'entry.mjs');

interface Runner {
  readonly env: NodeJS.ProcessEnv;
  readonly summary: string;
  readonly output: string;
  readonly temp: string;
}

function git(repo: string, ...args: string[]): string {
  const result = run(
    'git',
    ['-c', 'user.name=labelwise', '-c', 'user.email=ci@labelwise.dev', ...args],
    { cwd: repo },
  );
  assert.equal(result.status, 0, failure(result));
  return result.stdout.trim();
}

/** A repository whose second commit changes `file` by `edit`; its two SHAs. */
function twoCommits(repo: string, file: string, edit: (text: string) => string): [string, string] {
  mkdirSync(repo, { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  cpSync(join(ROOT, 'examples', 'homelab', 'fleet'), join(repo, 'fleet'), { recursive: true });
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'fleet');
  const base = git(repo, 'rev-parse', 'HEAD');
  writeFileSync(join(repo, file), edit(readFileSync(join(repo, file), 'utf8')));
  git(repo, 'commit', '-q', '-a', '-m', 'change');
  return [base, git(repo, 'rev-parse', 'HEAD')];
}

/** What the runner sets for a pull_request job in `workspace`. */
function runner(work: string, workspace: string, payload: object, inputs: object): Runner {
  const temp = join(work, 'runner-temp');
  const bin = join(work, 'bin');
  mkdirSync(temp, { recursive: true });
  mkdirSync(bin, { recursive: true });
  const shim = join(bin, 'labelwise');
  writeFileSync(
    shim,
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'bin', 'labelwise.js'))} "$@"\n`,
  );
  chmodSync(shim, 0o755);
  const event = join(work, 'event.json');
  writeFileSync(event, JSON.stringify(payload));
  const summary = join(work, 'step-summary.md');
  const output = join(work, 'github-output');
  writeFileSync(summary, '');
  writeFileSync(output, '');
  const env: NodeJS.ProcessEnv = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: event,
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: summary,
    GITHUB_OUTPUT: output,
    RUNNER_TEMP: temp,
  };
  for (const [key, value] of Object.entries(inputs))
    env[`INPUT_${key.toUpperCase().replace(/-/g, '_')}`] = String(value);
  return { env, summary, output, temp };
}

function outputs(file: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
}

function pullRequest(base: string, head: string): object {
  return { number: 7, pull_request: { number: 7, base: { sha: base }, head: { sha: head } } };
}

describe('the action entry script', { skip: suiteSkip('git') }, () => {
  let work = '';
  before(() => {
    work = tempDir('action');
  });
  after(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  test('a change: summary, comment file, SARIF and outputs; the step passes', () => {
    const repo = join(work, 'ok');
    const [base, head] = twoCommits(repo, 'fleet/hosts/production.yaml', (text) =>
      text.replace('site: london', 'site: frankfurt'),
    );
    const ci = runner(join(work, 'ok-runner'), repo, pullRequest(base, head), {});
    const result = run(process.execPath, [ENTRY], { cwd: repo, env: ci.env });
    assert.equal(result.status, 0, failure(result));
    const summary = readFileSync(ci.summary, 'utf8');
    assert.match(summary, /^### labelwise diff/m);
    assert.match(summary, new RegExp(`${base.slice(0, 7)}|→`));
    assert.match(summary, /Fleet: \d+ host\(s\) changed/);
    const out = outputs(ci.output);
    assert.equal(out.changed, 'true');
    assert.equal(out['exit-code'], '2');
    assert.equal(out['comment-file'], join(ci.temp, 'labelwise-comment.md'));
    const comment = readFileSync(out['comment-file'] as string, 'utf8');
    assert.equal(comment.split('\n')[0], '<!-- labelwise-diff -->');
    assert.ok(comment.includes(summary.trimEnd()), 'the comment is the summary');
    const sarif = JSON.parse(readFileSync(out['sarif-file'] as string, 'utf8')) as {
      version: string;
      runs: { results: unknown[] }[];
    };
    assert.equal(sarif.version, '2.1.0');
    assert.deepEqual(sarif.runs[0]?.results, []);
  });

  test('a change that introduces an error fails the step, after writing the summary', () => {
    const repo = join(work, 'bad');
    const [base, head] = twoCommits(repo, 'fleet/hosts/production.yaml', (text) =>
      text.replace('role: web', 'role: database'),
    );
    const ci = runner(join(work, 'bad-runner'), repo, pullRequest(base, head), {
      'comment-file': 'review/comment.md',
      'sarif-file': 'review/labelwise.sarif',
    });
    const result = run(process.execPath, [ENTRY], { cwd: repo, env: ci.env });
    assert.equal(result.status, 1, failure(result));
    assert.match(result.stderr, /::error title=labelwise::the change introduces findings/);
    assert.match(readFileSync(ci.summary, 'utf8'), /1 error\(s\) after the change/);
    assert.match(readFileSync(join(repo, 'review', 'comment.md'), 'utf8'), /FLEET_/);
    const sarif = JSON.parse(readFileSync(join(repo, 'review', 'labelwise.sarif'), 'utf8')) as {
      runs: { results: { ruleId: string; level: string }[] }[];
    };
    const results = sarif.runs[0]?.results ?? [];
    assert.ok(results.length > 0 && results.every((r) => r.ruleId.startsWith('FLEET_')));
    assert.equal(outputs(ci.output)['exit-code'], '1');
  });

  test('a payload without a base revision is one clear error', () => {
    const ci = runner(join(work, 'push-runner'), work, { ref: 'refs/heads/main' }, {});
    const result = run(process.execPath, [ENTRY], { cwd: work, env: ci.env });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^::error title=labelwise::no base revision/);
    assert.equal(readFileSync(ci.summary, 'utf8'), '');
  });

  test('a shallow checkout without the base says to fetch it', () => {
    const repo = join(work, 'ok');
    const missing = 'f'.repeat(40);
    const ci = runner(join(work, 'shallow-runner'), repo, pullRequest(missing, 'HEAD'), {});
    const result = run(process.execPath, [ENTRY], { cwd: repo, env: ci.env });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /is not in the checkout .*fetch-depth: 0/);
  });
});
