/**
 * Error codes are a contract: each module lists its codes in `src/<module>/codes.ts`, and every
 * code listed must have a row in the docs and be exercised by at least one test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '..', '..');
const DOCS: Record<string, string[]> = {
  base: ['docs/errors.md'],
  repo: ['docs/errors.md'],
  selector: ['docs/selector.md'],
  anchor: ['docs/anchor.md'],
  fleet: ['docs/fleet.md'],
  catalog: ['docs/catalog.md'],
  policy: ['docs/policy.md'],
};

function testSources(): string {
  const parts: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|json|ya?ml|txt)$/.test(entry.name) && path !== fileURLToPath(import.meta.url))
        parts.push(readFileSync(path, 'utf8'));
    }
  };
  walk(join(ROOT, 'test'));
  return parts.join('\n');
}

async function codesOf(module: string): Promise<string[] | undefined> {
  const file = join(ROOT, 'src', module, 'codes.ts');
  if (!existsSync(file)) return undefined;
  const exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const lists = Object.entries(exports).filter(([name]) => name.endsWith('_CODES'));
  assert.ok(lists.length > 0, `src/${module}/codes.ts exports a *_CODES list`);
  return lists.flatMap(([, list]) => Object.keys(list as object));
}

test('base and every module keep their codes in codes.ts', async () => {
  assert.ok(await codesOf('base'));
});

for (const [module, docs] of Object.entries(DOCS)) {
  test(`${module}: every code has a row in its docs and at least one test`, async (t) => {
    const codes = await codesOf(module);
    if (codes === undefined) {
      t.skip(`src/${module}/codes.ts does not exist yet`);
      return;
    }
    const docText = docs.map((d) => readFileSync(join(ROOT, d), 'utf8')).join('\n');
    const tests = testSources();
    // A row's first cell may list several codes: | `A`, `B` | cause | fix |
    const undocumented = codes.filter(
      (c) => !new RegExp(`^\\|[^|\\n]*\`${c}\``, 'm').test(docText),
    );
    const untested = codes.filter((c) => !tests.includes(c));
    assert.deepEqual(undocumented, [], `codes without a row in ${docs.join(', ')}`);
    assert.deepEqual(untested, [], 'codes no test uses');
  });
}
