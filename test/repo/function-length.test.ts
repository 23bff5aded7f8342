/**
 * Functions a reader can hold: none in `src/` is over 80 lines unless a `// kept whole: <why>`
 * comment on its first lines says why (a handful at most). `long-functions.json` lists the ones
 * still waiting to be split; it may only shrink, so an entry that is no longer long fails too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..', '..');
const LIMIT = 80;
const MAX_KEPT_WHOLE = 5;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.MethodDeclaration
  | ts.ArrowFunction
  | ts.FunctionExpression
  | ts.ConstructorDeclaration;

function isFunction(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.isConstructorDeclaration(node)
  );
}

/** The name a reader would search for: the function's, its variable's or its property's. */
function nameOf(node: FunctionNode, source: ts.SourceFile, enclosing: string): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const own = node.name?.getText(source);
  if (own !== undefined) return own;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))
    return parent.name.getText(source);
  return `callback in ${enclosing}`;
}

export interface LongFunction {
  readonly id: string;
  readonly lines: number;
  readonly keptWhole: boolean;
}

/** Every function over the limit in `file`, with whether it says why it is kept whole. */
export function longFunctions(file: string, text: string): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node, enclosing: string): void => {
    let name = enclosing;
    if (isFunction(node) && node.body !== undefined) {
      name = nameOf(node, source, enclosing);
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > LIMIT) {
        const head = text
          .split('\n')
          .slice(start, start + 4)
          .join('\n');
        found.push({ id: `${file}#${name}`, lines, keptWhole: /\/\/ kept whole: \S/.test(head) });
      }
    }
    ts.forEachChild(node, (child) => visit(child, name));
  };
  visit(source, '(module)');
  return found;
}

test('the finder counts a long function and honours a kept-whole reason', () => {
  const body = Array.from({ length: LIMIT }, (_, i) => `  const a${i} = ${i};`).join('\n');
  assert.deepEqual(
    longFunctions('x.ts', `function long() {\n${body}\n}\nfunction short() {}\n`).map((f) => f.id),
    ['x.ts#long'],
  );
  const kept = `const run = () => {\n  // kept whole: one table of cases\n${body}\n};\n`;
  assert.equal(longFunctions('x.ts', kept)[0]?.keptWhole, true);
});

test(`no function in src/ is over ${LIMIT} lines without a reason`, () => {
  const pending = JSON.parse(
    readFileSync(join(import.meta.dirname, 'long-functions.json'), 'utf8'),
  ) as { pending: string[] };
  const found = sourceFiles(join(ROOT, 'src')).flatMap((path) =>
    longFunctions(relative(ROOT, path).split('\\').join('/'), readFileSync(path, 'utf8')),
  );
  const kept = found.filter((f) => f.keptWhole).map((f) => f.id);
  const unexplained = found
    .filter((f) => !f.keptWhole && !pending.pending.includes(f.id))
    .map((f) => `${f.id} (${f.lines} lines)`);
  const ids = new Set(found.filter((f) => !f.keptWhole).map((f) => f.id));
  const stale = pending.pending.filter((id) => !ids.has(id));
  assert.deepEqual(unexplained, [], 'split these, or say why each is kept whole');
  assert.deepEqual(stale, [], 'no longer long: remove from test/repo/long-functions.json');
  assert.ok(
    kept.length <= MAX_KEPT_WHOLE,
    `at most ${MAX_KEPT_WHOLE} kept whole: ${kept.join(', ')}`,
  );
});
