// `labelwise selector` reading selectors, label sets and match blocks from files and stdin
// (`--file`, `-`, `--labels-file`, `--labels-json-file`), and `parse --print kubernetes`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';

const dir = mkdtempSync(join(tmpdir(), 'labelwise-selector-input-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function cli(argv: string[], stdin?: string) {
  const io = memoryIO({ cwd: dir });
  if (stdin !== undefined) Object.assign(io, { stdin: async () => stdin });
  const code = await run(['selector', ...argv], io);
  return { code, stdout: io.out, stderr: io.err };
}

test("parse --file reads the selector from a file (one final newline is the file's)", async () => {
  const path = file('web.sel', 'app=web,\ntier in (api, web)\n');
  const { code, stdout } = await cli(['parse', '--file', path, '--json']);
  assert.equal(code, 0);
  assert.equal(JSON.parse(stdout).canonical, 'app=web,tier in (api,web)');
});

test('a relative --file is resolved against the working directory', async () => {
  file('relative.sel', 'a=1');
  const { code, stdout } = await cli(['parse', '--file', 'relative.sel']);
  assert.equal(code, 0);
  assert.match(stdout, /^a=1\n/);
});

test("'-' reads the selector from stdin", async () => {
  const { code, stdout } = await cli(['parse', '-', '--json'], 'x notin (b,a)\n');
  assert.equal(code, 0);
  assert.equal(JSON.parse(stdout).canonical, 'x notin (a,b)');
});

test('an error in a file names file:line:column and quotes only the offending line', async () => {
  const path = file('broken.sel', 'app=web,\nsecret=hunter2,\ntier in (a b)\n');
  const { code, stderr } = await cli(['parse', '--file', path]);
  assert.equal(code, 1);
  const lines = stderr.split('\n');
  assert.equal(
    lines[0],
    `labelwise selector: ${path}:3:12: error SELECTOR_EXPECTED_COMMA_OR_CLOSE: found 'b', expected: ',' or ')'`,
  );
  assert.equal(lines[1], '  tier in (a b)');
  assert.equal(lines[2], `  ${' '.repeat(11)}^`);
  assert.ok(!stderr.includes('hunter2'), 'other lines of the file are not quoted');
});

test('the same error under --json carries file, line and column', async () => {
  const path = file('broken2.sel', 'a=1,\n,b');
  const { code, stdout } = await cli(['parse', '--file', path, '--json']);
  assert.equal(code, 1);
  const json = JSON.parse(stdout);
  assert.deepEqual(
    [json.errors, json.warnings, json.diagnostics[0].file, json.diagnostics[0].line],
    [1, 0, path, 2],
  );
  assert.equal(json.diagnostics[0].column, 1);
  assert.equal(json.error.code, 'SELECTOR_EXPECTED_KEY');
});

test('overlap takes --file for the first selector and an argument for the second', async () => {
  const path = file('a.sel', 'app=web,env=prod');
  const { code, stdout } = await cli(['overlap', '--file', path, 'app=web,env=dev', '--json']);
  assert.equal(code, 0);
  assert.equal(JSON.parse(stdout).overlap, false);
  const both = await cli(['subsumes', '--file', path, '--file', path, '--json']);
  assert.equal(JSON.parse(both.stdout).subsumes, true);
});

test('a selector count other than the command needs is a usage error', async () => {
  const path = file('one.sel', 'a');
  for (const argv of [
    ['parse'],
    ['parse', 'a', '--file', path],
    ['overlap', 'a'],
    ['overlap', 'a', 'b', '--file', path],
  ]) {
    const { code, stderr } = await cli(argv);
    assert.equal(code, 1, argv.join(' '));
    assert.match(stderr, /CLI_USAGE/);
  }
});

test('stdin is read once: a second - is a usage error', async () => {
  const { code, stderr } = await cli(['overlap', '-', '-'], 'a');
  assert.equal(code, 1);
  assert.match(stderr, /CLI_USAGE: stdin \('-'\) can be read only once/);
});

test('--syntax match --file reads a match block as YAML', async () => {
  const path = file('match.yaml', 'labels:\n  role: web\nmissing: [canary]\n');
  const { code, stdout } = await cli(['parse', '--file', path, '--syntax', 'match', '--json']);
  assert.equal(code, 0);
  assert.equal(JSON.parse(stdout).canonical, '!canary,role=web');
});

test('--labels-file: k=v items one per line or comma-separated; - is stdin', async () => {
  const path = file('labels.txt', 'app=web\ntier=api,zone=a\n');
  const matched = await cli(['match', 'app=web,tier', '--labels-file', path, '--json']);
  assert.equal(matched.code, 0);
  assert.equal(JSON.parse(matched.stdout).matched, true);
  const piped = await cli(['match', 'app=web', '--labels-file', '-', '--json'], 'app=db\n');
  assert.equal(JSON.parse(piped.stdout).matched, false);
});

test('--labels-json-file reads a JSON object of strings', async () => {
  const path = file('labels.json', '{"a,b": "x=y"}');
  const { code, stdout } = await cli(
    ['match', 'a,b', '--labels-json-file', path, '--json'],
    undefined,
  );
  // `a,b` is two requirements (a, b): neither key exists in the set, whose only key is "a,b".
  assert.equal(code, 0);
  assert.equal(JSON.parse(stdout).matched, false);
});

test('a missing file exits 3 (could not run) with a one-line error', async () => {
  const { code, stderr } = await cli(['parse', '--file', join(dir, 'absent.sel')]);
  assert.equal(code, 3);
  assert.match(stderr, /error READ_UNREADABLE/);
  assert.equal(stderr.trim().split('\n').length, 1);
});

test('a FIFO, a directory and a link leaving the directory are refused, never waited on', async () => {
  const fifo = join(dir, 'pipe.sel');
  execFileSync('mkfifo', [fifo]);
  const fifoRun = await cli(['parse', '--file', fifo]);
  assert.notEqual(fifoRun.code, 0);
  assert.match(fifoRun.stderr, /READ_SPECIAL_FILE/);
  mkdirSync(join(dir, 'adir'));
  assert.match((await cli(['parse', '--file', join(dir, 'adir')])).stderr, /READ_IS_A_DIRECTORY/);
  const inner = join(dir, 'inner');
  mkdirSync(inner);
  symlinkSync('/etc/hostname', join(inner, 'out.sel'));
  const linked = await cli(['parse', '--file', join(inner, 'out.sel')]);
  assert.notEqual(linked.code, 0);
  assert.match(linked.stderr, /READ_SYMLINK_OUTSIDE/);
});

test('files under /proc are never read', async () => {
  const { code, stderr } = await cli(['parse', '--file', '/proc/self/environ']);
  assert.equal(code, 1);
  assert.match(stderr, /READ_SYSTEM_PATH/);
});

test('parse --print kubernetes prints apimachinery String() byte for byte', async () => {
  const { code, stdout } = await cli(['parse', 'y in (b), x==a, z=', '--print', 'kubernetes']);
  assert.equal(code, 0);
  assert.equal(stdout.split('\n')[0], 'x==a,y in (b),z=');
  const json = JSON.parse(
    (await cli(['parse', 'x in (a)', '--print', 'kubernetes', '--json'])).stdout,
  );
  assert.deepEqual([json.canonical, json.kubernetes], ['x=a', 'x in (a)']);
});

test('a selector file of 20,000 terms parses (no command-line size limit)', async () => {
  const terms = Array.from({ length: 20_000 }, (_, i) => `k!=v${i}`).join(',');
  const path = file('big.sel', terms);
  const { code, stdout } = await cli(['subsumes', '--file', path, 'k', '--json']);
  assert.equal(code, 0);
  assert.deepEqual(JSON.parse(stdout), { subsumes: false, counterexample: { k: 'v0' } });
});

test('stdin that is a terminal is refused instead of waiting for typing', async () => {
  const io = Object.assign(memoryIO({ cwd: dir }), { stdinIsTTY: true });
  const code = await run(['selector', 'parse', '-'], io);
  assert.equal(code, 1);
  assert.match(io.err, /error SELECTOR_STDIN_IS_TERMINAL/);
  assert.match(io.err, /hint: pipe the input in/);
});

test('stdin over the file size limit is refused', async () => {
  const { code, stderr } = await cli(['parse', '-'], 'a'.repeat(16 * 1024 * 1024 + 1));
  assert.equal(code, 1);
  assert.match(stderr, /error SELECTOR_INPUT_TOO_LARGE/);
});
