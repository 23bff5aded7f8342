// Every selector code is listed in src/selector/codes.ts, has a row in docs/selector.md § Error
// codes, appears in at least one test, and no code is raised without being listed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SELECTOR_CODES } from '../../src/selector/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const docs = readFileSync(join(root, 'docs/selector.md'), 'utf8');
const errorCodes = docs.slice(docs.indexOf('## Error codes'));
const tests = [...filesUnder(join(root, 'test/selector')), ...filesUnder(join(root, 'test/cli'))]
  .filter((f) => /selector/.test(f) && !f.endsWith('codes.test.ts'))
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');

test('every selector code has a row in docs/selector.md § Error codes', () => {
  for (const code of Object.keys(SELECTOR_CODES))
    assert.ok(errorCodes.includes(`| \`${code}\` |`), `${code} has no row`);
});

test('every selector code is exercised by a test', () => {
  for (const code of Object.keys(SELECTOR_CODES)) assert.ok(tests.includes(code), code);
});

test('the selector sources raise only listed codes', () => {
  const sources = [
    ...filesUnder(join(root, 'src/selector')),
    join(root, 'src/cli/selector.ts'),
    join(root, 'src/cli/selector-input.ts'),
  ];
  const raised = new Set<string>();
  for (const file of sources)
    for (const match of readFileSync(file, 'utf8').matchAll(/'(SELECTOR_[A-Z_]+)'/g))
      raised.add(match[1] as string);
  assert.ok(raised.size > 20);
  for (const code of raised) assert.ok(code in SELECTOR_CODES, `${code} is not in codes.ts`);
});
