/**
 * YAML text → a small positioned value tree. Every scalar keeps its literal source text (`1` stays `"1"`, `0640` stays `"0640"`), and record whether it was
 * quoted, so a field can insist on a quoted string instead of guessing. Aliases are refused
 * (they make one edit change many places silently); anchors alone are harmless.
 */
import { LineCounter, isAlias, isMap, isScalar, isSeq } from 'yaml';
import { parseYamlDocuments, pushAll } from '../../base/index.js';
import type { Node } from 'yaml';
import { isNullScalar } from './yaml-tree.js';
import type { YamlValue } from './yaml-tree.js';

/** A problem reading YAML, with its 1-based line. */
export interface YamlProblem {
  readonly line: number;
  readonly message: string;
}

/** One non-empty document of a file. */
export interface YamlDocument {
  readonly value: YamlValue;
  readonly line: number;
}

export interface YamlFile {
  readonly documents: readonly YamlDocument[];
  readonly problems: readonly YamlProblem[];
}

const STR_TAG = 'tag:yaml.org,2002:str';
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes and parses a YAML file through the shared reader ({@link parseYamlDocuments}: limits on
 * size, depth and alias expansion, duplicate keys, one wording of errors), then converts each
 * document's syntax tree. Never throws: invalid UTF-8, syntax errors, duplicate keys, aliases,
 * non-scalar keys and custom tags come back as problems (a document with a problem is dropped,
 * so nothing half-read is used).
 */
export function readYaml(bytes: Uint8Array | string, file = ''): YamlFile {
  let text: string;
  if (typeof bytes === 'string') text = bytes;
  else {
    try {
      text = UTF8.decode(bytes);
    } catch {
      return { documents: [], problems: [{ line: 1, message: 'file is not valid UTF-8' }] };
    }
  }
  const lineCounter = new LineCounter();
  lineCounter.addNewLine(0);
  let at = 0;
  for (;;) {
    const next = text.indexOf('\n', at);
    if (next < 0) break;
    lineCounter.addNewLine(next + 1);
    at = next + 1;
  }
  const lineOf = (offset: number | undefined): number => lineCounter.linePos(offset ?? 0).line;
  const documents: YamlDocument[] = [];
  const problems: YamlProblem[] = [];
  const parsed = parseYamlDocuments(text, { file, code: 'FLEET_INVALID_YAML' });
  for (const d of parsed.diagnostics) {
    const line = d.line ?? 1;
    const offset = line <= 1 ? 0 : (lineCounter.lineStarts[line - 1] ?? 0);
    problems.push({
      line,
      message: yamlMessage(d.message) + flowListHint(d.message, lineText(text, offset)),
    });
  }
  for (const doc of parsed.documents) {
    const contents = doc.ast.contents;
    if (contents === null) continue;
    // An empty document (`---` alone, or only comments) holds an empty plain scalar.
    if (isScalar(contents) && contents.type === 'PLAIN' && contents.source === '') continue;
    const docProblems: YamlProblem[] = [];
    const value = convert(contents as Node, lineOf, docProblems);
    if (docProblems.length > 0 || value === undefined) {
      pushAll(problems, docProblems);
      continue;
    }
    documents.push({ value, line: value.line });
  }
  // One cause can surface once per level of a too-deep nesting: say it once per line.
  const seen = new Set<string>();
  const unique = problems.filter((p) => {
    const key = `${p.line}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  unique.sort((a, b) => a.line - b.line);
  return { documents, problems: unique };
}

/** The text of the line holding `offset`. */
function lineText(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', Math.max(0, offset - 1)) + 1;
  const end = text.indexOf('\n', offset);
  return text.slice(start, end < 0 ? text.length : end);
}

/**
 * `requires: [Package[nginx]]` is a YAML syntax error (the inner brackets open a nested flow
 * list), and yaml's message says nothing about references; point at the fix.
 */
function flowListHint(message: string, line: string): string {
  // Only short lines: the pattern backtracks, and one line of a hostile file may be megabytes.
  return /flow sequence/.test(message) &&
    line.length <= 1000 &&
    /\[[^"']*\b[A-Za-z]+\[[^\]]*\]/.test(line)
    ? '; in a flow list, quote references: ["Package[nginx]"], or write them as a block list'
    : '';
}

/** yaml's messages end with " at line N, column M" and an excerpt; we print our own location. */
function yamlMessage(message: string): string {
  const first = message.split('\n')[0] ?? message;
  return first.replace(/ at line \d+, column \d+:?$/, '');
}

function convert(
  node: Node,
  lineOf: (offset: number | undefined) => number,
  problems: YamlProblem[],
): YamlValue | undefined {
  const line = lineOf(node.range?.[0]);
  if (isAlias(node)) {
    problems.push({
      line,
      message: `YAML alias *${node.source} is not allowed; write the value out`,
    });
    return undefined;
  }
  if (node.tag !== undefined && node.tag !== STR_TAG && !(isMap(node) || isSeq(node))) {
    problems.push({
      line,
      message: `YAML tag ${node.tag} is not supported; write a plain or quoted value`,
    });
    return undefined;
  }
  if (isScalar(node)) {
    const quoted = node.type !== 'PLAIN' || node.tag === STR_TAG;
    // The literal text as written (the shared reader resolves `1` to a number; Datum reads text).
    const literal = typeof node.source === 'string' ? node.source : String(node.value);
    return { kind: 'scalar', text: literal, quoted, line };
  }
  if (isSeq(node)) {
    const items: YamlValue[] = [];
    for (const item of node.items) {
      const value = convert(item as Node, lineOf, problems);
      if (value !== undefined) items.push(value);
    }
    return { kind: 'list', items, line };
  }
  if (isMap(node)) {
    const entries = new Map<string, { value: YamlValue; line: number }>();
    for (const pair of node.items) {
      const key = pair.key as Node | null;
      if (key === null || !isScalar(key)) {
        problems.push({
          line: key === null ? line : lineOf(key.range?.[0]),
          message: 'mapping keys must be plain text',
        });
        continue;
      }
      const keyLine = lineOf(key.range?.[0]);
      const text = typeof key.source === 'string' ? key.source : String(key.value);
      const valueNode = pair.value as Node | null;
      const value: YamlValue | undefined =
        valueNode === null
          ? { kind: 'scalar', text: '', quoted: false, line: keyLine }
          : convert(valueNode, lineOf, problems);
      if (value !== undefined) entries.set(text, { value, line: keyLine });
    }
    return { kind: 'map', entries, line };
  }
  problems.push({ line, message: 'unsupported YAML node' });
  return undefined;
}

/** Converts a value to plain data with literal scalar text, for {@link fromMatchBlock}. */
export function toPlain(value: YamlValue): unknown {
  switch (value.kind) {
    case 'scalar':
      return isNullScalar(value) ? null : value.text;
    case 'list':
      return value.items.map(toPlain);
    case 'map': {
      const out: Record<string, unknown> = Object.create(null);
      for (const [key, entry] of value.entries) out[key] = toPlain(entry.value);
      return out;
    }
  }
}

/** Lines of every map entry below `value`, keyed by dotted path from `base` (lists as `[i]`). */
export function linesByPath(
  value: YamlValue,
  base: string,
  out: Record<string, number> = Object.create(null),
): Record<string, number> {
  out[base] = value.line;
  if (value.kind === 'map') {
    for (const [key, entry] of value.entries) {
      out[`${base}.${key}`] = entry.line;
      linesByPath(entry.value, `${base}.${key}`, out);
      out[`${base}.${key}`] = entry.line;
    }
  } else if (value.kind === 'list') {
    value.items.forEach((item, i) => linesByPath(item, `${base}[${i}]`, out));
  }
  return out;
}
