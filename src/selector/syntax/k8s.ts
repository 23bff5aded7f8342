/**
 * Parser for Kubernetes label selector strings, compatible with apimachinery's `labels.Parse`.
 *
 * Grammar (whitespace — space, tab, CR, LF — may surround any token):
 *
 *   selector     ::= "" | requirement ( "," requirement )*
 *   requirement  ::= [ "!" ] KEY
 *                  | KEY ( "=" | "==" | "!=" ) [ VALUE ]
 *                  | KEY ( "in" | "notin" ) "(" value-list ")"
 *   value-list   ::= [ VALUE ] ( "," [ VALUE ] )*
 *
 * The traps, each pinned by a test vector:
 * 1. A value may be omitted after `=`, `==`, `!=`: it means the empty value.
 * 2. In a set, empty items are the empty value: `()` is `{""}`, not an empty set, and
 *    `(a,,b)` is `{"", a, b}`. Duplicates collapse.
 * 3. `in` and `notin` are keywords only in operator position: `in in (in)` is valid.
 * 4. `!` only prefixes a bare key: `!x=a` is an error at `=`.
 * 5. Leading, trailing and doubled commas between requirements are errors; so is a missing comma
 *    inside a set.
 * 6. `k>n` and `k<n` are recognised and refused: they cannot be expressed in a LabelSelector
 *    object, and keeping the model to four operators keeps the algebra exact.
 * 7. Blank input is the Everything selector.
 * 8. A NUL byte is refused (`SELECTOR_NUL_BYTE`): apimachinery's lexer treats it as the end of
 *    input at a token start and as a token break inside one, dropping or joining text silently.
 *
 * Errors keep apimachinery's "found …, expected …" wording (the end of input is `found ''`, as
 * there) and add a code and an offset.
 */
import type { Code } from '../../base/codes.js';
import { LabelwiseError } from '../../base/errors.js';
import type { ValidationProfile } from '../labels.js';
import { requirement, requirementProblems, selectorOf } from '../model.js';
import type { KubernetesSpelling, Operator, Requirement, Selector } from '../model.js';
import { lex } from './k8s-lex.js';
import type { Token } from './k8s-lex.js';

/** Options for {@link parseSelector}. */
export interface ParseOptions {
  /**
   * Which key/value rules to enforce (docs/selector.md, "Validation profiles"), or `none` to skip validation.
   * Default: `kubernetes`, as apimachinery does.
   */
  profile?: ValidationProfile | 'none';
}

/** The token as apimachinery quotes it: the end of input is the empty literal, `found ''`. */
function describe(token: Token): string {
  return `'${token.text}'`;
}

const SPELLINGS: Partial<Record<Token['kind'], KubernetesSpelling>> = {
  eq: '=',
  deq: '==',
  neq: '!=',
  in: 'in',
  notin: 'notin',
};

/** A value as written, with the offset of its token (for an omitted value, of what follows). */
interface ValueToken {
  readonly text: string;
  readonly offset: number;
}

class Parser {
  private position = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly profile: ValidationProfile | 'none',
  ) {}

  peek(): Token {
    return this.tokens[this.position] as Token;
  }

  next(): Token {
    const token = this.tokens[this.position] as Token;
    if (token.kind !== 'end') this.position++;
    return token;
  }

  /** Inside a value or key position, the keywords are plain words. */
  static isWord(token: Token): boolean {
    return token.kind === 'identifier' || token.kind === 'in' || token.kind === 'notin';
  }

  fail(code: Code, token: Token, expected: string): never {
    throw new LabelwiseError(code, `found ${describe(token)}, expected: ${expected}`, {
      source: {
        offset: token.offset,
      },
    });
  }

  parseSelector(): Requirement[] {
    const requirements: Requirement[] = [];
    let token = this.peek();
    if (token.kind === 'end') return requirements;
    for (;;) {
      token = this.peek();
      if (!Parser.isWord(token) && token.kind !== 'not') {
        this.fail(
          'SELECTOR_EXPECTED_KEY',
          token,
          requirements.length === 0 ? "!, identifier, or 'end of string'" : "identifier after ','",
        );
      }
      requirements.push(this.parseRequirement());
      const after = this.next();
      if (after.kind === 'end') return requirements;
      if (after.kind !== 'comma')
        this.fail('SELECTOR_EXPECTED_COMMA', after, "',' or 'end of string'");
    }
  }

  parseRequirement(): Requirement {
    const start = this.peek();
    let negated = false;
    if (start.kind === 'not') {
      negated = true;
      this.next();
    }
    const keyToken = this.next();
    if (!Parser.isWord(keyToken)) this.fail('SELECTOR_EXPECTED_KEY', keyToken, 'identifier');
    const key = keyToken.text;
    this.check(keyToken, []);
    const origin = { offset: start.offset };
    const following = this.peek();
    if (following.kind === 'end' || following.kind === 'comma') {
      return requirement(key, negated ? 'DoesNotExist' : 'Exists', [], origin);
    }
    if (negated) {
      // apimachinery reads `!x` as complete and then stumbles on the operator.
      this.fail(
        'SELECTOR_EXPECTED_COMMA',
        following,
        "',' or 'end of string' ('!' only prefixes a bare key)",
      );
    }
    const operatorToken = this.next();
    let operator: Operator;
    let values: ValueToken[];
    const spelling = SPELLINGS[operatorToken.kind];
    switch (operatorToken.kind) {
      case 'eq':
      case 'deq':
      case 'neq':
        operator = operatorToken.kind === 'neq' ? 'NotIn' : 'In';
        values = [this.parseExactValue()];
        break;
      case 'in':
      case 'notin':
        operator = operatorToken.kind === 'in' ? 'In' : 'NotIn';
        values = this.parseValueSet();
        break;
      case 'gt':
      case 'lt':
        throw new LabelwiseError(
          'SELECTOR_UNSUPPORTED_OPERATOR',
          `found '${operatorToken.text}', numeric comparison is not supported: it has no LabelSelector form`,
          {
            source: { offset: operatorToken.offset },
            hint: 'list the accepted values with "in (…)" instead',
          },
        );
      default:
        this.fail('SELECTOR_EXPECTED_OPERATOR', operatorToken, 'in, notin, =, ==, !=');
    }
    this.check(keyToken, values);
    return requirement(
      key,
      operator,
      values.map((value) => value.text),
      spelling === undefined ? origin : { ...origin, spelling },
    );
  }

  /**
   * Validates a requirement as soon as it is read, as apimachinery does, so the error reported
   * is the first one in the input and points at the offending key or value token.
   */
  check(keyToken: Token, values: readonly ValueToken[]): void {
    if (this.profile === 'none') return;
    const texts = values.map((value) => value.text);
    const problems = requirementProblems(keyToken.text, texts, this.profile);
    const first = problems[0];
    if (first === undefined) return;
    // One error for the first offending token, naming every rule it breaks (as apimachinery
    // joins them with "; ").
    const same = problems.filter((p) => p.valueIndex === first.valueIndex && p.code === first.code);
    // Value messages each end with the key they belong to; say it once.
    const suffix = first.valueIndex === undefined ? '' : ` (key ${JSON.stringify(keyToken.text)})`;
    const message =
      same.map((p) => (suffix === '' ? p.message : p.message.replace(suffix, ''))).join('; ') +
      suffix;
    const at = first.valueIndex === undefined ? keyToken : values[first.valueIndex];
    throw new LabelwiseError(first.code, message, { source: { offset: at?.offset ?? 0 } });
  }

  parseExactValue(): ValueToken {
    const token = this.peek();
    if (token.kind === 'end' || token.kind === 'comma') return { text: '', offset: token.offset };
    this.next();
    if (Parser.isWord(token)) return token;
    return this.fail('SELECTOR_EXPECTED_VALUE', token, 'identifier');
  }

  parseValueSet(): ValueToken[] {
    const open = this.next();
    if (open.kind !== 'open') this.fail('SELECTOR_EXPECTED_OPEN_PAREN', open, "'('");
    const values: ValueToken[] = [];
    // Each slot between '(' , ',' and ')' holds one value; an empty slot is the empty value.
    for (;;) {
      const token = this.next();
      if (Parser.isWord(token)) {
        values.push(token);
        const after = this.next();
        if (after.kind === 'close') return values;
        if (after.kind !== 'comma')
          this.fail('SELECTOR_EXPECTED_COMMA_OR_CLOSE', after, "',' or ')'");
        continue;
      }
      if (token.kind === 'comma' || token.kind === 'close') {
        values.push({ text: '', offset: token.offset });
        if (token.kind === 'close') return values;
        continue;
      }
      this.fail('SELECTOR_EXPECTED_VALUE', token, "',', ')' or identifier");
    }
  }
}

/**
 * Parses a Kubernetes selector string (docs/selector.md, "Kubernetes selector strings"). Throws the first problem as a LabelwiseError
 * with a code and the character offset; never throws anything else and runs in linear time.
 * Requirements come back sorted by key (stable), values sorted and de-duplicated.
 */
export function parseSelector(input: string, options: ParseOptions = {}): Selector {
  const nul = input.indexOf('\0');
  if (nul !== -1) {
    // apimachinery's lexer reads a NUL byte as the end of input where a token starts, and as a
    // separator inside one (`a=\0b` is `a=b`), so what follows is dropped or glued on silently.
    throw new LabelwiseError(
      'SELECTOR_NUL_BYTE',
      'found a NUL byte: Kubernetes ends the selector or splits a token there, so it would not mean what it says',
      {
        source: { offset: nul },
        hint: 'remove the NUL byte; nothing after it would reach Kubernetes as written',
      },
    );
  }
  const parser = new Parser(lex(input), options.profile ?? 'kubernetes');
  return selectorOf(parser.parseSelector());
}
