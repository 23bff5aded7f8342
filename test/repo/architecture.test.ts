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
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
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

test('repo and cli import a module through its index.ts, lazily or not', async () => {
  const through = /through its index\.ts/;
  const cases: [string, string][] = [
    ['src/cli/x.ts', "export { LabelwiseError } from '../base/errors.js';\n"],
    ['src/cli/x.ts', "export const load = () => import('../anchor/check.js');\n"],
    ['src/repo/report/x.ts', "export * from '../../policy/matrix/matrix.js';\n"],
    ['src/cli/fleet.ts', "export * from '../repo/io/git-snapshot.js';\n"],
  ];
  for (const [file, code] of cases)
    assert.match((await violations(file, code))[0] ?? '', through, `${file}: ${code}`);
  assert.deepEqual(
    await violations(
      'src/repo/report/x.ts',
      "export * from '../../base/index.js';\nexport * from '../diff/model.js';\n" +
        "export const load = () => import('../../anchor/index.js');\n",
    ),
    [],
  );
  // The start-up path may read base's files (their index loads the YAML library), no other's.
  assert.deepEqual(await violations('src/cli/main.ts', "export * from '../base/errors.js';\n"), []);
  assert.match(
    (await violations('src/cli/main.ts', "export * from '../fleet/merge.js';\n"))[0] ?? '',
    through,
  );
});
