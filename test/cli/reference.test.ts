import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cliReference } from '../../scripts/cli-reference.js';

test('docs/cli.md is the real --help output of every command (regenerate: npm run docs:cli)', async () => {
  const committed = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'cli.md'), 'utf8');
  assert.equal(committed, await cliReference());
});
