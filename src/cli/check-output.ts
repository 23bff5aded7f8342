/**
 * `--format sarif|junit` and `--fail-on warning|error` for every command that checks something
 * (build, validate, lint, check; `diff` has its own, with Markdown). Each of those commands prints the one JSON shape with
 * `--json` (docs/errors.md): the formats here are made from that shape, so every check gets
 * SARIF, JUnit XML and the same exit rule without code of its own.
 */
import { LabelwiseError, countDiagnostics, toJunit, toSarif } from '../base/index.js';
import type { Diagnostic } from '../base/index.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';

export type CheckFormat = 'text' | 'json' | 'sarif' | 'junit';
export type FailOn = 'error' | 'warning';

export interface CheckFlags {
  readonly format?: CheckFormat;
  readonly failOn?: FailOn;
  /** The arguments with `--format` and `--fail-on` taken out. */
  readonly args: readonly string[];
}

/** Commands that check and report diagnostics: `group` or `group subcommand`. */
const CHECKS = new Set([
  'build',
  'fleet validate',
  'fleet resolve',
  'catalog check',
  'catalog render',
  'policy lint',
  'anchor check',
]);

function usage(message: string): LabelwiseError {
  return new LabelwiseError('CLI_USAGE', message, { hint: 'see docs/review.md, "Output for CI"' });
}

/** Takes `--format X` and `--fail-on X` out of `args` (only before a `--`). */
export function extractCheckFlags(args: readonly string[]): CheckFlags {
  const end = args.indexOf('--');
  const head = end < 0 ? [...args] : args.slice(0, end);
  const tail = end < 0 ? [] : args.slice(end);
  const out: string[] = [];
  let format: CheckFormat | undefined;
  let failOn: FailOn | undefined;
  for (let i = 0; i < head.length; i++) {
    const arg = head[i] as string;
    const [flag, inline] = arg.includes('=')
      ? (arg.split(/=(.*)/s) as [string, string])
      : [arg, undefined];
    if (flag !== '--format' && flag !== '--fail-on') {
      out.push(arg);
      continue;
    }
    const value = inline ?? head[++i];
    if (flag === '--format') {
      if (value !== 'text' && value !== 'json' && value !== 'sarif' && value !== 'junit')
        throw usage(
          `--format takes text, json, sarif or junit; got ${JSON.stringify(value ?? '')}`,
        );
      format = value;
    } else {
      if (value !== 'error' && value !== 'warning')
        throw usage(`--fail-on takes error or warning; got ${JSON.stringify(value ?? '')}`);
      failOn = value;
    }
  }
  return { format, failOn, args: [...out, ...tail] };
}

/** Appended to the help of every check command: the flags {@link extractCheckFlags} takes. */
export const CHECK_HELP = `
Output for CI (every check command):
  --format <format>     text (default), json, sarif (code scanning) or junit (test reports); an
                        error is still a document of that format on stdout
  --fail-on <severity>  exit 1 on errors (error, the default) or on warnings too (warning)
`;

/** Whether `group args…` names a check command (the only ones that take these flags). */
export function isCheck(group: string, args: readonly string[]): boolean {
  const sub = args.find((a) => !a.startsWith('-'));
  return CHECKS.has(group) || (sub !== undefined && CHECKS.has(`${group} ${sub}`));
}

function withJson(args: readonly string[]): string[] {
  if (args.includes('--json')) return [...args];
  const end = args.indexOf('--');
  return end < 0 ? [...args, '--json'] : [...args.slice(0, end), '--json', ...args.slice(end)];
}

function captureIO(io: CliIO): CliIO & { out: string; err: string } {
  const captured = {
    out: '',
    err: '',
    cwd: io.cwd,
    env: io.env,
    isTTY: false,
    stdout(text: string) {
      captured.out += text;
    },
    stderr(text: string) {
      captured.err += text;
    },
  };
  return captured;
}

/** The diagnostics of a command's `--json` output (the one shape, or a lone `error`). */
function diagnosticsOf(json: unknown): Diagnostic[] {
  if (typeof json !== 'object' || json === null) return [];
  const value = json as { diagnostics?: unknown };
  return Array.isArray(value.diagnostics) ? (value.diagnostics as Diagnostic[]) : [];
}

/** The exit code under `--fail-on`: 2 and 3 stand; otherwise 1 when the threshold is crossed. */
function exitFor(
  code: number,
  diagnostics: readonly Diagnostic[],
  failOn: FailOn | undefined,
): number {
  if (failOn === undefined || code === EXIT.differences || code >= EXIT.unavailable) return code;
  const { errors, warnings } = countDiagnostics(diagnostics);
  const failed = errors > 0 || (failOn === 'warning' && warnings > 0);
  return failed ? EXIT.invalid : EXIT.ok;
}

/**
 * Runs a check command under `--format`/`--fail-on`. SARIF and JUnit are made from the command's
 * `--json` output. In text mode with `--fail-on warning` a command that reports its diagnostics
 * through `io.check` runs once; any other runs once for the reader and once more, silently, for
 * the counts (check commands have no side effects but their own output directory, which a
 * second run rewrites with the same bytes).
 */
export async function runCheck(
  command: string,
  flags: CheckFlags,
  io: CliIO,
  runCommand: (args: readonly string[], io: CliIO) => Promise<number>,
  version: string,
): Promise<number> {
  const format = flags.format ?? (flags.args.includes('--json') ? 'json' : 'text');
  if (format === 'text') {
    let reported: readonly Diagnostic[] | undefined;
    const check = {
      failOn: flags.failOn ?? 'error',
      report: (d: readonly Diagnostic[]) => (reported = d),
    };
    const code = await runCommand(flags.args, { ...io, check });
    if (flags.failOn !== 'warning' || code !== EXIT.ok) return code;
    if (reported !== undefined) return exitFor(code, reported, flags.failOn);
    const silent = captureIO(io);
    await runCommand(withJson(flags.args), silent);
    return exitFor(code, diagnosticsOf(JSON.parse(silent.out || 'null')), flags.failOn);
  }
  const captured = captureIO(io);
  const code = await runCommand(withJson(flags.args), captured);
  if (captured.err !== '') io.stderr(captured.err);
  let json: unknown;
  try {
    json = JSON.parse(captured.out);
  } catch {
    io.stdout(captured.out);
    return code;
  }
  const diagnostics = diagnosticsOf(json);
  if (format === 'json') io.stdout(captured.out);
  else if (format === 'sarif')
    io.stdout(`${JSON.stringify(toSarif(diagnostics, { version, command }), null, 2)}\n`);
  else io.stdout(toJunit(diagnostics, { name: command, warningsFail: flags.failOn === 'warning' }));
  return exitFor(code, diagnostics, flags.failOn);
}
