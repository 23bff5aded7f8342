/**
 * The `labelwise` bin. Dispatches `labelwise <group> …` to `cli/<group>.ts`, imported lazily so
 * `labelwise selector parse` never loads dockerode, and maps every outcome to an exit code.
 * The only caller of process.exit.
 *
 * Start-up is part of the contract (`--version` and `selector match` within 1.5× `node -e 0`,
 * bench `start`): this file imports only what every run needs, and the check formats and the
 * error printers load when a run uses them. Import base's files, not its index, here.
 */
import { maxOf } from '../base/arrays.js';
import type { Diagnostic } from '../base/diagnostic.js';
import { LabelwiseError } from '../base/errors.js';
import { requestedFormat } from './requested-format.js';
import type { DocumentFormat } from './requested-format.js';
import { VERSION } from './version.js';
import type { CliIO, CommandGroup } from './io.js';
import { EXIT } from './io.js';

const GROUPS: Readonly<
  Record<string, { summary: string; load: () => Promise<{ run: CommandGroup }> }>
> = {
  build: {
    summary: 'validate and resolve everything a repository holds',
    load: () => import('./build.js'),
  },
  diff: {
    summary: 'what a change does to what reaches what, between two git revisions',
    load: () => import('./diff.js'),
  },
  selector: {
    summary: 'parse, match, explain and compare label selectors',
    load: () => import('./selector.js'),
  },
  fleet: {
    summary: 'resolve and explain a Datum-style fleet repository',
    load: () => import('./fleet.js'),
  },
  catalog: {
    summary: 'render ServiceDefinitions to Kubernetes manifests and check them',
    load: () => import('./catalog.js'),
  },
  policy: {
    summary: 'simulate, lint and compile Linkerd-style inbound route policy',
    load: () => import('./policy.js'),
  },
  anchor: {
    summary: 'run the Docker network anchor, or check a Compose project statically',
    load: () => import('./anchor.js'),
  },
  schema: {
    summary: 'print the JSON Schema of an input file kind, for editors',
    load: () => import('./schema.js'),
  },
};

export { VERSION };

function usage(): string {
  const width = maxOf(Object.keys(GROUPS).map((name) => name.length));
  const lines = Object.entries(GROUPS).map(
    ([name, group]) => `  ${name.padEnd(width)}  ${group.summary}`,
  );
  return [
    'Usage: labelwise <command> [options]',
    '',
    'Label-driven infrastructure: labels classify things, selectors decide what reaches them.',
    '',
    'Commands:',
    ...lines,
    '',
    'Every command takes --help and --json. Exit codes: 0 ok, 1 invalid input or failed check,',
    '2 differences found, 3 could not run, 70 internal error.',
    '',
    'Example:',
    "  labelwise selector match 'tier in (web,api),!canary' --labels 'tier=web' --explain",
    '',
  ].join('\n');
}

function asksHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** Runs the CLI in-process and returns the exit code. Tests call this; the bin calls {@link main}. */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout)(usage());
    return name === undefined ? EXIT.invalid : EXIT.ok;
  }
  if (name === '--version' || name === '-V') {
    io.stdout(`${VERSION}\n`);
    return EXIT.ok;
  }
  const group = Object.prototype.hasOwnProperty.call(GROUPS, name) ? GROUPS[name] : undefined;
  if (group === undefined) {
    io.stderr(`labelwise: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
    return EXIT.invalid;
  }
  // Only a flag before `--` asks for a format; after it, `--json` is an argument.
  const format = requestedFormat(argv);
  try {
    if (name === 'selector' && rest[0] === 'match') {
      const { quickMatch } = await import('./selector-match.js');
      const code = quickMatch(rest.slice(1), io);
      if (code !== undefined) return code;
    }
    const module = await group.load();
    // Only a run that names a check flag needs the SARIF and JUnit writers.
    const check =
      rest.some((a) => a.startsWith('--format') || a.startsWith('--fail-on')) || asksHelp(rest)
        ? await import('./check-output.js')
        : undefined;
    if (check?.isCheck(name, rest)) {
      const { extractCheckFlags, runCheck } = check;
      const flags = extractCheckFlags(rest);
      if (flags.format !== undefined || flags.failOn !== undefined) {
        const checked = [
          'labelwise',
          name,
          rest.find((a) => !a.startsWith('-') && name !== 'build' && name !== 'diff'),
        ]
          .filter(Boolean)
          .join(' ');
        return await runCheck(checked, flags, io, module.run, VERSION);
      }
    }
    const code = await module.run(rest, io);
    if (check?.isCheck(name, rest) === true && asksHelp(rest)) io.stdout(check.CHECK_HELP);
    return code;
  } catch (error) {
    return await reportFailure(error, name, format, io);
  }
}

/** The exit code of a command that threw; the failure printed in the format asked for. */
export async function reportFailure(
  error: unknown,
  name: string,
  format: DocumentFormat | undefined,
  io: CliIO,
): Promise<number> {
  const command = `labelwise ${name}`;
  const [{ diagnosticFromError }, { errorDocument }, { formatError }] = await Promise.all([
    import('../base/diagnostic.js'),
    import('./error-document.js'),
    import('./format-error.js'),
  ]);
  if (error instanceof LabelwiseError) {
    // `error` is the selector commands' documented shape; `diagnostics` the one shape for all.
    if (format !== undefined)
      io.stdout(
        errorDocument(format, diagnosticFromError(error, name), command, VERSION, {
          error: error.toJSON(),
        }),
      );
    else io.stderr(`labelwise ${name}: ${formatError(error)}\n`);
    return error.kind === 'unavailable' ? EXIT.unavailable : EXIT.invalid;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr(`labelwise: internal error, please report it with the command you ran.\n${stack}\n`);
  if (format !== undefined) {
    const message = 'internal error, please report it with the command you ran';
    const diagnostic: Diagnostic = { severity: 'error', code: 'CLI_INTERNAL_ERROR', message };
    io.stdout(errorDocument(format, diagnostic, command, VERSION));
  }
  return EXIT.internal;
}

/** The process entry point used by `bin/labelwise.js`. */
export async function main(argv: readonly string[]): Promise<void> {
  // A reader that goes away early (`labelwise … | head`) is not an error: stop quietly.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(EXIT.ok);
      throw error;
    });
  }
  const io: CliIO = {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
    isTTY: process.stdout.isTTY === true,
  };
  const code = await run(argv, io);
  // Let pending writes drain before exiting (piped stdout is asynchronous).
  process.exitCode = code;
  if (code !== EXIT.ok) await new Promise((resolve) => setImmediate(resolve));
}
