/**
 * Parsing one YAML file of the catalog with positions, and mapping a JSON path inside it back to
 * a line and column. Catalog files are hostile input: aliases are capped, duplicate keys are
 * errors, and nothing here throws for bad text.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Document, Node as YamlNode } from 'yaml';
import { LabelwiseError } from '../base/errors.js';

/** A parsed file: its plain value (undefined on a syntax error) and what maps paths to lines. */
export interface YamlSource {
  readonly file: string;
  readonly value: unknown;
  readonly errors: readonly LabelwiseError[];
  /** Line and column (1-based) of the node at `path`, or of its nearest existing ancestor. */
  locate(path: readonly (string | number)[]): { line: number; col: number };
}

/** A path segment list as written in messages: `storage[1].class`. */
export function formatPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

function child(
  node: unknown,
  key: string | number,
): { node: unknown; keyNode?: unknown } | undefined {
  if (isMap(node)) {
    for (const item of node.items) {
      if (!isPair(item)) continue;
      const k = isScalar(item.key) ? item.key.value : item.key;
      if (String(k) === String(key)) return { node: item.value ?? item.key, keyNode: item.key };
    }
    return undefined;
  }
  if (isSeq(node) && typeof key === 'number') {
    const item = node.items[key];
    return item === undefined ? undefined : { node: item };
  }
  return undefined;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as YamlNode | null | undefined)?.range;
  return Array.isArray(range) ? range[0] : undefined;
}

/**
 * Parses `text` as one YAML document. Never throws: syntax problems come back in `errors` with
 * their line, and `value` is then undefined.
 */
export function parseYamlSource(file: string, text: string): YamlSource {
  const lineCounter = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const errors: LabelwiseError[] = [];
  for (const problem of [...doc.errors]) {
    const pos = lineCounter.linePos(problem.pos[0]);
    errors.push(
      new LabelwiseError('CATALOG_YAML_SYNTAX', problem.message.split('\n')[0] ?? 'invalid YAML', {
        file,
        line: pos.line,
        col: pos.col,
      }),
    );
  }
  let value: unknown;
  if (errors.length === 0) {
    try {
      // maxAliasCount bounds alias expansion ("billion laughs"); toJS throws past it.
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (error) {
      errors.push(
        new LabelwiseError('CATALOG_YAML_SYNTAX', (error as Error).message, {
          file,
          line: 1,
          col: 1,
        }),
      );
    }
  }
  const locate = (path: readonly (string | number)[]): { line: number; col: number } => {
    let node: unknown = doc.contents;
    let best = rangeStart(node) ?? 0;
    for (const part of path) {
      const next = child(node, part);
      if (next === undefined) break;
      node = next.node;
      // The key's position reads best: a nested mapping's value starts on the next line.
      best = rangeStart(next.keyNode) ?? rangeStart(next.node) ?? best;
    }
    const pos = lineCounter.linePos(best);
    return { line: pos.line, col: pos.col };
  };
  return { file, value, errors, locate };
}
