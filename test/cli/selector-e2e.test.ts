// End to end: the real bin as a child process, as a user runs it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(root, 'bin', 'labelwise.js');

function labelwise(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('e2e: labelwise selector parse/overlap --json, and a parse error, through bin/labelwise.js', () => {
  const parsed = labelwise('selector', 'parse', 'tier in (web,api),!canary', '--json');
  assert.equal(parsed.status, 0, parsed.stderr);
  assert.deepEqual(JSON.parse(parsed.stdout), {
    canonical: '!canary,tier in (api,web)',
    requirements: [
      { key: 'canary', operator: 'DoesNotExist', values: [] },
      { key: 'tier', operator: 'In', values: ['api', 'web'] },
    ],
  });

  const overlap = labelwise('selector', 'overlap', 'tier!=frontend', '!tier', '--json');
  assert.equal(overlap.status, 0, overlap.stderr);
  assert.deepEqual(JSON.parse(overlap.stdout), { overlap: true, witness: {}, reason: null });

  const broken = labelwise('selector', 'parse', 'x in (a b)');
  assert.equal(broken.status, 1);
  assert.equal(broken.stdout, '');
  assert.match(broken.stderr, /^labelwise selector: error SELECTOR_EXPECTED_COMMA_OR_CLOSE: /);
  assert.ok(!broken.stderr.includes('    at '), 'no stack trace');
});

test("e2e: '-' reads a selector piped into the real process's stdin", () => {
  const result = spawnSync(process.execPath, [bin, 'selector', 'parse', '-', '--json'], {
    cwd: root,
    encoding: 'utf8',
    input: 'b!=1,\na\n',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 60_000,
  });
  assert.equal(result.status, 0, result.stderr);
  assert.equal((JSON.parse(result.stdout) as { canonical: string }).canonical, 'a,b!=1');
});
