/**
 * CONTRIBUTING's rules for reading and sorting, checked on the source: YAML is parsed only by
 * base (`parseYamlDocuments`), no `localeCompare` (it sorts by the machine's locale), and no
 * `.sort()` without a comparator (code-unit order, not `compareText`'s code-point order).
 * `house-rules.json` lists the places still waiting for their module's pass; it may only shrink.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..', '..');
/** The yaml library's parsers: text in, values out, without base's limits and diagnostics. */
const YAML_PARSERS = new Set(['parse', 'parseDocument', 'parseAllDocuments', 'Parser', 'Composer']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every break of the three rules in one file, as `file:line rule`. */
export function houseRuleBreaks(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const breaks: string[] = [];
  const at = (node: ts.Node, rule: string): void => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    breaks.push(`${file}:${line} ${rule}`);
  };
  const inBase = file.startsWith('src/base/');
  const visit = (node: ts.Node): void => {
    if (
      !inBase &&
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      node.moduleSpecifier.text === 'yaml'
    ) {
      const named = node.importClause?.namedBindings;
      const names =
        named !== undefined && ts.isNamedImports(named)
          ? named.elements.map((e) => (e.propertyName ?? e.name).text)
          : [];
      if (named !== undefined && ts.isNamespaceImport(named)) at(node, 'yaml-parse');
      else if (node.importClause?.isTypeOnly !== true && names.some((n) => YAML_PARSERS.has(n)))
        at(node, 'yaml-parse');
    }
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'localeCompare')
      at(node, 'localeCompare');
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'sort' &&
      node.arguments.length === 0
    )
      at(node, 'sort-without-compareText');
    ts.forEachChild(node, visit);
  };
  visit(source);
  return breaks;
}

test('the checker finds each rule and nothing else', () => {
  const text = [
    "import { parse } from 'yaml';",
    "import { isMap } from 'yaml';",
    "import type { Document } from 'yaml';",
    'a.localeCompare(b);',
    'xs.sort();',
    'xs.sort(compareText);',
  ].join('\n');
  assert.deepEqual(houseRuleBreaks('src/x/y.ts', text), [
    'src/x/y.ts:1 yaml-parse',
    'src/x/y.ts:4 localeCompare',
    'src/x/y.ts:5 sort-without-compareText',
  ]);
  assert.deepEqual(houseRuleBreaks('src/base/yaml.ts', "import { parse } from 'yaml';"), []);
});

test("src/ keeps CONTRIBUTING's rules for YAML and sorting", () => {
  const known = JSON.parse(readFileSync(join(import.meta.dirname, 'house-rules.json'), 'utf8')) as {
    pending: string[];
    deliberate: Record<string, string>;
  };
  // Lines move with every edit; a pending place is named by its file and rule.
  const key = (b: string): string => b.replace(/:\d+ /, ' ');
  const found = sourceFiles(join(ROOT, 'src')).flatMap((path) =>
    houseRuleBreaks(relative(ROOT, path).split('\\').join('/'), readFileSync(path, 'utf8')),
  );
  const allowed = new Set([...known.pending, ...Object.keys(known.deliberate)]);
  const unexplained = found.filter((b) => !allowed.has(key(b)));
  const keys = new Set(found.map(key));
  const stale = known.pending.filter((k) => !keys.has(k));
  assert.deepEqual(unexplained, [], 'parse YAML with base; sort with compareText (or sortStrings)');
  assert.deepEqual(stale, [], 'fixed: remove from test/repo/house-rules.json');
});
