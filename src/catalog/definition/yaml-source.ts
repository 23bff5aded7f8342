/**
 * One YAML file of the catalog, read through the shared YAML reader (`parseYamlDocument`):
 * positions, the alias cap, duplicate keys, size and depth limits are the project's, and problems
 * keep the catalog's code `CATALOG_YAML_SYNTAX`. This file only adapts the result to what the
 * loader and the schema validator consume.
 */
import { isMap, isPair, isScalar, isSeq } from 'yaml';
import type { Node as YamlNode } from 'yaml';
import { LabelwiseError, formatYamlPath, parseYamlDocument } from '../../base/index.js';
import type { YamlDocument } from '../../base/index.js';

/** A parsed file: its plain value (undefined on a syntax error) and what maps paths to lines. */
export interface YamlSource {
  readonly file: string;
  readonly value: unknown;
  readonly errors: readonly LabelwiseError[];
  /** Line and column (1-based) of the node at `path`, or of its nearest existing ancestor. */
  locate(path: readonly (string | number)[]): { line: number; col: number };
}

/** A path segment list as written in messages: `storage[1].class` (the shared layout). */
export function formatPath(path: readonly (string | number)[]): string {
  return formatYamlPath(path);
}

/**
 * The offset of the key of the entry at `path` (or of the element, for a sequence index), of its
 * nearest existing ancestor when the path runs out. A catalog message points at the key: a
 * nested mapping's value starts on the next line, the key is what the user looks for.
 */
function keyOffset(document: YamlDocument, path: readonly (string | number)[]): number | undefined {
  let node: unknown = document.ast.contents;
  let best = (node as YamlNode | null)?.range?.[0];
  for (const part of path) {
    let next: { node: unknown; at: number | undefined } | undefined;
    if (isMap(node)) {
      const pair = node.items.find(
        (item) =>
          isPair(item) && String(isScalar(item.key) ? item.key.value : item.key) === String(part),
      );
      if (pair !== undefined)
        next = {
          node: pair.value,
          at:
            (pair.key as YamlNode | null)?.range?.[0] ??
            (pair.value as YamlNode | null)?.range?.[0],
        };
    } else if (isSeq(node) && typeof part === 'number') {
      const item = node.items[part] as YamlNode | undefined;
      if (item !== undefined) next = { node: item, at: item.range?.[0] };
    }
    if (next === undefined) break;
    node = next.node;
    if (next.at !== undefined) best = next.at;
  }
  return best;
}

/** 1-based line and column of an offset into `text`. */
function positionOf(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: offset - start + 1 };
}

/** Catalog files are small; anything larger is refused before parsing. */
const MAX_LENGTH = 1 << 20;

/**
 * Parses `text` as one YAML document. Never throws: syntax problems come back in `errors` with
 * their line, and `value` is then undefined.
 */
export function parseYamlSource(file: string, text: string): YamlSource {
  const { document, diagnostics } = parseYamlDocument(text, {
    file,
    code: 'CATALOG_YAML_SYNTAX',
    maxLength: MAX_LENGTH,
  });
  const errors = diagnostics.map(
    (d) =>
      new LabelwiseError(d.code, d.message, {
        source: {
          file,
          line: d.line ?? 1,
          col: d.column ?? 1,
        },
      }),
  );
  const failed = errors.length > 0;
  return {
    file,
    value: failed ? undefined : document?.value,
    errors,
    locate: (path) => {
      if (document === undefined || failed) return { line: 1, col: 1 };
      const offset = keyOffset(document, path);
      if (offset === undefined) {
        const at = document.locate(path);
        return { line: at.line, col: at.column };
      }
      return positionOf(text, offset);
    },
  };
}
