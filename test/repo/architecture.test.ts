/**
 * The module rule is executable: these cases prove the lint rule fails on each kind of
 * violation (and passes on the allowed imports), so it cannot pass silently.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ESLint } from 'eslint';

const root = join(import.meta.dirname, '..', '..');

async function violations(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports')
    .map((m) => m.message);
}

test('a module importing another module fails the lint', async () => {
  const found = await violations(
    'src/fleet/x.ts',
    "export { loadPolicyDir } from '../policy/index.js';\n",
  );
  assert.match(found[0] ?? '', /may import only selector and base/);
  const deep = await violations(
    'src/catalog/render/x.ts',
    "export * from '../../anchor/index.js';\n",
  );
  assert.equal(deep.length, 1);
});

test('selector importing anything but base fails; modules may import selector and base', async () => {
  assert.equal(
    (await violations('src/selector/x.ts', "export * from '../fleet/index.js';\n")).length,
    1,
  );
  assert.deepEqual(
    await violations(
      'src/policy/x.ts',
      "export * from '../selector/index.js';\nexport * from '../base/index.js';\n",
    ),
    [],
  );
  assert.equal(
    (await violations('src/base/x.ts', "export * from '../policy/index.js';\n")).length,
    1,
  );
});

test('file, process and network I/O outside a module io/ folder fails the lint', async () => {
  const code = "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n";
  assert.match((await violations('src/policy/compile/x.ts', code))[0] ?? '', /io\/ folder/);
  assert.deepEqual(await violations('src/policy/io/x.ts', code), []);
  assert.equal(
    (await violations('src/anchor/x.ts', "import Docker from 'dockerode';\nexport { Docker };\n"))
      .length,
    1,
  );
});
