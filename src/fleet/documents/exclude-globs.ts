/**
 * `Fleet.exclude` globs (spec: Repository and discovery), matched segment by segment against
 * paths relative to the fleet root:
 *
 *   *        any run of characters inside one segment (names starting with `.` too)
 *   ?        one character inside a segment
 *   [abc]    one character of a set; ranges such as `a-z`; `[!…]` or `[^…]` negates
 *   **       as a whole segment: any number of segments, none included
 *   {a,b}    alternatives, nested as needed; `{1..3}` is a numeric range
 *   \x       the character x itself
 *
 * A leading `./` and a trailing `/` are ignored, so `./drafts/` names the directory `drafts`.
 *
 * Why not compile the globs to a RegExp (picomatch does): a backtracking regex for a pattern
 * such as `*a*a*a*a*a*a*a*a*b` takes exponential time on a long file name, and exclude lists
 * come from the repository, which is input we do not trust. Matching here is
 * O(pattern length × segment length) per segment pair and O(segments²) per path, never worse.
 */

/** Brace expansion stops here: a pattern that expands further is refused, not expanded. */
export const MAX_ALTERNATIVES = 256;

type Token =
  | { readonly kind: 'star' }
  | { readonly kind: 'any' }
  | { readonly kind: 'char'; readonly char: string }
  | {
      readonly kind: 'set';
      readonly negated: boolean;
      readonly items: readonly (string | readonly [string, string])[];
    };

/** A pattern segment: `**`, or the tokens of a one-segment glob. */
type Segment = 'globstar' | readonly Token[];

/** Why an exclude pattern cannot be used, or undefined. */
export function excludePatternProblem(pattern: string): string | undefined {
  if (pattern === '') return 'must not be empty';
  return expandBraces(pattern) === undefined
    ? `expands to more than ${MAX_ALTERNATIVES} alternatives`
    : undefined;
}

/**
 * A predicate for "is this path (relative, `/`-separated) excluded": true when any pattern
 * matches the path or one of its parent directories. Patterns that {@link excludePatternProblem}
 * refuses match nothing. Never throws.
 */
export function excludeMatcher(patterns: readonly string[]): (path: string) => boolean {
  const compiled: Segment[][] = [];
  for (const pattern of patterns)
    for (const alternative of expandBraces(pattern) ?? []) compiled.push(compile(alternative));
  if (compiled.length === 0) return () => false;
  return (path) => {
    const parts = path.split('/');
    // A match on the path or on any directory above it (any prefix of segments) excludes it.
    return compiled.some((segments) =>
      matchPrefixes(segments, parts).some((hit, n) => n > 0 && hit === 1),
    );
  };
}

/** Expands `{a,b}` alternatives and `{1..3}` ranges; undefined past {@link MAX_ALTERNATIVES}. */
function expandBraces(pattern: string): string[] | undefined {
  const out: string[] = [];
  const pending = [pattern];
  while (pending.length > 0) {
    const text = pending.pop() as string;
    const group = firstGroup(text);
    if (group === undefined) {
      out.push(text);
      if (out.length > MAX_ALTERNATIVES) return undefined;
      continue;
    }
    const before = text.slice(0, group.open);
    const after = text.slice(group.close + 1);
    for (const alternative of group.alternatives) pending.push(before + alternative + after);
    if (pending.length + out.length > MAX_ALTERNATIVES * 4) return undefined;
  }
  return out.length > MAX_ALTERNATIVES ? undefined : out.reverse();
}

/** The first `{…}` that holds a top-level `,` or a numeric range, with its alternatives. */
function firstGroup(
  text: string,
): { open: number; close: number; alternatives: string[] } | undefined {
  for (let open = 0; open < text.length; open++) {
    if (text[open] === '\\') {
      open++;
      continue;
    }
    if (text[open] !== '{') continue;
    let depth = 0;
    const commas: number[] = [];
    for (let i = open; i < text.length; i++) {
      const c = text[i];
      if (c === '\\') i++;
      else if (c === '{') depth++;
      else if (c === ',' && depth === 1) commas.push(i);
      else if (c === '}' && --depth === 0) {
        const inner = text.slice(open + 1, i);
        if (commas.length > 0) {
          const bounds = [open, ...commas, i];
          const alternatives = bounds
            .slice(1)
            .map((end, k) => text.slice((bounds[k] as number) + 1, end));
          return { open, close: i, alternatives };
        }
        const range = /^(-?\d{1,15})\.\.(-?\d{1,15})$/.exec(inner);
        if (range !== null) {
          const from = Number(range[1]);
          const to = Number(range[2]);
          const step = from <= to ? 1 : -1;
          const alternatives: string[] = [];
          for (let n = from; ; n += step) {
            alternatives.push(String(n));
            if (n === to || alternatives.length > MAX_ALTERNATIVES) break;
          }
          return { open, close: i, alternatives };
        }
        break; // `{a}` is literal text, as in picomatch; look for a later group
      }
    }
  }
  return undefined;
}

function compile(pattern: string): Segment[] {
  let text = pattern;
  while (text.startsWith('./')) text = text.slice(2);
  return text
    .split('/')
    .filter((part) => part !== '')
    .map((part) => (part === '**' ? 'globstar' : tokens(part)));
}

function tokens(segment: string): Token[] {
  const chars = Array.from(segment);
  const out: Token[] = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    if (c === '\\' && i + 1 < chars.length) out.push({ kind: 'char', char: chars[++i] as string });
    else if (c === '*') {
      // `**` inside a segment is one `*`; consecutive stars add nothing but cost.
      if (out[out.length - 1]?.kind !== 'star') out.push({ kind: 'star' });
    } else if (c === '?') out.push({ kind: 'any' });
    else if (c === '[') {
      const set = readSet(chars, i);
      if (set === undefined) out.push({ kind: 'char', char: c });
      else {
        out.push(set.token);
        i = set.end;
      }
    } else out.push({ kind: 'char', char: c });
  }
  return out;
}

/** A `[…]` set starting at `start`, or undefined when it is not closed (then `[` is literal). */
function readSet(
  chars: readonly string[],
  start: number,
): { token: Token; end: number } | undefined {
  let i = start + 1;
  const negated = chars[i] === '!' || chars[i] === '^';
  if (negated) i++;
  const items: (string | readonly [string, string])[] = [];
  // A `]` right after the opening bracket is a member, not the end.
  for (let first = true; i < chars.length; i++, first = false) {
    const c = chars[i] as string;
    if (c === ']' && !first) return { token: { kind: 'set', negated, items }, end: i };
    const literal = c === '\\' && i + 1 < chars.length ? (chars[++i] as string) : c;
    if (chars[i + 1] === '-' && i + 2 < chars.length && chars[i + 2] !== ']') {
      items.push([literal, chars[i + 2] as string]);
      i += 2;
    } else items.push(literal);
  }
  return undefined;
}

function matchOne(token: Token, char: string): boolean {
  switch (token.kind) {
    case 'any':
      return true;
    case 'char':
      return token.char === char;
    case 'set': {
      const inSet = token.items.some((item) =>
        typeof item === 'string' ? item === char : item[0] <= char && char <= item[1],
      );
      return inSet !== token.negated;
    }
    case 'star':
      return false;
  }
}

/**
 * Wildcard matching of one segment: single-character tokens advance together, and on a
 * mismatch only the most recent `*` takes one more character. Correct because every other
 * token matches exactly one character; O(tokens × characters) at worst.
 */
function matchSegment(pattern: readonly Token[], text: string): boolean {
  const chars = Array.from(text);
  let p = 0;
  let s = 0;
  let star = -1;
  let starAt = 0;
  while (s < chars.length) {
    const token = pattern[p];
    if (token !== undefined && token.kind === 'star') {
      star = p++;
      starAt = s;
    } else if (token !== undefined && matchOne(token, chars[s] as string)) {
      p++;
      s++;
    } else if (star >= 0) {
      p = star + 1;
      s = ++starAt;
    } else return false;
  }
  while (pattern[p]?.kind === 'star') p++;
  return p === pattern.length;
}

/**
 * For every n, whether the pattern matches exactly the first n path segments (1 = yes);
 * `**` spans any number of segments.
 */
function matchPrefixes(pattern: readonly Segment[], path: readonly string[]): Uint8Array {
  // reach[j]: the pattern so far matches the first j path segments. One row per pattern segment.
  let reach = new Uint8Array(path.length + 1);
  reach[0] = 1;
  for (const segment of pattern) {
    const next = new Uint8Array(path.length + 1);
    for (let j = 0; j <= path.length; j++) {
      if (segment === 'globstar') {
        if (reach[j] === 1 || (j > 0 && next[j - 1] === 1)) next[j] = 1;
      } else if (j > 0 && reach[j - 1] === 1 && matchSegment(segment, path[j - 1] as string))
        next[j] = 1;
    }
    reach = next;
  }
  return reach;
}
