/**
 * `labelwise build [REPO] [--out DIR] [--json]`: validates and resolves everything a repository
 * holds in one pass, writes the outputs and a report, and prints a summary.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  LabelwiseError,
  RepoReader,
  checkOutputTarget,
  compareText,
  countDiagnostics,
  escapeControl,
  formatDiagnostic,
  writeOwnedDirectory,
} from '../base/index.js';
import type { OwnedWriteOptions } from '../base/index.js';
import {
  buildReport,
  detectParts,
  plannedStages,
  renderReportHtml,
  runStage,
} from '../repo/index.js';
import type { StageRun } from '../repo/index.js';
import type { AnchorClaims } from '../anchor/index.js';
import type { FleetMatrix } from '../fleet/index.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { paint, printJson, renderTable } from './output.js';
import { createProgram, runProgram } from './program.js';

const DEFAULT_REPO = join('examples', 'homelab');

/** The default repository: `examples/homelab` under the working directory, else the package's own. */
function defaultRepo(cwd: string): string {
  const local = resolve(cwd, DEFAULT_REPO);
  if (existsSync(local)) return local;
  const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return resolve(packageRoot, DEFAULT_REPO);
}

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
    .argument('[repo]', 'the repository (default: examples/homelab)')
    .option('--out <dir>', 'where to write manifests and the report', 'out')
    .option('--json', 'print the report as JSON instead of the summary')
    .addHelpText(
      'after',
      '\nWrites fleet/<host>.json, apps/, policy/compiled.json, anchors.json, report.json and report.html\nunder --out. Exit code 1 when any part has an error.\n\nExamples:\n  labelwise build\n  labelwise build ./infra --out /tmp/infra-build --json',
    )
    .action(async (repoArg: string | undefined, flags: { out: string; json?: boolean }) => {
      exit.code = await build(repoArg, flags, io);
    });
  return runProgram(program, args, exit);
}

async function build(
  repoArg: string | undefined,
  flags: { out: string; json?: boolean },
  io: CliIO,
): Promise<number> {
  const repo = repoArg === undefined ? defaultRepo(io.cwd) : resolve(io.cwd, repoArg);
  if (!existsSync(repo) || !statSync(repo).isDirectory()) {
    throw new LabelwiseError(
      'BUILD_NO_REPOSITORY',
      `${repoArg ?? repo} is not a directory`,
      {},
      undefined,
      'unavailable',
    );
  }
  const repoName = display(repo, io.cwd);
  const outDir = resolve(io.cwd, flags.out);
  // labelwise's own output is never read back as input, even when --out lies in the repository.
  const reader = RepoReader.open(repo, { excluded: [outDir] });
  const parts = await detectParts(repo);
  const stages = plannedStages(parts, repo, reader);
  if (stages.length === 0) {
    throw new LabelwiseError(
      'BUILD_NOTHING_FOUND',
      `${escapeControl(repoName, true)} holds nothing to build`,
      {},
      'expected fleet/, catalog/, policy/, compose/ or compose*.yaml',
    );
  }
  const writeOptions: OwnedWriteOptions = {
    writer: 'labelwise build',
    repositories: [repo],
    // A Compose project at the repository root is no input folder of its own.
    inputs: stages.map((stage) => stage.dir).filter((dir) => resolve(dir) !== resolve(repo)),
  };
  // Refuse a dangerous --out before the long work, not after it.
  await checkOutputTarget(outDir, writeOptions);
  const runs: StageRun[] = [];
  for (const [index, stage] of stages.entries()) {
    if (io.isTTY && !flags.json)
      io.stderr(`[${index + 1}/${stages.length}] ${stage.module}: ${display(stage.dir, repo)}…\n`);
    runs.push(await runStage(stage, display(stage.dir, repo)));
  }
  const files: Record<string, string> = {};
  for (const stageRun of runs) {
    for (const [path, content] of Object.entries(stageRun.result.outputs)) {
      if (path in files) throw new Error(`two build stages wrote ${path}`);
      files[path] = content;
    }
  }
  const report = buildReport(
    repoName,
    runs,
    [...Object.keys(files), 'report.json', 'report.html'],
    reader.diagnostics,
  );
  const data: { fleet?: FleetMatrix; anchor?: AnchorClaims } = {};
  for (const stageRun of runs) {
    // Each stage documents the shape of its `data` with the type named here.
    if (stageRun.module === 'fleet') data.fleet = stageRun.result.data as FleetMatrix;
    if (stageRun.module === 'anchor') data.anchor = stageRun.result.data as AnchorClaims;
  }
  files['report.json'] = `${JSON.stringify(report, null, 2)}\n`;
  files['report.html'] = renderReportHtml(report, data);
  await writeOwnedDirectory(outDir, files, writeOptions);

  if (flags.json) {
    printJson(io, report);
    return report.ok ? EXIT.ok : EXIT.invalid;
  }
  io.stdout(`labelwise build ${repoName}\n\n`);
  for (const stageRun of runs) io.stdout(`${summaryTable(stageRun, io)}\n`);
  if (report.diagnostics.length > 0) {
    io.stdout('Diagnostics\n');
    for (const d of report.diagnostics) {
      const text = formatDiagnostic(d).replace(/^/gm, '  ');
      io.stdout(`${d.severity === 'error' ? paint(io, 'red', text) : paint(io, 'yellow', text)}\n`);
    }
    io.stdout('\n');
  }
  const verdict = report.ok
    ? paint(io, 'green', `ok: ${report.warnings} warning(s)`)
    : paint(io, 'red', `failed: ${report.errors} error(s), ${report.warnings} warning(s)`);
  io.stdout(
    `${verdict}; wrote ${Object.keys(files).length} files to ${escapeControl(display(outDir, io.cwd), true)}/ (open report.html)\n`,
  );
  return report.ok ? EXIT.ok : EXIT.invalid;
}
