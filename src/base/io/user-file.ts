/**
 * One file the user names on the command line (`--settings`, `--expect`, `--file`,
 * `--labels-file`), read under the same rules as a repository file: the file's directory is
 * opened as a {@link RepoReader}, so there is no special file (a FIFO is never waited on, a device
 * never read for ever), nothing under `/proc`, `/sys` or `/dev`, a link leaving the file's
 * directory is refused, and the size limit holds while reading, not after.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Code } from '../codes.js';
import type { Diagnostic } from '../diagnostic.js';
import { LabelwiseError } from '../errors.js';
import { DEFAULT_MAX_FILE_BYTES, RepoReader, isSystemPath } from './repo-reader.js';

/** Options of {@link readUserFile}. */
export interface UserFileOptions {
  /** The directory a relative path is resolved against. */
  readonly cwd: string;
  /** What the file is, for messages (`settings file`). Default: `file`. */
  readonly what?: string;
  /** Largest file read, in bytes. Default: the reader's limit, 16 MiB. */
  readonly maxBytes?: number;
  /**
   * The codes a command reports its file problems under, when it has its own. Default: the
   * reader's `READ_*` code for each problem.
   */
  readonly codes?: {
    /** A file that may not be read: special, too large, a directory, a system path. */
    readonly invalid: Code;
    /** A file that cannot be read: missing, no permission. */
    readonly unreadable: Code;
  };
}

/** Problems of the file itself, not of the machine: exit 1 rather than 3. */
const INPUT_CODES: ReadonlySet<Code> = new Set<Code>([
  'READ_SYSTEM_PATH',
  'READ_SPECIAL_FILE',
  'READ_IS_A_DIRECTORY',
  'READ_TOO_LARGE',
  'READ_SYMLINK_OUTSIDE',
]);

function refuse(
  path: string,
  options: UserFileOptions,
  problem: { code: Code; message: string; hint?: string | undefined },
): LabelwiseError {
  const input = INPUT_CODES.has(problem.code);
  const code =
    options.codes === undefined
      ? problem.code
      : input
        ? options.codes.invalid
        : options.codes.unreadable;
  return new LabelwiseError(code, problem.message, {
    source: { file: path },
    hint: problem.hint,
    kind: input ? 'input' : 'unavailable',
  });
}

/**
 * The reader's words for a refused file, said of a file the user named rather than of one met
 * in a repository (nothing is skipped: the command stops).
 */
function reason(diagnostic: Diagnostic, what: string, maxBytes: number): string {
  switch (diagnostic.code) {
    case 'READ_TOO_LARGE':
      return `the ${what} is over the limit of ${maxBytes} bytes`;
    case 'READ_SYMLINK_OUTSIDE':
      return `the ${what} is a symbolic link leading out of its directory; name the file it points to`;
    case 'READ_SPECIAL_FILE':
      return `the ${what} is not a regular file (a device, FIFO or socket)`;
    case 'READ_IS_A_DIRECTORY':
      return `the ${what} is a directory`;
    default:
      return diagnostic.message.replace(/^cannot read:/, `cannot read the ${what}:`);
  }
}

/**
 * The UTF-8 text of the file at `path` (a byte-order mark dropped). Throws a one-line
 * {@link LabelwiseError} naming the file when it may not or cannot be read; never reads more than
 * one byte past the limit and never blocks on a FIFO.
 */
export function readUserFile(path: string, options: UserFileOptions): string {
  const absolute = resolve(options.cwd, path);
  let real = absolute;
  try {
    real = realpathSync(absolute);
  } catch {
    // A missing file is reported by the reader below, in its words.
  }
  if (isSystemPath(real))
    throw refuse(path, options, {
      code: 'READ_SYSTEM_PATH',
      message: `refusing to read the ${options.what ?? 'file'}: it lies in ${real.split('/').slice(0, 2).join('/')}, which holds devices and kernel state, not files`,
      hint: 'name a regular file',
    });
  const maxFileBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  let reader: RepoReader;
  try {
    reader = RepoReader.open(dirname(absolute), { maxFileBytes });
  } catch (error) {
    if (!(error instanceof LabelwiseError)) throw error;
    throw refuse(path, options, {
      code: error.code,
      message: `cannot read the ${options.what ?? 'file'}: ${error.message}`,
    });
  }
  const text = reader.readText(basename(absolute));
  if (text !== undefined) return text;
  const problem = reader.diagnostics.find((d) => d.severity === 'error') ?? reader.diagnostics[0];
  throw refuse(
    path,
    options,
    problem === undefined
      ? { code: 'READ_UNREADABLE', message: `cannot read the ${options.what ?? 'file'}` }
      : { code: problem.code, message: reason(problem, options.what ?? 'file', maxFileBytes) },
  );
}

/**
 * A stream (stdin) read to its end as UTF-8, throwing `tooLarge()` as soon as it holds more than
 * `maxBytes`: the limit holds while reading, so a stream that never ends is not read for ever.
 */
export async function readStreamWithin(
  stream: AsyncIterable<Buffer | string>,
  maxBytes: number,
  tooLarge: () => LabelwiseError,
): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += buffer.length;
    if (total > maxBytes) throw tooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
