/**
 * The one YAML reader: every module reads YAML through here, so positions, the alias policy,
 * duplicate keys, size and depth limits and the wording of errors are the same everywhere.
 * Input is hostile: nothing here throws for bad text, alias expansion is bounded ("billion
 * laughs"), and a document nested deeper than the limit is refused instead of overflowing the
 * stack.
 */
import { yamlLibrary } from './yaml-library.js';
import type { Code } from './codes.js';
import type { Document, Node as YamlNode } from 'yaml';
import type { Diagnostic } from './diagnostic.js';

export interface YamlOptions {
  /** The file as it is shown to the user (relative to the repository). */
  readonly file: string;
  /** The diagnostic code for a file that cannot be read as YAML. Default `YAML_SYNTAX`. */
  readonly code?: Code;
  /** Longest text accepted, in UTF-16 units (about bytes for YAML). Default 16 MiB. */
  readonly maxLength?: number;
  /** Deepest nesting of collections accepted. Default 200. */
  readonly maxDepth?: number;
  /** How many alias expansions one document may do. Default 100; 0 forbids aliases. */
  readonly maxAliasCount?: number;
  /** YAML 1.1 merge keys (`<<: *base`), as Docker Compose reads them. Default false. */
  readonly merge?: boolean;
}

export const YAML_DEFAULTS = {
  code: 'YAML_SYNTAX',
  maxLength: 16 * 1024 * 1024,
  maxDepth: 200,
  maxAliasCount: 100,
} as const;

/** A position in a file, 1-based. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** One document of a YAML file, with its value and a way back from a path to a position. */
export interface YamlDocument {
  readonly file: string;
  /** 0-based position of the document in its file. */
  readonly index: number;
  /** The document as plain data; undefined for an empty document. */
  readonly value: unknown;
  /** The parsed document, for readers that need tags, anchors or key order (Compose). */
  readonly ast: Document;
  /** Where the node at `path` starts (its value, or its key when the value is empty), or its nearest existing ancestor. */
  locate(path: readonly (string | number)[]): Position;
}

export interface YamlResult {
  readonly documents: YamlDocument[];
  /** Problems that kept a document from being read; that document is left out of `documents`. */
  readonly diagnostics: Diagnostic[];
}

/** A path as written in messages: `spec.rules[0].matches[1]`, odd keys quoted (`labels["a b"]`). */
export function formatYamlPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_/-]*$/.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

function keyText(key: unknown): string {
  return yamlLibrary().isScalar(key) ? String(key.value) : String(key);
}

/** The child node at `key` of a map or sequence node, and the key node for map entries. */
function child(
  node: unknown,
  key: string | number,
): { node: unknown; keyNode?: unknown } | undefined {
  if (yamlLibrary().isAlias(node)) return undefined;
  if (yamlLibrary().isMap(node)) {
    for (const item of node.items) {
      if (yamlLibrary().isPair(item) && keyText(item.key) === String(key))
        return { node: item.value ?? item.key, keyNode: item.key };
    }
    return undefined;
  }
  if (yamlLibrary().isSeq(node) && typeof key === 'number') {
    const item = node.items[key];
    return item === undefined ? undefined : { node: item };
  }
  return undefined;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as YamlNode | null | undefined)?.range;
  return Array.isArray(range) ? range[0] : undefined;
}

/** The deepest nesting of collections in the document, walked without recursion. */
function depthOf(root: unknown, limit: number): number {
  const stack: { node: unknown; depth: number }[] = [{ node: root, depth: 0 }];
  let deepest = 0;
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: unknown; depth: number };
    if (!yamlLibrary().isMap(node) && !yamlLibrary().isSeq(node)) continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (deepest > limit) return deepest;
    for (const item of node.items as unknown[]) {
      if (yamlLibrary().isPair(item)) {
        stack.push({ node: item.key, depth: here });
        stack.push({ node: item.value, depth: here });
      } else stack.push({ node: item, depth: here });
    }
  }
  return deepest;
}

/**
 * What the yaml library throws for hostile or broken input, not for a bug: a ReferenceError
 * (unknown alias, too many alias expansions), a RangeError (recursion past the stack), or a
 * plain Error about a merge key whose source is not a mapping.
 */
function isInputError(error: unknown): boolean {
  if (error instanceof ReferenceError || error instanceof RangeError) return true;
  return error instanceof Error && error.message.startsWith('Merge sources must be');
}

/** The position of the first merge key (`<<`) in a document, for a merge error. */
function mergeKeyAt(doc: Document, position: (offset: number) => Position): Position | undefined {
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (yamlLibrary().isMap(node) || yamlLibrary().isSeq(node)) {
      for (const item of node.items as unknown[]) {
        if (yamlLibrary().isPair(item)) {
          // With merge keys on, the key's value is a symbol; its source text is `<<`.
          if (
            yamlLibrary().isScalar(item.key) &&
            (item.key.source === '<<' || item.key.value === '<<')
          ) {
            const offset = rangeStart(item.key);
            if (offset !== undefined) return position(offset);
          }
          stack.push(item.value);
        } else stack.push(item);
      }
    }
  }
  return undefined;
}

/** What the yaml library's first message line says, in words for the user's file. */
function readable(message: string): string {
  const first = message.split('\n')[0] ?? message;
  if (first.includes('Maximum call stack size exceeded'))
    return 'the document nests too deeply to read (collections inside collections)';
  if (first.startsWith('Merge sources must be'))
    return 'a merge key (<<) must name a mapping, or a list of mappings';
  if (first.includes('Excessive alias count'))
    return 'too many alias expansions (a YAML "billion laughs" document?)';
  return first;
}

/**
 * Parses every document of `text`. A document with a syntax error, a duplicate key, nesting past
 * the limit or too many alias expansions becomes one diagnostic per distinct problem and is left
 * out; the other documents are kept. Never throws for bad input.
 */
export function parseYamlDocuments(text: string, options: YamlOptions): YamlResult {
  const code = options.code ?? YAML_DEFAULTS.code;
  const maxLength = options.maxLength ?? YAML_DEFAULTS.maxLength;
  const maxDepth = options.maxDepth ?? YAML_DEFAULTS.maxDepth;
  const maxAliasCount = options.maxAliasCount ?? YAML_DEFAULTS.maxAliasCount;
  const file = options.file;
  const diagnostics: Diagnostic[] = [];
  const problem = (message: string, at?: Position): void => {
    diagnostics.push({
      severity: 'error',
      code,
      file,
      line: at?.line,
      column: at?.column,
      message,
    });
  };
  if (text.length > maxLength) {
    problem(`the file is ${text.length} characters long, over the limit of ${maxLength}`);
    return { documents: [], diagnostics };
  }
  const lineCounter = new (yamlLibrary().LineCounter)();
  const position = (offset: number): Position => {
    const p = lineCounter.linePos(offset);
    return { line: p.line, column: p.col };
  };
  let parsed;
  try {
    parsed = yamlLibrary().parseAllDocuments(text, {
      lineCounter,
      prettyErrors: false,
      uniqueKeys: true,
      merge: options.merge ?? false,
    });
  } catch (error) {
    if (!isInputError(error)) throw error;
    problem(readable((error as Error).message), { line: 1, column: 1 });
    return { documents: [], diagnostics };
  }
  const list: Document[] = Array.isArray(parsed) ? parsed : [];
  const documents: YamlDocument[] = [];
  const limits = { maxDepth, maxAliasCount };
  list.forEach((doc, index) => {
    const read = readDocument(doc, index, file, limits, position, problem);
    if (read !== undefined) documents.push(read);
  });
  return { documents, diagnostics };
}

/** Reports each distinct problem the yaml library found in a document, once. */
function reportSyntax(
  doc: Document,
  position: (offset: number) => Position,
  problem: (message: string, at?: Position) => void,
): void {
  // One cause can surface many times (at every level it unwinds through): each distinct
  // position and message once.
  const seen = new Set<string>();
  for (const error of doc.errors) {
    const at = position(error.pos[0]);
    const message = readable(error.message);
    const key = `${at.line}:${at.column}:${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problem(message, at);
  }
}

/**
 * One parsed document as a {@link YamlDocument}, or undefined (with its problems reported) when
 * it has a syntax error, nests past the limit, uses refused aliases or holds a cycle.
 */
function readDocument(
  doc: Document,
  index: number,
  file: string,
  limits: { readonly maxDepth: number; readonly maxAliasCount: number },
  position: (offset: number) => Position,
  problem: (message: string, at?: Position) => void,
): YamlDocument | undefined {
  if (doc.errors.length > 0) {
    reportSyntax(doc, position, problem);
    return undefined;
  }
  const start = position(rangeStart(doc.contents) ?? 0);
  if (depthOf(doc.contents, limits.maxDepth) > limits.maxDepth) {
    problem(`the document nests collections more than ${limits.maxDepth} deep`, start);
    return undefined;
  }
  if (limits.maxAliasCount === 0 && hasAlias(doc.contents)) {
    problem('aliases (*name) are not allowed in this file', start);
    return undefined;
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: limits.maxAliasCount });
  } catch (error) {
    // yaml throws a ReferenceError for excessive alias expansion or an unknown alias, and a
    // RangeError for recursion past the stack: hostile input, not a bug.
    if (!isInputError(error)) throw error;
    problem(readable((error as Error).message), mergeKeyAt(doc, position) ?? start);
    return undefined;
  }
  if (isCircular(value)) {
    problem('an alias refers to the collection that holds it (a cycle)', start);
    return undefined;
  }
  return {
    file,
    index,
    value,
    ast: doc,
    locate(path) {
      let node: unknown = doc.contents;
      let best = start;
      for (const key of path) {
        const next = child(node, key);
        if (next === undefined) break;
        const offset = rangeStart(next.node) ?? rangeStart(next.keyNode);
        if (offset !== undefined) best = position(offset);
        node = next.node;
      }
      return best;
    },
  };
}

/** True when a value holds itself (an alias to an enclosing anchor), walked without recursion. */
function isCircular(root: unknown): boolean {
  if (typeof root !== 'object' || root === null) return false;
  const onPath = new Set<object>();
  const done = new Set<object>();
  const stack: { value: object; leaving: boolean }[] = [{ value: root, leaving: false }];
  while (stack.length > 0) {
    const { value, leaving } = stack.pop() as { value: object; leaving: boolean };
    if (leaving) {
      onPath.delete(value);
      done.add(value);
      continue;
    }
    if (done.has(value)) continue;
    if (onPath.has(value)) return true;
    onPath.add(value);
    stack.push({ value, leaving: true });
    const children =
      value instanceof Map ? [...value.keys(), ...value.values()] : Object.values(value);
    for (const item of children) {
      if (typeof item !== 'object' || item === null) continue;
      if (onPath.has(item)) return true;
      if (!done.has(item)) stack.push({ value: item, leaving: false });
    }
  }
  return false;
}

function hasAlias(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (yamlLibrary().isAlias(node)) return true;
    if (yamlLibrary().isMap(node) || yamlLibrary().isSeq(node)) {
      for (const item of node.items as unknown[]) {
        if (yamlLibrary().isPair(item)) stack.push(item.key, item.value);
        else stack.push(item);
      }
    }
  }
  return false;
}

/**
 * Parses a file that must hold one document. More than one is a diagnostic on the second;
 * an empty file gives no document and no diagnostic.
 */
export function parseYamlDocument(
  text: string,
  options: YamlOptions,
): { document?: YamlDocument; diagnostics: Diagnostic[] } {
  const { documents, diagnostics } = parseYamlDocuments(text, options);
  if (documents.length > 1) {
    const second = documents[1] as YamlDocument;
    const at = second.locate([]);
    diagnostics.push({
      severity: 'error',
      code: options.code ?? YAML_DEFAULTS.code,
      file: options.file,
      line: at.line,
      column: at.column,
      message: 'the file holds more than one YAML document; one is expected',
    });
  }
  return { document: documents[0], diagnostics };
}
