/**
 * Compose variable interpolation, as the Compose specification ("Interpolation") and compose-go's
 * `template` package define it. Pure.
 *
 * Grammar (inside any string value):
 *
 *   $$                  a literal `$`
 *   $NAME               the variable's value; unset → "" and a warning
 *   ${NAME}             the same
 *   ${NAME:-default}    default when NAME is unset or empty
 *   ${NAME-default}     default when NAME is unset
 *   ${NAME:?message}    error when NAME is unset or empty
 *   ${NAME?message}     error when NAME is unset
 *   ${NAME:+replace}    `replace` when NAME is set and not empty, else ""
 *   ${NAME+replace}     `replace` when NAME is set, else ""
 *
 * NAME is `[A-Za-z_][A-Za-z0-9_]*`. Defaults, replacements and messages are templates themselves
 * (`${A:-${B:-x}}`), evaluated only when used, so an unset variable in an unused branch does not
 * warn. A `$` before anything else is kept literally (`a $ string`, `^REGEX$`); `${` without a
 * closing brace, `${}`, `${ x}` and `${x!}` are invalid.
 */

/** A problem met while interpolating one value. */
export interface InterpolationProblem {
  readonly severity: 'error' | 'warning';
  readonly kind: 'unset' | 'required' | 'invalid';
  readonly message: string;
}

export interface InterpolationResult {
  readonly text: string;
  /** Warnings for unset variables, and at most one error (interpolation stops there). */
  readonly problems: readonly InterpolationProblem[];
}

/** Looks a variable up; undefined when it is unset (the empty string is a value). */
export type Lookup = (name: string) => string | undefined;

const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;

class TemplateError extends Error {
  constructor(readonly problem: InterpolationProblem) {
    super(problem.message);
  }
}

/** Index of the `}` closing a `${` whose body starts at `from`, or -1. Nested `${…}` count. */
function closingBrace(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    const char = text[i];
    if (char === '$' && (text[i + 1] === '{' || text[i + 1] === '$')) {
      if (text[i + 1] === '{') depth++;
      i++;
      continue;
    }
    if (char === '}' && --depth === 0) return i;
  }
  return -1;
}

function evaluate(text: string, lookup: Lookup, warnings: InterpolationProblem[]): string {
  let out = '';
  let i = 0;
  const invalid = (): never => {
    throw new TemplateError({
      severity: 'error',
      kind: 'invalid',
      message: `invalid interpolation format in ${JSON.stringify(text)}; write a literal "$" as "$$"`,
    });
  };
  while (i < text.length) {
    const char = text[i] as string;
    if (char !== '$') {
      out += char;
      i++;
      continue;
    }
    const next = text[i + 1];
    if (next === '$') {
      out += '$';
      i += 2;
    } else if (next === '{') {
      const end = closingBrace(text, i + 2);
      if (end < 0) invalid();
      out += braced(text.slice(i + 2, end), lookup, warnings, invalid);
      i = end + 1;
    } else if (next !== undefined && NAME_START.test(next)) {
      let j = i + 1;
      while (j < text.length && NAME_CHAR.test(text[j] as string)) j++;
      out += plain(text.slice(i + 1, j), lookup, warnings);
      i = j;
    } else {
      out += '$';
      i++;
    }
  }
  return out;
}

function plain(name: string, lookup: Lookup, warnings: InterpolationProblem[]): string {
  const value = lookup(name);
  if (value === undefined)
    warnings.push({
      severity: 'warning',
      kind: 'unset',
      message: `variable ${name} is not set; using an empty string`,
    });
  return value ?? '';
}

const OPERATORS = [':-', ':?', ':+', '-', '?', '+'] as const;

function braced(
  body: string,
  lookup: Lookup,
  warnings: InterpolationProblem[],
  invalid: () => never,
): string {
  let n = 0;
  if (body.length === 0 || !NAME_START.test(body[0] as string)) invalid();
  while (n < body.length && NAME_CHAR.test(body[n] as string)) n++;
  const name = body.slice(0, n);
  const rest = body.slice(n);
  if (rest === '') return plain(name, lookup, warnings);
  const op = OPERATORS.find((o) => rest.startsWith(o));
  if (op === undefined) return invalid();
  const arg = rest.slice(op.length);
  const value = lookup(name);
  // `:` makes the empty value count as missing.
  const missing = op.startsWith(':') ? value === undefined || value === '' : value === undefined;
  const sub = (): string => evaluate(arg, lookup, warnings);
  switch (op) {
    case ':-':
    case '-':
      return missing ? sub() : (value as string);
    case ':+':
    case '+':
      return missing ? '' : sub();
    default: {
      if (!missing) return value as string;
      const message = sub();
      throw new TemplateError({
        severity: 'error',
        kind: 'required',
        message: `required variable ${name} is missing a value${message === '' ? '' : `: ${message}`}`,
      });
    }
  }
}

/**
 * Interpolates one string value. Never throws: an invalid template or a missing required
 * variable comes back as an error problem (with the text as far as it could be read).
 */
export function interpolate(text: string, lookup: Lookup): InterpolationResult {
  if (!text.includes('$')) return { text, problems: [] };
  const warnings: InterpolationProblem[] = [];
  try {
    return { text: evaluate(text, lookup, warnings), problems: warnings };
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    return { text: '', problems: [...warnings, error.problem] };
  }
}

/** A lookup over a plain record (own keys only: `__proto__` is an ordinary name). */
export function lookupIn(variables: Readonly<Record<string, string | undefined>>): Lookup {
  return (name) => {
    if (!Object.prototype.hasOwnProperty.call(variables, name)) return undefined;
    const value = variables[name];
    return typeof value === 'string' ? value : undefined;
  };
}
