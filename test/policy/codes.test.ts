// Every policy code is listed in src/policy/codes.ts, has a row in docs/policy.md, and every
// code the module can produce is listed.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { POLICY_CODES } from '../../src/policy/codes.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

test('every policy code has a row in docs/policy.md', () => {
  const docs = readFileSync(join(ROOT, 'docs/policy.md'), 'utf8');
  for (const code of Object.keys(POLICY_CODES))
    assert.ok(docs.includes(`\`${code}\``), `${code} has no row in docs/policy.md`);
});

test('every code src/policy produces is listed in POLICY_CODES', () => {
  const used = new Set<string>();
  for (const file of sources(join(ROOT, 'src/policy')))
    for (const m of readFileSync(file, 'utf8').matchAll(/'(POLICY_[A-Z_]+)'/g))
      used.add(m[1] as string);
  const listed = new Set(Object.keys(POLICY_CODES));
  assert.deepEqual(
    [...used].filter((c) => !listed.has(c)),
    [],
  );
});
