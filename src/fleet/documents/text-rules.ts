/** Rules for names and text values written in fleet documents (spec: Documents). */

const NAME = /^[A-Za-z0-9.\-_+]{1,256}$/;

/** A Datum name: 1–256 letters, digits, `.`, `-`, `_` or `+`. */
export function isValidName(text: string): boolean {
  return NAME.test(text);
}

export const NAME_RULE = "1-256 letters, digits, '.', '-', '_' or '+'";

// C0 controls except tab (09) and newline (0A), DEL and C1 controls, and the bidi embedding,
// override and isolate characters that make text display differently from what it is.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

// A surrogate without its pair: what a YAML `"\ud800"` escape yields. It has no UTF-8 form, so
// writing it anywhere would silently turn it into U+FFFD; it is invalid UTF-8 by another route.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a text value is unacceptable, or undefined. Rejects NUL, control characters other than
 * tab and newline, bidi overrides, and unpaired surrogates from escapes (invalid UTF-8 bytes are
 * rejected when the file is decoded).
 */
export function textProblem(text: string): string | undefined {
  const lone = LONE_SURROGATE.exec(text);
  if (lone !== null)
    return `contains an unpaired surrogate U+${(lone[0].codePointAt(0) as number).toString(16).toUpperCase()}, which is not valid UTF-8 text`;
  const found = FORBIDDEN.exec(text);
  if (found === null) return undefined;
  const code = (found[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');
  if (code === '0000') return 'contains a NUL character';
  if (found[0] >= '\u202A') return `contains the bidirectional control character U+${code}`;
  return `contains the control character U+${code}`;
}

/** Parses `Type[name]`; undefined when malformed. */
export function parseRef(text: string): { type: string; name: string } | undefined {
  const match = /^([A-Za-z]+)\[([^\]]+)\]$/.exec(text);
  if (match === null) return undefined;
  return { type: match[1] as string, name: match[2] as string };
}
