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

/**
 * Why a text value is unacceptable, or undefined. Rejects NUL, control characters other than
 * tab and newline, and bidi overrides (invalid UTF-8 is rejected when the file is decoded).
 */
export function textProblem(text: string): string | undefined {
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
