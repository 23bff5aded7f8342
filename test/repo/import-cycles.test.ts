/**
 * No import cycles in `src/`: a cycle makes load order matter (a value read before its module
 * ran is undefined) and hides a missing layer. Every `from '…'` and `import('…')` of a relative
 * path counts, type-only imports included, so a cycle cannot hide behind `import type`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = join(import.meta.dirname, '..', '..', 'src');
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*)'(\.{1,2}\/[^']+)'/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each file's relative imports, resolved to source files (`./x.js` is `./x.ts`). */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(SPECIFIER)].map((m) =>
      resolve(dirname(file), (m[1] as string).replace(/\.js$/, '.ts')),
    );
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The first cycle found by depth-first search, as a list of files, or undefined. */
export function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle !== undefined) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of [...graph.keys()].sort()) {
    const cycle = visit(node);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

test('the cycle finder finds a cycle of three and passes a chain', () => {
  const cyclic = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
  ]);
  assert.deepEqual(findCycle(cyclic), ['a', 'b', 'c', 'a']);
  assert.equal(
    findCycle(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', []],
      ]),
    ),
    undefined,
  );
});

test('src/ has no import cycle', () => {
  const cycle = findCycle(importGraph(sourceFiles(SRC)));
  assert.equal(
    cycle?.map((file) => relative(SRC, file)).join(' -> '),
    undefined,
    'an import cycle in src/',
  );
});
