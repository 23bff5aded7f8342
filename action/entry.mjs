#!/usr/bin/env node
// The entry script of the labelwise GitHub Action (action.yml). It reads what the runner sets —
// the event payload (GITHUB_EVENT_PATH) for the base and head revisions, GITHUB_WORKSPACE,
// GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, RUNNER_TEMP — and the action's inputs (INPUT_*), runs
// `labelwise diff` once for Markdown and once for SARIF, writes the Markdown to the job summary
// and to a comment body file, and exits as `--fail-on` says. Plain Node, no dependencies: it
// runs before anything else is installed, and any CI can run it with the same variables.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The first line of the comment: a later run finds and edits its own comment by it. */
const COMMENT_MARKER = '<!-- labelwise-diff -->';

const env = process.env;

function input(name, fallback = '') {
  const value = env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`];
  return value === undefined || value.trim() === '' ? fallback : value.trim();
}

function fail(message) {
  // `::error::` shows as an annotation on the run; the text stays one line.
  process.stderr.write(`::error title=labelwise::${message.replace(/\r?\n/g, ' ')}\n`);
  process.exit(1);
}

/** Base and head of the change: inputs first, else the pull request (or push) of the payload. */
function revisions() {
  let base = input('base');
  let head = input('head');
  if ((base === '' || head === '') && env.GITHUB_EVENT_PATH) {
    let event;
    try {
      event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8'));
    } catch (error) {
      fail(`cannot read the event payload ${env.GITHUB_EVENT_PATH}: ${error.message}`);
    }
    const pr = event.pull_request ?? event.merge_group;
    base ||= pr?.base?.sha ?? pr?.base_sha ?? event.before ?? '';
    head ||= pr?.head?.sha ?? pr?.head_sha ?? event.after ?? '';
  }
  if (base === '' || /^0+$/.test(base))
    fail(
      `no base revision: the ${env.GITHUB_EVENT_NAME ?? 'event'} payload names none; run on pull_request or set the base input`,
    );
  return { base, head: head === '' ? 'HEAD' : head };
}

function labelwise(args, cwd) {
  const bin = env.LABELWISE_BIN || 'labelwise';
  const result = spawnSync(bin, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error !== undefined) fail(`cannot run ${bin}: ${result.error.message}`);
  if (result.stderr) process.stderr.write(result.stderr);
  return { code: result.status ?? 70, stdout: result.stdout };
}

function hasCommit(cwd, revision) {
  const result = spawnSync('git', ['cat-file', '-e', `${revision}^{commit}`], { cwd });
  return result.status === 0;
}

function writeFile(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function setOutputs(outputs) {
  if (!env.GITHUB_OUTPUT) return;
  appendFileSync(
    env.GITHUB_OUTPUT,
    Object.entries(outputs)
      .map(([key, value]) => `${key}=${value}\n`)
      .join(''),
  );
}

function main() {
  const workspace = resolve(env.GITHUB_WORKSPACE ?? process.cwd());
  const repo = resolve(workspace, input('path', '.'));
  const failOn = input('fail-on', 'error');
  const temp = env.RUNNER_TEMP ?? workspace;
  const commentFile = resolve(workspace, input('comment-file', join(temp, 'labelwise-comment.md')));
  const sarifFile = resolve(workspace, input('sarif-file', join(temp, 'labelwise.sarif')));
  const { base, head } = revisions();
  for (const revision of [base, head])
    if (!hasCommit(repo, revision))
      fail(
        `revision ${revision} is not in the checkout of ${repo}: check out with fetch-depth: 0 (actions/checkout) so the base is there`,
      );

  const diff = ['diff', input('path', '.'), '--from', base, '--to', head, '--fail-on', failOn];
  const markdown = labelwise([...diff, '--format', 'markdown'], workspace);
  // 0 nothing changed, 2 a change, 1 the change is worse than --fail-on allows; else it did not run.
  if (![0, 1, 2].includes(markdown.code))
    fail(`labelwise diff could not run (exit ${markdown.code}); see the log above`);
  const sarif = labelwise([...diff, '--format', 'sarif'], workspace);
  if (![0, 1, 2].includes(sarif.code))
    fail(`labelwise diff --format sarif could not run (exit ${sarif.code})`);

  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, `${markdown.stdout}\n`);
  writeFile(commentFile, `${COMMENT_MARKER}\n${markdown.stdout}`);
  writeFile(sarifFile, sarif.stdout);
  setOutputs({
    'comment-file': commentFile,
    'sarif-file': sarifFile,
    changed: String(markdown.code !== 0),
    'exit-code': String(markdown.code),
  });
  if (markdown.code === 1) {
    process.stderr.write(
      `::error title=labelwise::the change introduces findings at or above --fail-on ${failOn} (see the job summary)\n`,
    );
    process.exit(1);
  }
}

main();
