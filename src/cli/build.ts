/**
 * `labelwise build [REPO] [--out DIR] [--json]`: validates and resolves everything a repository
 * holds in one pass, writes the outputs and a report, and prints a summary.
 */
import { existsSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import {
  LabelwiseError,
  checkOutputTarget,
  compareText,
  countDiagnostics,
  escapeControl,
  formatDiagnostic,
  writeOwnedDirectory,
} from '../base/index.js';
import type { ModuleName, OwnedWriteOptions } from '../base/index.js';
import { buildOutputFiles, inputFolders, parseModuleList, runBuild } from '../repo/index.js';
import type { BuildReport, StageRun } from '../repo/index.js';
import { VERSION } from './version.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { paint, printJson, renderTable } from './output.js';
import { createProgram, runProgram } from './program.js';

function display(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
}

function summaryTable(run: StageRun, io: CliIO): string {
  const { errors, warnings } = countDiagnostics(run.result.diagnostics);
  const rows: string[][] = [['FOUND', 'COUNT']];
  for (const key of Object.keys(run.result.counts).sort(compareText)) {
    // The table's own errors/warnings rows count findings; skip a stage's duplicates.
    if (key !== 'errors' && key !== 'warnings') rows.push([key, String(run.result.counts[key])]);
  }
  rows.push(['errors', errors > 0 ? paint(io, 'red', String(errors)) : '0']);
  rows.push(['warnings', warnings > 0 ? paint(io, 'yellow', String(warnings)) : '0']);
  rows.push(['time', `${run.ms < 10 ? run.ms.toFixed(1) : Math.round(run.ms)} ms`]);
  return `${paint(io, 'bold', run.module)} (${escapeControl(run.input, true)})\n${renderTable(rows).replace(/^/gm, '  ').trimEnd()}\n`;
}

export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const exit: { code: number } = { code: EXIT.ok };
  const program = createProgram(
    'labelwise build',
    'Validate and resolve everything a repository holds: fleet, catalog, policy and anchors.',
    io,
  );
  program
    .argument('[repo]', 'the repository (default: the current directory)')
    .option('--out <dir>', 'where to write manifests and the report', 'out')
    .option('--json', 'print the report as JSON instead of the summary')
    .option(
      '--only <modules>',
      'build only these parts, comma-separated: fleet,catalog,policy,anchor',
    )
    .option('--skip <modules>', 'build every part but these, comma-separated')
    .addHelpText(
      'after',
      '\nWrites fleet/<host>.json, apps/, policy/compiled.json, anchors.json, report.json and report.html\nunder --out. Exit code 1 when any part has an error.\n\nExamples:\n  labelwise build examples/homelab\n  labelwise build ./infra --out /tmp/infra-build --json\n  labelwise build --only fleet,policy --fail-on warning\n  labelwise build . --format sarif > labelwise.sarif\n\nA labelwise.yaml at the repository root may name where each part lives (docs/review.md).',
    )
    .action(async (repoArg: string | undefined, flags: BuildFlags) => {
      exit.code = await build(repoArg, flags, io);
    });
  return runProgram(program, args, exit);
}

async function build(repoArg: string | undefined, flags: BuildFlags, io: CliIO): Promise<number> {
  const repo = resolve(io.cwd, repoArg ?? '.');
  if (!existsSync(repo) || !statSync(repo).isDirectory()) {
    throw new LabelwiseError(
      'BUILD_NO_REPOSITORY',
      `${escapeControl(repoArg ?? repo, true)} is not a directory`,
      { kind: 'unavailable' },
    );
  }
  const repoName = display(repo, io.cwd);
  const outDir = resolve(io.cwd, flags.out);
  const writeOptions: OwnedWriteOptions = { writer: 'labelwise build', repositories: [repo] };
  // Refuse a dangerous --out before the long work, not after it.
  await checkOutputTarget(outDir, { ...writeOptions, inputs: inputFolders(repo) });
  const built = await runBuild({
    repo,
    name: repoName,
    // labelwise's own output is never read back as input, even when --out lies in the repository.
    excluded: [outDir],
    only: moduleList(flags.only, '--only'),
    skip: moduleList(flags.skip, '--skip'),
    onStage: (index, total, module, dir) => {
      if (io.isTTY && !flags.json)
        io.stderr(`[${index + 1}/${total}] ${module}: ${escapeControl(dir, true)}…\n`);
    },
  });
  const { report, runs } = built;
  const files = buildOutputFiles(built, { out: outDir, repo, version: VERSION });
  await writeOwnedDirectory(outDir, files, { ...writeOptions, inputs: built.inputs });
  io.check?.report(report.diagnostics);

  if (flags.json) {
    printJson(io, report);
    return report.ok ? EXIT.ok : EXIT.invalid;
  }
  io.stdout(`labelwise build ${escapeControl(repoName, true)}\n\n`);
  for (const stageRun of runs) io.stdout(`${summaryTable(stageRun, io)}\n`);
  if (report.diagnostics.length > 0) {
    io.stdout('Diagnostics\n');
    for (const d of report.diagnostics) {
      const text = formatDiagnostic(d).replace(/^/gm, '  ');
      io.stdout(`${d.severity === 'error' ? paint(io, 'red', text) : paint(io, 'yellow', text)}\n`);
    }
    io.stdout('\n');
  }
  const verdict = verdictText(report, io);
  io.stdout(
    `${verdict}; wrote ${Object.keys(files).length} files to ${escapeControl(display(outDir, io.cwd), true)}/ (open report.html)\n`,
  );
  return report.ok ? EXIT.ok : EXIT.invalid;
}

/** The last line's verdict, by the threshold in force: never "ok" before exit 1. */
function verdictText(report: BuildReport, io: CliIO): string {
  const counts = `${report.errors} error(s), ${report.warnings} warning(s)`;
  if (!report.ok) return paint(io, 'red', `failed: ${counts}`);
  if (io.check?.failOn === 'warning' && report.warnings > 0)
    return paint(io, 'red', `failed (--fail-on warning): ${counts}`);
  return paint(io, 'green', `ok: ${report.warnings} warning(s)`);
}

interface BuildFlags {
  readonly out: string;
  readonly json?: boolean;
  readonly only?: string;
  readonly skip?: string;
}

function moduleList(text: string | undefined, flag: string): ModuleName[] | undefined {
  if (text === undefined) return undefined;
  const parsed = parseModuleList(text, flag);
  if (Array.isArray(parsed)) return parsed;
  throw new LabelwiseError(parsed.code, parsed.message, { hint: 'see labelwise build --help' });
}
