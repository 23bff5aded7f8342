// The input errors of the policy commands that only the CLI can meet: no YAML at all, and a
// rendered stream on stdin past the size limit (refused, not buffered for ever).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { tempDirSync } from '../support/temp.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('a directory without YAML files is POLICY_NO_FILES, exit 1', async () => {
  const dir = tempDirSync('policy-empty');
  writeFileSync(join(dir, 'README.md'), 'no policy here\n');
  const io = memoryIO({ cwd: ROOT });
  const code = await run(['policy', 'lint', dir], io);
  assert.equal(code, 1);
  assert.match(io.err + io.out, /POLICY_NO_FILES/);
});

test('stdin past 16 MiB is POLICY_FILE_TOO_LARGE, not read to the end', () => {
  const big = `# ${'x'.repeat(17 * 1024 * 1024)}\n`;
  const r = spawnSync(process.execPath, ['bin/labelwise.js', 'policy', 'lint', '-f', '-'], {
    cwd: ROOT,
    input: big,
    encoding: 'utf8',
    maxBuffer: 4 * 1024 * 1024,
  });
  assert.notEqual(r.status, 0, r.stderr);
  assert.match(r.stderr + r.stdout, /POLICY_FILE_TOO_LARGE/);
});
