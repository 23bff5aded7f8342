/**
 * `.env` and `env_file:` files, read as compose-go's `dotenv` parser reads them. Pure.
 *
 * - `KEY=value`, `KEY: value`, `export KEY=value`; blank lines and `#` lines are skipped.
 * - Unquoted values end at the line end, lose a trailing ` #comment` and trailing blanks
 *   (`a#b` keeps its `#`), and are interpolated.
 * - `'single'` values are literal. `"double"` values may span lines, take the escapes
 *   `\n \t \r \a \b \f \v \\ \" \$ \0NNN` (others stay as written) and are interpolated.
 * - A line holding only `KEY` takes the value from the lookup, and is left out when unset there.
 * - Interpolation sees the lookup first (the environment wins, as in Compose), then the keys
 *   defined earlier in the same file.
 */
import { interpolate } from './interpolate.js';
import type { Lookup } from './interpolate.js';

export interface DotEnvProblem {
  readonly severity: 'error' | 'warning';
  readonly message: string;
  readonly line: number;
}

export interface DotEnvResult {
  /** In file order; a key set twice keeps its last value. */
  readonly values: Map<string, string>;
  readonly problems: DotEnvProblem[];
}

const EXPORT = /^export[ \t]+/;
const KEY_CHAR = /[\p{L}\p{N}_.\-[\]]/u;
const SPACE = /[ \t\v\f\r\u0085\u00a0]/;

function unescapeDouble(text: string): string {
  return text.replace(/\\(0[0-7]{1,3}|[abfnrtv\\"$])/g, (whole, code: string) => {
    switch (code) {
      case 'a':
        return '\u0007';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'v':
        return '\v';
      case '\\':
        return '\\';
      case '"':
        return '"';
      case '$':
        return '$$'; // stays a literal `$` through interpolation
      default:
        return code.startsWith('0') ? String.fromCharCode(parseInt(code.slice(1), 8)) : whole;
    }
  });
}

/** An unquoted value: up to ` #` (a comment), trailing space dropped. */
function unquotedValue(text: string): string {
  const comment = text.indexOf(' #');
  return (comment >= 0 ? text.slice(0, comment) : text).replace(/\s+$/u, '');
}

/** Where a key ends (`=`, `:` or a newline, or the end), or the first character no key holds. */
function readKey(rest: string): { k: number; separator: string | undefined; bad?: string } {
  for (let k = 0; k < rest.length; k++) {
    const c = rest[k] as string;
    if (c === '=' || c === ':' || c === '\n') return { k, separator: c };
    if (!SPACE.test(c) && !KEY_CHAR.test(c)) return { k, separator: undefined, bad: c };
  }
  return { k: rest.length, separator: undefined };
}

/**
 * The raw text of a value quoted from `open` (a backslash keeps the next quote; other escapes are
 * left for {@link unescapeDouble}), the closing quote's index (-1: unterminated) and the
 * newlines inside.
 */
function readQuoted(
  source: string,
  open: number,
  quote: string,
): { raw: string; closed: number; newlines: number } {
  let raw = '';
  let escaped = false;
  let newlines = 0;
  for (let m = open + 1; m < source.length; m++) {
    const c = source[m] as string;
    if (c === '\n') newlines++;
    if (c !== quote) {
      if (!escaped && c === '\\') {
        escaped = true;
        continue;
      }
      if (escaped) raw += '\\';
      escaped = false;
      raw += c;
      continue;
    }
    if (escaped) {
      escaped = false;
      raw += c;
      continue;
    }
    return { raw, closed: m, newlines };
  }
  return { raw, closed: -1, newlines };
}

/** Parses a dotenv text. Never throws; a malformed line is an error problem and ends the parse. */
export function parseDotEnv(text: string, lookup: Lookup = () => undefined): DotEnvResult {
  const values = new Map<string, string>();
  const problems: DotEnvProblem[] = [];
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let i = 0;
  let line = 1;
  const expand = (value: string, at: number): string => {
    const result = interpolate(value, (name) => lookup(name) ?? values.get(name));
    for (const p of result.problems) problems.push({ ...p, line: at });
    return result.text;
  };
  while (i < source.length) {
    // Skip blank space and comment lines.
    const char = source[i] as string;
    if (char === '\n') {
      line++;
      i++;
      continue;
    }
    if (SPACE.test(char) || char === ' ') {
      i++;
      continue;
    }
    if (char === '#') {
      const end = source.indexOf('\n', i);
      i = end < 0 ? source.length : end;
      continue;
    }
    const startLine = line;
    let rest = source.slice(i);
    const exported = EXPORT.exec(rest);
    if (exported !== null) rest = rest.slice(exported[0].length);
    const { k, separator, bad } = readKey(rest);
    if (bad !== undefined) {
      problems.push({
        severity: 'error',
        line: startLine,
        message: `unexpected character ${JSON.stringify(bad)} in a variable name`,
      });
      return { values, problems };
    }
    const key = rest.slice(0, k).replace(/[\s]+$/u, '');
    const consumedHead = source.length - rest.length - i + k + 1;
    if (key.includes(' ')) {
      problems.push({ severity: 'error', line: startLine, message: 'a key cannot hold a space' });
      return { values, problems };
    }
    if (separator === undefined || separator === '\n') {
      // A bare `KEY`: passed through from the environment.
      const passed = lookup(key);
      if (passed !== undefined) values.set(key, passed);
      i += consumedHead;
      if (separator === '\n') line++;
      continue;
    }
    let j = i + consumedHead;
    while (j < source.length && SPACE.test(source[j] as string)) j++;
    const quote = source[j];
    if (quote === '"' || quote === "'") {
      const { raw, closed, newlines } = readQuoted(source, j, quote);
      line += newlines;
      if (closed < 0) {
        problems.push({ severity: 'error', line: startLine, message: 'unterminated quoted value' });
        return { values, problems };
      }
      values.set(key, quote === '"' ? expand(unescapeDouble(raw), startLine) : raw);
      // The rest of the line after the closing quote is a comment or blank.
      const end = source.indexOf('\n', closed);
      i = end < 0 ? source.length : end;
      continue;
    }
    const end = source.indexOf('\n', j);
    values.set(
      key,
      expand(unquotedValue(source.slice(j, end < 0 ? source.length : end)), startLine),
    );
    i = end < 0 ? source.length : end;
  }
  return { values, problems };
}
