import { Command, CommanderError } from 'commander';
import type { OutputConfiguration } from 'commander';
import { errorDocument } from './error-document.js';
import { requestedFormat } from './requested-format.js';
import { VERSION } from './version.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';

/**
 * Where commander writes, at a fixed help width: help text is the same on every terminal, so
 * `docs/cli.md` can be generated from it and checked.
 */
function outputFor(io: CliIO): OutputConfiguration {
  return {
    writeOut: (text) => io.stdout(text),
    writeErr: (text) => io.stderr(text),
    getOutHelpWidth: () => HELP_WIDTH,
    getErrHelpWidth: () => HELP_WIDTH,
  };
}

const HELP_WIDTH = 100;

/**
 * A commander program wired to `io` that never calls process.exit: parse errors and `--help`
 * come back as exit codes from {@link runProgram}. Each call builds a fresh program, so tests can
 * run many commands in one process.
 */
export function createProgram(name: string, description: string, io: CliIO): Command {
  return configureSubcommand(new Command(name).description(description), io);
}

/** Commander's collector for a repeatable option (`--header a --header b`): every value, in order. */
export function repeatable(value: string, previous: readonly string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Applies {@link createProgram}'s settings to a subcommand (commander does not inherit them all). */
export function configureSubcommand(command: Command, io: CliIO): Command {
  return command
    .exitOverride()
    .configureOutput(outputFor(io))
    .showHelpAfterError('(run with --help for usage)')
    .allowExcessArguments(false);
}

/**
 * Runs a program over `args` (without the group name). Actions report their exit code by
 * returning it through `setExit`; a usage error is exit 1, `--help` exit 0.
 */
export async function runProgram(
  program: Command,
  args: readonly string[],
  exit: { code: number },
): Promise<number> {
  try {
    await program.parseAsync([...args], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version')
        return EXIT.ok;
      // `help` asked for is exit 0; a group run with no command prints the usage and exits 1.
      if (error.code === 'commander.help') return error.exitCode === 0 ? EXIT.ok : EXIT.invalid;
      // Under --json (or --format sarif|junit) a usage error is a document of that format
      // too, so scripts never parse text and an uploaded report is never empty.
      const format = requestedFormat(args);
      if (format !== undefined) {
        const message = error.message.replace(/^error: /, '');
        const diagnostic = { severity: 'error', code: 'CLI_USAGE', message } as const;
        program
          .configureOutput()
          .writeOut?.(errorDocument(format, diagnostic, program.name(), VERSION));
      }
      return EXIT.invalid;
    }
    throw error;
  }
  return exit.code;
}
