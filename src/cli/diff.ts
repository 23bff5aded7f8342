/**
 * `labelwise diff [REPO] --from REV [--to REV|worktree]`: what a change does to what reaches
 * what. Parses the flags, asks `repo` for the diff (both revisions built from their committed
 * blobs; the work tree, index and refs are never touched) and prints it. Exit 0 with no change,
 * 2 when something changed (like `git diff --exit-code`), 1 when the change introduces errors.
 */
import { resolve } from 'node:path';
import {
  LabelwiseError,
  checkOutputTarget,
  escapeControl,
  toJunit,
  toSarif,
  writeOwnedDirectory,
} from '../base/index.js';
import { diffOutputFiles, renderDiffMarkdown, renderDiffText, runDiff } from '../repo/index.js';
import type { DiffRun, RepoDiff } from '../repo/index.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { VERSION } from './version.js';
import { printJson } from './output.js';
import { createProgram, runProgram } from './program.js';

interface DiffFlags {
  readonly from: string;
  readonly to: string;
  readonly json?: boolean;
  readonly format?: string;
  readonly failOn?: string;
  readonly out?: string;
}

const FORMATS = ['text', 'json', 'markdown', 'sarif', 'junit'] as const;
type DiffFormat = (typeof FORMATS)[number];

const HELP_AFTER = `
Exit code 0 when nothing changed, 2 when something changed, 1 when the change introduces
errors (or warnings, with --fail-on warning), 3 when git cannot be read. With --format json,
sarif or junit an error is still a document of that format on stdout.

Examples:
  labelwise diff examples/homelab --from HEAD~1
  labelwise diff . --from origin/main --to HEAD --format markdown > comment.md
  labelwise diff . --from origin/main --format sarif > labelwise.sarif`;

export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const exit: { code: number } = { code: EXIT.ok };
  const program = createProgram(
    'labelwise diff',
    'What a change does to what reaches what: fleet hosts, rendered manifests and flows, policy reachability and anchor claims, between two revisions.',
    io,
  );
  program
    .argument('[repo]', 'the repository directory inside a git checkout', '.')
    .requiredOption('--from <rev>', 'the revision before the change (branch, tag or commit)')
    .option(
      '--to <rev>',
      'the revision after the change, or `worktree` for the files as they are',
      'worktree',
    )
    .option('--json', 'print the diff as JSON (same as --format json)')
    .option('--out <dir>', 'also write the build of --to with report.html showing this change')
    .option(
      '--format <format>',
      'text, json, markdown (for a pull-request comment), sarif or junit',
      'text',
    )
    .option(
      '--fail-on <severity>',
      'exit 1 when the change introduces diagnostics this severe: error (default) or warning',
      'error',
    )
    .addHelpText('after', HELP_AFTER)
    .action(async (repoArg: string, flags: DiffFlags) => {
      exit.code = await diff(repoArg, flags, io);
    });
  return runProgram(program, args, exit);
}

function checkFlags(flags: DiffFlags): { format: DiffFormat; failOn: 'error' | 'warning' } {
  const format = flags.json === true ? 'json' : flags.format;
  if (!FORMATS.includes(format as DiffFormat))
    throw new LabelwiseError(
      'CLI_USAGE',
      `--format takes ${FORMATS.join(', ')}; got ${JSON.stringify(format)}`,
    );
  if (flags.failOn !== 'error' && flags.failOn !== 'warning')
    throw new LabelwiseError(
      'CLI_USAGE',
      `--fail-on takes error or warning; got ${JSON.stringify(flags.failOn)}`,
    );
  return { format: format as DiffFormat, failOn: flags.failOn };
}

function print(
  io: CliIO,
  format: DiffFormat,
  result: RepoDiff,
  name: string,
  warningsFail: boolean,
): void {
  if (format === 'json') printJson(io, result);
  else if (format === 'markdown') io.stdout(renderDiffMarkdown(result, name));
  else if (format === 'sarif')
    io.stdout(
      `${JSON.stringify(toSarif(result.introduced, { version: VERSION, command: 'labelwise diff' }), null, 2)}\n`,
    );
  else if (format === 'junit')
    io.stdout(toJunit(result.introduced, { name: 'labelwise diff', warningsFail }));
  else io.stdout(renderDiffText(result, escapeControl(name, true)));
}

async function writeOut(out: string, repo: string, run: DiffRun): Promise<void> {
  const options = {
    writer: 'labelwise diff',
    repositories: [repo],
    inputs: run.after.revision === 'worktree' ? (run.after.build?.inputs ?? []) : [],
  };
  await checkOutputTarget(out, options);
  await writeOwnedDirectory(out, diffOutputFiles(run, { out, repo, version: VERSION }), options);
}

async function diff(repoArg: string, flags: DiffFlags, io: CliIO): Promise<number> {
  // Flags are checked before git runs: a typo is a usage error, not a long build first.
  const { format, failOn } = checkFlags(flags);
  const repo = resolve(io.cwd, repoArg);
  const result = await runDiff({ repo, name: repoArg, from: flags.from, to: flags.to });
  if (flags.out !== undefined) await writeOut(resolve(io.cwd, flags.out), repo, result);
  print(io, format, result.result, repoArg, failOn === 'warning');
  const { errors, introduced, changed } = result.result;
  const warnings = introduced.length - errors;
  if (errors > 0 || (failOn === 'warning' && warnings > 0)) return EXIT.invalid;
  return changed ? EXIT.differences : EXIT.ok;
}
