/**
 * The lexer for Kubernetes selector strings, split from the parser as in apimachinery: it only
 * cuts the input into tokens. Whether `in` is an operator or a plain word is decided by the
 * parser, which asks for tokens in a context (see `k8s.ts`).
 *
 * - Whitespace is space, tab, CR and LF.
 * - Special symbols are `! = ( ) , < >`; the longest known symbol wins (`!=`, `==`).
 * - Every other run of characters is an identifier (validation happens later, per profile).
 */

export type TokenKind =
  | 'identifier'
  | 'in'
  | 'notin'
  | 'not' // `!`
  | 'eq' // `=`
  | 'deq' // `==`
  | 'neq' // `!=`
  | 'gt'
  | 'lt'
  | 'open'
  | 'close'
  | 'comma'
  | 'end';

export interface Token {
  readonly kind: TokenKind;
  /** The text as written (for `end`, the empty string). */
  readonly text: string;
  /** Offset of the first character in the input. */
  readonly offset: number;
}

const SYMBOLS: Readonly<Record<string, TokenKind>> = Object.freeze({
  __proto__: null,
  '!': 'not',
  '!=': 'neq',
  '=': 'eq',
  '==': 'deq',
  '>': 'gt',
  '<': 'lt',
  '(': 'open',
  ')': 'close',
  ',': 'comma',
} as unknown as Record<string, TokenKind>);

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function isSymbol(ch: string): boolean {
  return (
    ch === '!' || ch === '=' || ch === '(' || ch === ')' || ch === ',' || ch === '<' || ch === '>'
  );
}

/** Cuts `input` into tokens, ending with one `end` token. Never throws. */
export function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = input.length;
  while (i < n) {
    const ch = input[i] as string;
    if (isWhitespace(ch)) {
      i++;
      continue;
    }
    const start = i;
    if (isSymbol(ch)) {
      // Every symbol character is a token on its own; a two-character symbol (`!=`, `==`) wins
      // when it is there, so `=(` is `=` then `(`, and `===` is `==` then `=`.
      const pair = SYMBOLS[input.slice(i, i + 2)];
      const width = pair !== undefined ? 2 : 1;
      const kind = pair ?? (SYMBOLS[ch] as TokenKind);
      tokens.push({ kind, text: input.slice(i, i + width), offset: start });
      i += width;
      continue;
    }
    while (i < n && !isWhitespace(input[i] as string) && !isSymbol(input[i] as string)) i++;
    const text = input.slice(start, i);
    tokens.push({
      kind: text === 'in' ? 'in' : text === 'notin' ? 'notin' : 'identifier',
      text,
      offset: start,
    });
  }
  tokens.push({ kind: 'end', text: '', offset: n });
  return tokens;
}
