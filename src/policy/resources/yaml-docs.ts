/**
 * Multi-document YAML with positions. Every document keeps its parsed `yaml` Document and a
 * LineCounter, so any JSON-style path inside it can be mapped back to a 1-based line: that is
 * how every validation error gets `file:line` and a path.
 */
import { LineCounter, isNode, parseAllDocuments } from 'yaml';
import type { Document } from 'yaml';
import type { PolicyProblem } from '../types.js';

/** One YAML document of an input file. */
export interface YamlDoc {
  readonly file: string;
  /** 0-based position of the document in its file. */
  readonly index: number;
  /** The document as plain data (`toJS`), or undefined for an empty document. */
  readonly value: unknown;
  /** The 1-based line of the node at `path`, or of its nearest existing ancestor. */
  lineOf(path: readonly (string | number)[]): number;
}

/** Bounds alias expansion so a "billion laughs" document fails instead of eating memory. */
const MAX_ALIAS_COUNT = 100;

/**
 * Parses a file's text into documents. Syntax errors are returned as problems (with line and
 * column) and the broken document is skipped; the others are kept. Never throws.
 */
export function parseYamlDocs(
  text: string,
  file: string,
): { docs: YamlDoc[]; problems: PolicyProblem[] } {
  const lineCounter = new LineCounter();
  const problems: PolicyProblem[] = [];
  const docs: YamlDoc[] = [];
  const parsed = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const list: Document[] = Array.isArray(parsed) ? parsed : [];
  if (!Array.isArray(parsed)) {
    // An EmptyStream: no documents at all.
    return { docs, problems };
  }
  list.forEach((doc, index) => {
    if (doc.errors.length > 0) {
      // One cause can surface many times (a stack overflow is reported at every level it
      // unwinds through): each distinct line and message once.
      const seen = new Set<string>();
      for (const error of doc.errors) {
        const line = lineCounter.linePos(error.pos[0]).line;
        const message = `YAML: ${readable(error.message.split('\n')[0] ?? error.message)}`;
        if (seen.has(`${line}\u0000${message}`)) continue;
        seen.add(`${line}\u0000${message}`);
        problems.push({ severity: 'error', code: 'POLICY_YAML_SYNTAX', file, line, message });
      }
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      // yaml throws a ReferenceError for excessive alias expansion and a RangeError for nesting
      // deeper than the stack: hostile input, not a bug. Anything else is a bug.
      if (!(error instanceof ReferenceError || error instanceof RangeError)) throw error;
      problems.push({
        severity: 'error',
        code: 'POLICY_YAML_SYNTAX',
        file,
        line: doc.contents?.range ? lineCounter.linePos(doc.contents.range[0]).line : 1,
        message: `YAML: ${readable(error.message)}`,
      });
      return;
    }
    const startLine = doc.contents?.range ? lineCounter.linePos(doc.contents.range[0]).line : 1;
    docs.push({
      file,
      index,
      value,
      lineOf(path) {
        for (let n = path.length; n >= 0; n--) {
          const node = doc.getIn(path.slice(0, n), true);
          if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
        }
        return startLine;
      },
    });
  });
  return { docs, problems };
}

/** Says what a stack overflow means for the user's file. */
function readable(message: string): string {
  return message.includes('Maximum call stack size exceeded')
    ? 'the document nests too deeply to read (collections inside collections)'
    : message;
}

/** Formats a path array as `spec.rules[0].matches[1]`. */
export function formatPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}
