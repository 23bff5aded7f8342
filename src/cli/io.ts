import type { Diagnostic } from '../base/index.js';

/**
 * What a command may touch of the outside world. `main.ts` wires it to the process; tests pass
 * their own to capture output in-process.
 */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Directory relative paths are resolved against. */
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether stdout is a terminal (colour and progress lines only then). */
  readonly isTTY: boolean;
  /**
   * Set by `--fail-on` around a check command in text mode: a command that reports its
   * diagnostics here (and words its verdict by `failOn`) is run once, not twice.
   */
  readonly check?: CheckHook;
}

export interface CheckHook {
  readonly failOn: 'error' | 'warning';
  report(diagnostics: readonly Diagnostic[]): void;
}

/** A command group's entry point: `labelwise <group> …args`. Returns the exit code. */
export type CommandGroup = (args: readonly string[], io: CliIO) => Promise<number>;

/** Exit codes (DESIGN.md, CLI contract). */
export const EXIT = Object.freeze({
  ok: 0,
  /** Invalid input or a failed check. */
  invalid: 1,
  /** A check found differences (golden / --check modes). */
  differences: 2,
  /** Could not run: missing Docker, unreadable file. */
  unavailable: 3,
  /** A bug. */
  internal: 70,
});

/** Collects output in memory; for tests. */
export function memoryIO(options: Partial<Pick<CliIO, 'cwd' | 'env' | 'isTTY'>> = {}): CliIO & {
  out: string;
  err: string;
} {
  const io = {
    out: '',
    err: '',
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? {},
    isTTY: options.isTTY ?? false,
    stdout(text: string) {
      io.out += text;
    },
    stderr(text: string) {
      io.err += text;
    },
  };
  return io;
}
