import { boundText } from './bounded.js';
import type { Code } from './codes.js';

/**
 * Where a problem was found. The core fills in `offset` and `path`; loaders add `file`, `line`
 * and `col`; the anchor names the environment variable or label it read.
 */
export interface SourceRef {
  file?: string;
  /** Character offset into a single-expression input (selector strings). */
  offset?: number;
  /** 1-based line. */
  line?: number;
  /** 1-based column. */
  col?: number;
  /** JSON-style path inside a document, e.g. `spec.matchExpressions[1].operator`. */
  path?: string;
  env?: string;
  label?: string;
}

/** `input`: the user's mistake (exit 1). `unavailable`: something needed could not be reached (exit 3). */
export type ErrorKind = 'input' | 'unavailable';

/** What a `LabelwiseError` may say beyond its code and message. */
export interface LabelwiseErrorOptions {
  /** Where the problem is; empty when it is about the whole input. */
  readonly source?: SourceRef;
  /** The obvious fix, where there is one. */
  readonly hint?: string;
  /** `input` (exit 1) unless something needed could not be reached. */
  readonly kind?: ErrorKind;
  /** A concrete example that shows the problem; carried into the diagnostic. */
  readonly witness?: unknown;
}

/**
 * The one error type for user-facing problems. Codes are stable (`MODULE_UPPER_SNAKE`), listed
 * in a module's `codes.ts` (an unlisted code does not compile) and part of the `--json`
 * contract: never rename or reuse one. Anything thrown that is not a LabelwiseError is a bug.
 */
export class LabelwiseError extends Error {
  readonly source: SourceRef;
  readonly hint?: string;
  readonly kind: ErrorKind;
  readonly witness?: unknown;

  constructor(
    readonly code: Code,
    message: string,
    options: LabelwiseErrorOptions = {},
  ) {
    // Input echoed in a message is bounded here, once, for every command and output format.
    super(boundText(message));
    this.name = 'LabelwiseError';
    this.source = options.source ?? {};
    this.hint = options.hint === undefined ? undefined : boundText(options.hint);
    this.kind = options.kind ?? 'input';
    this.witness = options.witness;
  }

  /** A plain object for `--json` output: stable key order, no stack. */
  toJSON(): { code: string; message: string } & SourceRef & { hint?: string } {
    const out: { code: string; message: string } & SourceRef & { hint?: string } = {
      code: this.code,
      message: this.message,
    };
    for (const key of ['file', 'line', 'col', 'offset', 'path', 'env', 'label'] as const) {
      const value = this.source[key];
      if (value !== undefined) (out as unknown as Record<string, unknown>)[key] = value;
    }
    if (this.hint !== undefined) out.hint = this.hint;
    return out;
  }
}

export { quote } from './text.js';

/** The message of anything thrown: an Error's message, anything else as a string. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
