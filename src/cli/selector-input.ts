/**
 * Where `labelwise selector` reads its inputs (an argument, a file through the shared reader, or
 * stdin) and how it reports a user error against them: the shared diagnostic layout, the
 * offending line with a caret, and the `--json` shape with `diagnostics`, `errors`, `warnings`.
 */
// base's files, not its index: `selector match` starts within 1.5× node (see main.ts).
import { diagnosticFromError, diagnosticsJson, formatDiagnostic } from '../base/diagnostic.js';
import type { Diagnostic } from '../base/diagnostic.js';
import { LabelwiseError } from '../base/errors.js';
import { DEFAULT_MAX_FILE_BYTES } from '../base/io/repo-reader.js';
import { readStreamWithin, readUserFile } from '../base/io/user-file.js';
import { escapeControl, excerptLine } from '../base/text.js';
import { parseLabelJson, parseLabelList } from '../selector/index.js';
import type { Labels } from '../selector/index.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { printJson } from './output.js';

/** What a test may hand in for stdin; the bin reads the process's own. */
export type SelectorIO = CliIO & {
  readonly stdin?: () => Promise<string>;
  readonly stdinIsTTY?: boolean;
};

/** One input text and where it came from: a file (or `<stdin>`) or a command-line argument. */
export interface Input {
  readonly text: string;
  /** The file as the user named it, `<stdin>`, or undefined for an argument. */
  readonly file?: string;
}

/** Stdin has the same limit as a file. */
const MAX_INPUT_BYTES = DEFAULT_MAX_FILE_BYTES;

function tooLarge(): LabelwiseError {
  return new LabelwiseError(
    'SELECTOR_INPUT_TOO_LARGE',
    `stdin holds more than the limit of ${MAX_INPUT_BYTES} bytes`,
    { source: { file: '<stdin>' } },
  );
}

/** Reads stdin to the end, refusing a terminal (it would wait for typing) and oversized input. */
async function readStdin(io: SelectorIO): Promise<string> {
  if (io.stdinIsTTY ?? process.stdin.isTTY) {
    throw new LabelwiseError(
      'SELECTOR_STDIN_IS_TERMINAL',
      "'-' reads from stdin, but stdin is a terminal",
      {
        source: { file: '<stdin>' },
        hint: "pipe the input in: echo 'app=web' | labelwise selector parse -",
      },
    );
  }
  if (io.stdin !== undefined) {
    const text = await io.stdin();
    if (Buffer.byteLength(text) > MAX_INPUT_BYTES) throw tooLarge();
    return text;
  }
  return readStreamWithin(process.stdin, MAX_INPUT_BYTES, tooLarge);
}

/** One trailing line break is the file's, not the selector's. */
function dropFinalNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}

/**
 * Reads `name` as the user gave it: `-` is stdin (once per command), anything else the text
 * itself (`fromFile` false) or a file to read.
 */
async function readInput(
  name: string,
  fromFile: boolean,
  io: SelectorIO,
  stdin: { used: boolean },
): Promise<Input> {
  if (name === '-') {
    if (stdin.used)
      throw new LabelwiseError('CLI_USAGE', "stdin ('-') can be read only once per command");
    stdin.used = true;
    return { text: dropFinalNewline(await readStdin(io)), file: '<stdin>' };
  }
  if (!fromFile) return { text: name };
  return { text: dropFinalNewline(readUserFile(name, { cwd: io.cwd })), file: name };
}

/** The selectors of a command: `--file` inputs first, then the arguments, `count` in all. */
export async function readSelectorInputs(
  args: readonly (string | undefined)[],
  files: readonly string[],
  count: number,
  io: SelectorIO,
  stdin: { used: boolean },
): Promise<Input[]> {
  const given = args.filter((a): a is string => a !== undefined);
  if (files.length + given.length !== count) {
    throw new LabelwiseError(
      'CLI_USAGE',
      `give ${count === 1 ? 'one selector' : `${count} selectors`}: as ${count === 1 ? 'an argument' : 'arguments'}, '-' for stdin, or --file PATH`,
    );
  }
  const inputs: Input[] = [];
  for (const file of files) inputs.push(await readInput(file, true, io, stdin));
  for (const arg of given) inputs.push(await readInput(arg, false, io, stdin));
  return inputs;
}

/** 1-based line and column of `offset` in `text`. */
function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < Math.min(offset, text.length); i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/** The error as the shared diagnostic, located in its input (file, line, column). */
function locate(error: LabelwiseError, input: Input | undefined): Diagnostic {
  const d = diagnosticFromError(error, 'selector');
  const offset = error.source.offset;
  if (input?.file === undefined) return d;
  const at = offset === undefined ? {} : position(input.text, offset);
  return { ...d, file: input.file, ...at };
}

/** The offending line of the input with a caret under the offset (escaped, one line only). */
function caret(error: LabelwiseError, input: Input | undefined): string {
  const offset = error.source.offset;
  if (input === undefined || offset === undefined) return '';
  const { line, column } = position(input.text, offset);
  const excerpt = excerptLine(input.text, line);
  if (excerpt === undefined) return '';
  // The caret counts characters as printed: escapes before the column widen the line.
  const lineStart = offset - (column - 1);
  const before = escapeControl(input.text.slice(lineStart, offset), true);
  if (before.length > excerpt.length) return '';
  return `\n  ${excerpt}\n  ${' '.repeat(before.length)}^`;
}

/** An error already printed for the user; only the exit code remains to be set. */
export class ReportedError extends Error {
  constructor(readonly exitCode: number) {
    super('reported');
  }
}

/**
 * Reports a user error in the shared shapes: under --json `{error, diagnostics, errors,
 * warnings}` on stdout; otherwise the diagnostic line on stderr, then the offending input line
 * with a caret, then the hint.
 */
export function report(
  error: LabelwiseError,
  input: Input | undefined,
  json: boolean,
  io: CliIO,
): never {
  const diagnostic = locate(error, input);
  if (json) {
    printJson(io, { error: error.toJSON(), ...diagnosticsJson([diagnostic]) });
  } else {
    const [line, ...hint] = formatDiagnostic(diagnostic).split('\n');
    io.stderr(
      `labelwise selector: ${line}${caret(error, input)}${hint.map((h) => `\n${h}`).join('')}\n`,
    );
  }
  throw new ReportedError(error.kind === 'unavailable' ? EXIT.unavailable : EXIT.invalid);
}

/** Runs `fn`, reporting a LabelwiseError against `input`. */
export function within<T>(input: Input | undefined, json: boolean, io: CliIO, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof LabelwiseError) report(error, input, json, io);
    throw error;
  }
}

export interface LabelFlags {
  labels?: string;
  labelsJson?: string;
  labelsFile?: string;
  labelsJsonFile?: string;
  json?: boolean;
}

/**
 * Reads the label set from exactly one of `--labels`, `--labels-json`, `--labels-file` and
 * `--labels-json-file`; a file may be `-` for stdin. In a labels file, line breaks separate
 * items as commas do.
 */
export async function readLabels(
  flags: LabelFlags,
  io: SelectorIO,
  stdin: { used: boolean },
): Promise<Labels> {
  const given = [flags.labels, flags.labelsJson, flags.labelsFile, flags.labelsJsonFile].filter(
    (v) => v !== undefined,
  );
  if (given.length !== 1) {
    throw new LabelwiseError(
      'CLI_USAGE',
      'give the label set with exactly one of --labels, --labels-json, --labels-file or --labels-json-file',
    );
  }
  const json = flags.labelsJson !== undefined || flags.labelsJsonFile !== undefined;
  const fromFile = flags.labelsFile !== undefined || flags.labelsJsonFile !== undefined;
  const input = await readInput(given[0] as string, fromFile, io, stdin);
  return within(input, flags.json === true, io, () => {
    if (json) return parseLabelJson(input.text);
    // A file's lines are items; keep offsets (one character each way) for the caret.
    const text = fromFile ? input.text.replace(/\r?\n/g, ',') : input.text;
    return parseLabelList(text);
  });
}
