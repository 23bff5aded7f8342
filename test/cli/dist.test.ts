import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { skipWithout } from '../support/capabilities.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BUILT = join(ROOT, 'dist', 'cli', 'main.js');

// An installed package runs dist/ (it ships no sources): prove the compiled CLI works as built.
test('the compiled CLI in dist/ runs (npm run build)', (t) => {
  if (skipWithout(t, 'dist')) return;
  const out = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { main } = await import(${JSON.stringify(BUILT)}); await main(process.argv.slice(1));`,
      'selector',
      'parse',
      'b,a=1',
      '--json',
    ],
    { encoding: 'utf8', cwd: ROOT },
  );
  assert.deepEqual(JSON.parse(out), {
    canonical: 'a=1,b',
    requirements: [
      { key: 'a', operator: 'In', values: ['1'] },
      { key: 'b', operator: 'Exists', values: [] },
    ],
  });
  assert.ok(existsSync(join(ROOT, 'dist', 'index.d.ts')), 'type declarations are emitted');
});
