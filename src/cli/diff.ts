/**
 * `labelwise diff [REPO] --from REV [--to REV|worktree]`: what a change does to what reaches
 * what. Builds both revisions (read from git into temporary folders; the work tree, index and
 * refs are never touched) and compares them module by module. Exit 0 with no change, 2 when
 * something changed (like `git diff --exit-code`), 1 when the change introduces errors.
 */
import { realpathSync } from 'node:fs';
import { basename, relative, resolve, sep } from 'node:path';
import {
  LabelwiseError,
  checkOutputTarget,
  escapeControl,
  toSarif,
  writeOwnedDirectory,
} from '../base/index.js';
import {
  compareBuilds,
  renderDiffMarkdown,
  renderDiffText,
  renderReportPages,
  reportData,
  runBuild,
} from '../repo/index.js';
import type { BuildRun, RepoDiff, Side } from '../repo/index.js';
import {
  currentRevision,
  gitLocation,
  resolveRevision,
  snapshot,
} from '../repo/io/git-snapshot.js';
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

/** A build of one side, or undefined when that revision holds nothing to build. */
async function buildSide(
  dir: string,
  name: string,
  rootName?: string,
): Promise<BuildRun | undefined> {
  try {
    return await runBuild({ repo: dir, name, ...(rootName !== undefined ? { rootName } : {}) });
  } catch (error) {
    if (error instanceof LabelwiseError && error.code === 'BUILD_NOTHING_FOUND') return undefined;
    throw error;
  }
}

async function side(repo: string, name: string, revision: string): Promise<Side> {
  if (revision === 'worktree') return { revision, build: await buildSide(repo, name) };
  const { top, prefix } = gitLocation(repo);
  const commit = resolveRevision(top, revision);
  const snap = await snapshot(top, prefix, commit);
  try {
    // The snapshot lies in a temporary folder: name what it holds as the repository is named.
    return {
      revision,
      commit,
      build: await buildSide(snap.dir, name, basename(realpathSync(repo))),
    };
  } finally {
    snap.cleanup();
  }
}

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
    .option('--json', 'print the diff as JSON')
    .option('--out <dir>', 'also write the build of --to with report.html showing this change')
    .option(
      '--format <format>',
      'text, json, markdown (for a pull-request comment) or sarif',
      'text',
    )
    .option(
      '--fail-on <severity>',
      'exit 1 when the change introduces diagnostics this severe: error (default) or warning',
      'error',
    )
    .addHelpText(
      'after',
      '\nExit code 0 when nothing changed, 2 when something changed, 1 when the change introduces\nerrors, 3 when git cannot be read.\n\nExamples:\n  labelwise diff examples/homelab --from HEAD~1\n  labelwise diff . --from origin/main --to HEAD --format markdown > comment.md',
    )
    .action(async (repoArg: string, flags: DiffFlags) => {
      exit.code = await diff(repoArg, flags, io);
    });
  return runProgram(program, args, exit);
}

/** The build of `--to` with its report, whose first section is the change. */
async function writeDiffReport(
  out: string,
  repo: string,
  after: Side,
  result: RepoDiff,
): Promise<void> {
  const options = {
    writer: 'labelwise diff',
    repositories: [repo],
    inputs: after.revision === 'worktree' ? (after.build?.inputs ?? []) : [],
  };
  await checkOutputTarget(out, options);
  const build = after.build;
  const files: Record<string, string> = {
    ...(build?.files ?? {}),
    'diff.json': `${JSON.stringify(result, null, 2)}\n`,
  };
  if (build !== undefined) {
    files['report.json'] = `${JSON.stringify(build.report, null, 2)}\n`;
    Object.assign(
      files,
      renderReportPages(build.report, reportData(build.runs), {
        files: build.files,
        version: VERSION,
        revision: after.commit?.slice(0, 12) ?? currentRevision(repo),
        linkBase: `${relative(out, repo).split(sep).join('/')}/`,
        diff: result,
      }),
    );
  }
  await writeOwnedDirectory(out, files, options);
}

async function diff(repoArg: string, flags: DiffFlags, io: CliIO): Promise<number> {
  const format = flags.json === true ? 'json' : flags.format;
  if (!['text', 'json', 'markdown', 'sarif'].includes(format ?? ''))
    throw new LabelwiseError(
      'CLI_USAGE',
      `--format takes text, json, markdown or sarif; got ${JSON.stringify(format)}`,
    );
  const repo = resolve(io.cwd, repoArg);
  const name = repoArg;
  const before = await side(repo, name, flags.from);
  const after = await side(repo, name, flags.to);
  const result = compareBuilds(before, after);
  if (flags.out !== undefined)
    await writeDiffReport(resolve(io.cwd, flags.out), repo, after, result);
  if (format === 'json') printJson(io, result);
  else if (format === 'markdown') io.stdout(renderDiffMarkdown(result, name));
  else if (format === 'sarif')
    io.stdout(
      `${JSON.stringify(toSarif(result.introduced, { version: VERSION, command: 'labelwise diff' }), null, 2)}\n`,
    );
  else io.stdout(renderDiffText(result, escapeControl(name, true)));
  if (flags.failOn !== 'error' && flags.failOn !== 'warning')
    throw new LabelwiseError(
      'CLI_USAGE',
      `--fail-on takes error or warning; got ${JSON.stringify(flags.failOn)}`,
    );
  const warnings = result.introduced.length - result.errors;
  if (result.errors > 0 || (flags.failOn === 'warning' && warnings > 0)) return EXIT.invalid;
  return result.changed ? EXIT.differences : EXIT.ok;
}
