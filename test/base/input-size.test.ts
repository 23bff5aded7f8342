/**
 * Input-sized arrays never travel as function arguments: `push(...x)` with 130,000 items
 * overflows the stack. The repro: 1.2 MB of YAML holding 130,000 documents crashed
 * `labelwise build` with exit 70.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { maxOf, pushAll } from '../../src/base/index.js';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';
import { withTempDir } from '../support/temp.js';

const MANY = 130_000;

test('pushAll and maxOf take more items than a call has room for arguments', () => {
  const items = Array.from({ length: 500_000 }, (_, i) => i);
  assert.throws(() => [].push(...(items as never[])), RangeError, 'the spread form overflows');
  const into: number[] = [1];
  pushAll(into, items);
  assert.equal(into.length, 500_001);
  assert.equal(into[500_000], 499_999);
  assert.equal(maxOf(items, -1), 499_999);
  assert.equal(maxOf([], 2), 2);
});

test('labelwise build on 1.2 MB of YAML with 130,000 documents does not crash', () =>
  withTempDir('many-docs', async (dir) => {
    const repo = join(dir, 'repo');
    await mkdir(join(repo, 'policy'), { recursive: true });
    const file = join(repo, 'policy', 'many.yaml');
    await writeFile(file, '---\nx: 1\n'.repeat(MANY));
    assert.ok(statSync(file).size >= 1_100_000);
    const io = memoryIO({ cwd: dir });
    const code = await run(['build', repo, '--json'], io);
    assert.notEqual(code, 70, io.err.slice(0, 2000));
    assert.doesNotMatch(io.err, /internal error|RangeError|call stack/);
    const report = JSON.parse(io.out) as { modules: { module: string }[] };
    assert.ok(report.modules.some((m) => m.module === 'policy'));
  }));

test('no source file spreads an array into push (a test, so a new one cannot slip in)', () => {
  const root = join(import.meta.dirname, '..', '..', 'src');
  const offenders: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, name.name);
      if (name.isDirectory()) walk(path);
      else if (name.name.endsWith('.ts'))
        readFileSync(path, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (/^\s*(\*|\/\/)/.test(line)) return;
            if (/\.(push|unshift)\(\s*\.\.\.|Math\.(max|min)\([^)]*\.\.\./.test(line))
              offenders.push(`${path}:${i + 1}`);
          });
    }
  };
  walk(root);
  assert.deepEqual(offenders, []);
});
