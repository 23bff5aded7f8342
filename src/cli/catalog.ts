/**
 * `labelwise catalog render|check`: render a catalog of ServiceDefinitions into Kubernetes
 * manifests, or prove a checked-in apps directory reproduces from it and passes conformance.
 * Reading and writing go through the catalog's io adapters; all decisions are the module's.
 */
import { existsSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { LabelwiseError } from '../base/errors.js';
import {
  catalogSchemas,
  readAppsDir,
  readCatalogDir,
  runCatalog,
  writeAppsDir,
} from '../catalog/index.js';
import type { CatalogRun, CheckResult } from '../catalog/index.js';
import { formatError } from './format-error.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { paint, printJson } from './output.js';
import { configureSubcommand, createProgram, runProgram } from './program.js';

const EXAMPLES = {
  render: 'labelwise catalog render examples/homelab/catalog --out examples/homelab/apps',
  check: 'labelwise catalog check examples/homelab/catalog --apps examples/homelab/apps',
};

function serviceNames(run: ReturnType<typeof readCatalogDir>): string[] {
  return run.definitions.map((d) => (d.file.split('/').pop() ?? '').replace(/\.ya?ml$/, ''));
}

function problemsJson(run: CatalogRun) {
  return {
    errors: run.errors.map((e) => e.toJSON()),
    warnings: run.warnings.map((e) => e.toJSON()),
  };
}

function printProblems(io: CliIO, run: CatalogRun): void {
  for (const e of run.errors) io.stderr(`${paint(io, 'red', 'error')} ${formatError(e)}\n`);
  for (const w of run.warnings) io.stderr(`${paint(io, 'yellow', 'warning')} ${formatError(w)}\n`);
}

function printFailedChecks(io: CliIO, failed: readonly CheckResult[]): void {
  for (const c of failed)
    io.stderr(`${paint(io, 'red', 'FAIL')} ${c.name}: ${c.object}: ${c.message}\n`);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Runs `labelwise catalog …`. */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const exit = { code: EXIT.ok as number };
  const program = createProgram(
    'labelwise catalog',
    'Render ServiceDefinitions into Kubernetes manifests with a secure default posture, and check them.',
    io,
  );

  configureSubcommand(program.command('render'), io)
    .description(
      'render every ServiceDefinition of CATALOG_DIR into APPS_DIR/<service>/, one file per object',
    )
    .argument('<catalog-dir>', 'directory holding platform.yaml and one <service>.yaml per service')
    .requiredOption(
      '--out <apps-dir>',
      'where to write the rendered services (each <service>/ is replaced whole)',
    )
    .option('--json', 'print JSON on stdout')
    .addHelpText(
      'after',
      `\nNothing is written when any definition is invalid or any conformance check fails (exit 1).\nOutput is byte-identical for identical input.\n\nExample:\n  ${EXAMPLES.render}\n`,
    )
    .action(async (dir: string, flags: { out: string; json?: boolean }) => {
      const catalogDir = resolvePath(io.cwd, dir);
      const outDir = resolvePath(io.cwd, flags.out);
      const input = readCatalogDir(catalogDir, io.cwd);
      const existing = readAppsDir(outDir, io.cwd, serviceNames(input));
      const result = runCatalog(input, catalogSchemas(), { apps: existing });
      const failed = result.checks.filter((c) => !c.ok);
      const ok = result.errors.length === 0 && failed.length === 0;
      let written: string[] = [];
      if (ok) {
        const rendered = new Set(result.rendered.map((r) => r.service));
        const stale = [
          ...new Set(Object.keys(existing).map((p) => p.split('/')[0] as string)),
        ].filter((s) => !rendered.has(s));
        written = writeAppsDir(outDir, result.files, stale);
      }
      exit.code = ok ? EXIT.ok : EXIT.invalid;
      if (flags.json) {
        printJson(io, {
          ok,
          services: written,
          files: ok ? Object.keys(result.files) : [],
          checks: failed,
          ...problemsJson(result),
        });
        return;
      }
      printProblems(io, result);
      printFailedChecks(io, failed);
      if (!ok) {
        io.stderr(
          `nothing written: ${plural(result.errors.length, 'error')}, ${plural(failed.length, 'failed check')}\n`,
        );
        return;
      }
      const changed = (result.diffs ?? []).length;
      io.stdout(
        `rendered ${plural(written.length, 'service')}, ${plural(Object.keys(result.files).length, 'file')} into ${flags.out} (${plural(changed, 'file')} changed)\n`,
      );
    });

  configureSubcommand(program.command('check'), io)
    .description(
      'the golden gate: APPS_DIR must reproduce from CATALOG_DIR, and every conformance check must pass',
    )
    .argument('<catalog-dir>', 'directory holding platform.yaml and one <service>.yaml per service')
    .option(
      '--apps <apps-dir>',
      'the checked-in rendered directory to compare (without it, only conformance runs)',
    )
    .option(
      '--json',
      'print JSON on stdout: {"ok","diffs":[{"path"}],"checks":[…],"errors","warnings"}',
    )
    .option('--all', 'list passing checks too (text mode)')
    .addHelpText(
      'after',
      `\nExit 0 when everything passes, 1 on an invalid definition or a failed conformance check,\n2 when APPS_DIR differs from what the catalog renders (the diff is printed).\n\nExample:\n  ${EXAMPLES.check}\n`,
    )
    .action(async (dir: string, flags: { apps?: string; json?: boolean; all?: boolean }) => {
      const input = readCatalogDir(resolvePath(io.cwd, dir), io.cwd);
      if (flags.apps !== undefined && !existsSync(resolvePath(io.cwd, flags.apps))) {
        // Not "every file differs": a mistyped path deserves its own answer.
        throw new LabelwiseError(
          'CATALOG_UNREADABLE',
          `the apps directory ${flags.apps} does not exist`,
          { file: flags.apps },
          `render it first: labelwise catalog render ${dir} --out ${flags.apps}`,
          'unavailable',
        );
      }
      const apps =
        flags.apps === undefined
          ? undefined
          : readAppsDir(resolvePath(io.cwd, flags.apps), io.cwd, serviceNames(input));
      const result = runCatalog(input, catalogSchemas(), apps === undefined ? {} : { apps });
      const failed = result.checks.filter((c) => !c.ok);
      const diffs = result.diffs ?? [];
      const ok = result.errors.length === 0 && failed.length === 0 && diffs.length === 0;
      exit.code =
        result.errors.length > 0 || failed.length > 0
          ? EXIT.invalid
          : diffs.length > 0
            ? EXIT.differences
            : EXIT.ok;
      if (flags.json) {
        printJson(io, {
          ok,
          diffs: diffs.map((d) => ({ path: d.path, change: d.change, patch: d.patch })),
          checks: result.checks,
          ...problemsJson(result),
        });
        return;
      }
      printProblems(io, result);
      for (const d of diffs) io.stdout(colourPatch(io, d.patch));
      if (flags.all)
        for (const c of result.checks.filter((c) => c.ok))
          io.stdout(`${paint(io, 'green', 'ok')}   ${c.name}: ${c.object}\n`);
      printFailedChecks(io, failed);
      const summary = [
        plural(result.loaded.services.length, 'service'),
        `${result.checks.length - failed.length}/${plural(result.checks.length, 'check')} passed`,
        ...(apps === undefined
          ? []
          : [
              diffs.length === 0
                ? `${flags.apps} reproduces`
                : `${plural(diffs.length, 'file')} differ`,
            ]),
        ...(result.errors.length > 0 ? [plural(result.errors.length, 'error')] : []),
      ];
      io.stdout(
        `${ok ? paint(io, 'green', 'ok') : paint(io, 'red', 'FAILED')}: ${summary.join(', ')}\n`,
      );
      if (diffs.length > 0 && result.errors.length === 0 && failed.length === 0) {
        io.stdout(
          `hint: run \`labelwise catalog render ${dir} --out ${flags.apps ?? 'APPS_DIR'}\` and commit the result\n`,
        );
      }
    });

  program.addHelpText('after', `\nExamples:\n  ${EXAMPLES.render}\n  ${EXAMPLES.check}\n`);
  if (args.length === 0) {
    io.stderr(program.helpInformation());
    return EXIT.invalid;
  }
  return runProgram(program, args, exit);
}

function colourPatch(io: CliIO, patch: string): string {
  return patch
    .split('\n')
    .map((line) =>
      line.startsWith('+') && !line.startsWith('+++')
        ? paint(io, 'green', line)
        : line.startsWith('-') && !line.startsWith('---')
          ? paint(io, 'red', line)
          : line,
    )
    .join('\n');
}
