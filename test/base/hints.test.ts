/**
 * A hint never names an option that does not exist. The repro: READ_TOO_LARGE suggested
 * `--max-file-size`, which every command rejects. Every `--flag` written in a hint in src/ must
 * be an option of the real CLI, as its own `--help` lists them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { cliReference } from '../../scripts/cli-reference.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) for (const file of sources(path)) out.push(file);
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/**
 * The text of every hint: from the word `hint` (an option, a parameter, a field) or a
 * `this.note(` call (whose last argument is a hint) to the end of that expression.
 */
function hintTexts(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(/\bhint\b|this\.note\(/g)) {
    const window = text.slice(match.index, match.index + 400);
    out.push(window.split(/\)\s*;|\n\s*\n|\}\s*\)/)[0] ?? '');
  }
  return out;
}

test('every --flag a hint names is an option the CLI accepts', async () => {
  const reference = await cliReference();
  const options = new Set<string>();
  for (const line of reference.split('\n'))
    if (/^\s+-/.test(line))
      for (const flag of line.match(/--[a-z][a-z-]*/g) ?? []) options.add(flag);
  assert.ok(options.has('--out') && options.has('--shard'), 'the help lists options');
  const unknown: string[] = [];
  let seen = 0;
  for (const file of sources(SRC))
    for (const hint of hintTexts(readFileSync(file, 'utf8')))
      // A flag of a git command the hint quotes (`git fetch --unshallow`) is git's, not ours.
      for (const flag of hint
        .replace(/\bgit [a-z-]+( --?[a-z][a-z-]*)*/g, '')
        .match(/--[a-z][a-z-]*/g) ?? []) {
        seen++;
        if (!options.has(flag)) unknown.push(`${relative(SRC, file)}: ${flag}`);
      }
  assert.ok(seen >= 5, `hints name options (${seen} found)`);
  assert.deepEqual(unknown, []);
});
