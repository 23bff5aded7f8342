/**
 * Text that reaches a terminal, a report or a log. Input files are hostile: a label, a path or a
 * YAML key can hold escape sequences that would repaint the user's terminal, so every text
 * output goes through {@link escapeControl}. Ordering is by code point, never by locale, so the
 * same input gives the same bytes on every machine.
 */

// C0 controls except tab and newline, DEL, C1 controls, the line/paragraph separators some
// terminals and viewers treat as line breaks, and the invisible characters that reorder or hide
// text (bidi embeddings, overrides and isolates, zero-width spaces and joiners, marks, the BOM):
// `policy/ok\u202e.yaml` must not read as another name in a terminal or a pull-request comment.
const CONTROL =
  // eslint-disable-next-line no-control-regex -- matching them is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\u2028\u2029]/g;
const CONTROL_OR_BREAK =
  // eslint-disable-next-line no-control-regex -- as above, with tab and newline
  /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\u2028\u2029]/g;

function escapeOne(char: string): string {
  const code = char.charCodeAt(0);
  if (char === '\n') return '\\n';
  if (char === '\t') return '\\t';
  if (char === '\r') return '\\r';
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Replaces control characters with visible escapes (`\x1b`, `\u2028`). Tabs and newlines are
 * kept unless `singleLine` is set, in which case they are escaped too: use that for anything that
 * must stay on one line (a path, a label, a field name in a message).
 */
export function escapeControl(text: string, singleLine = false): string {
  return text.replace(singleLine ? CONTROL_OR_BREAK : CONTROL, escapeOne);
}

/**
 * A file name as bytes (it need not be UTF-8), readable and safe: valid UTF-8 is decoded and
 * passed through {@link escapeControl}, every other byte is shown as `\xNN`.
 */
export function escapeBytes(bytes: Uint8Array): string {
  let out = '';
  let at = 0;
  while (at < bytes.length) {
    const length = utf8Length(bytes, at);
    if (length === 0) {
      out += `\\x${(bytes[at] as number).toString(16).padStart(2, '0')}`;
      at += 1;
    } else {
      out += escapeControl(Buffer.from(bytes.subarray(at, at + length)).toString('utf8'), true);
      at += length;
    }
  }
  return out;
}

/** The length of the well-formed UTF-8 sequence starting at `at`, or 0 when there is none. */
function utf8Length(bytes: Uint8Array, at: number): number {
  const lead = bytes[at] as number;
  if (lead < 0x80) return 1;
  const length = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : 0;
  const size = length === 0 && lead >= 0xf0 && lead <= 0xf4 ? 4 : length;
  if (size === 0 || at + size > bytes.length) return 0;
  for (let i = 1; i < size; i++) if (((bytes[at + i] as number) & 0xc0) !== 0x80) return 0;
  const second = bytes[at + 1] as number;
  // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
  if (lead === 0xe0 && second < 0xa0) return 0;
  if (lead === 0xed && second > 0x9f) return 0;
  if (lead === 0xf0 && second < 0x90) return 0;
  if (lead === 0xf4 && second > 0x8f) return 0;
  return size;
}

/** True when `text` holds a character {@link escapeControl} would replace on one line. */
export function hasControl(text: string): boolean {
  CONTROL_OR_BREAK.lastIndex = 0;
  return CONTROL_OR_BREAK.test(text);
}

/**
 * Compares two strings by Unicode code point. `localeCompare` and `Intl.Collator` depend on the
 * machine's locale (`sv_SE` sorts `w` with `v`, `tr_TR` has a dotless i); this never does.
 */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  // UTF-16 order equals code point order except around surrogates; compare by code point.
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i) as number;
    const y = b.codePointAt(i) as number;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length - b.length < 0 ? -1 : a.length === b.length ? 0 : 1;
}

const GO_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};
/** Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const GO_PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * Quotes a value the way Go's `%q` (`strconv.Quote`) does, so messages that repeat anchord's
 * words read the same: `"a\x01"` for an ASCII control, `"\u00a0"` or `"\u2028"` for other
 * characters that do not print, the usual `\n`, `\t`, `\"`, `\\` escapes, printable Unicode as it is.
 */
export function quote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const named = GO_ESCAPES[ch];
    if (named !== undefined) out += named;
    else if (GO_PRINTABLE.test(ch)) out += ch;
    else {
      const cp = ch.codePointAt(0) as number;
      out +=
        cp < 0x80
          ? `\\x${cp.toString(16).padStart(2, '0')}`
          : cp <= 0xffff
            ? `\\u${cp.toString(16).padStart(4, '0')}`
            : `\\U${cp.toString(16).padStart(8, '0')}`;
    }
  }
  return `${out}"`;
}

/**
 * One line of a file for an error message: at most `max` characters, escaped. Errors about a
 * file quote at most the offending line, never the file's contents.
 */
export function excerptLine(text: string, line: number, max = 120): string | undefined {
  if (line < 1) return undefined;
  let start = 0;
  for (let n = 1; n < line; n++) {
    const next = text.indexOf('\n', start);
    if (next < 0) return undefined;
    start = next + 1;
  }
  let end = text.indexOf('\n', start);
  if (end < 0) end = text.length;
  const raw = text.slice(start, Math.min(end, start + max)).replace(/\r$/, '');
  return escapeControl(raw, true) + (end - start > max ? '…' : '');
}
