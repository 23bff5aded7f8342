/**
 * Multi-document YAML with positions, read through the shared YAML reader (`src/base`): the
 * alias bound, duplicate keys, size and depth limits and the wording of errors are those of
 * every module. Each document keeps a way from a JSON-style path back to its line, which is how
 * every validation error gets `file:line` and a path. Syntax errors keep the code
 * `POLICY_YAML_SYNTAX`.
 */
import { formatYamlPath, parseYamlDocuments } from '../../base/index.js';
import type { Position } from '../../base/index.js';
import type { PolicyProblem } from '../types.js';

/** One YAML document of an input file. */
export interface YamlDoc {
  readonly file: string;
  /** 0-based position of the document in its file. */
  readonly index: number;
  /** The document as plain data, or undefined for an empty document. */
  readonly value: unknown;
  /** The 1-based line of the node at `path`, or of its nearest existing ancestor. */
  lineOf(path: readonly (string | number)[]): number;
  /** Line and column of the node at `path`, as {@link YamlDoc.lineOf}. Optional for hand-built documents. */
  locate?(path: readonly (string | number)[]): Position;
}

/**
 * Parses a file's text into documents. Syntax errors are returned as problems (with line and
 * column) and the broken document is skipped; the others are kept. Never throws.
 */
export function parseYamlDocs(
  text: string,
  file: string,
): { docs: YamlDoc[]; problems: PolicyProblem[] } {
  const parsed = parseYamlDocuments(text, { file, code: 'POLICY_YAML_SYNTAX' });
  const docs = parsed.documents.map((doc): YamlDoc => ({
    file,
    index: doc.index,
    value: doc.value,
    lineOf: (path) => doc.locate(path).line,
    locate: (path) => doc.locate(path),
  }));
  // One cause can surface at many columns of one line (a nesting overflow unwinding through
  // every level): each distinct line and message once.
  const seen = new Set<string>();
  const problems = parsed.diagnostics.filter((d) => {
    const key = `${d.line ?? 0}\u0000${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { docs, problems };
}

/** Formats a path array as `spec.rules[0].matches[1]` (odd keys quoted). */
export function formatPath(path: readonly (string | number)[]): string {
  return formatYamlPath(path);
}
