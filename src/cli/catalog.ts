/**
 * `labelwise catalog render|check`: render a catalog of ServiceDefinitions into Kubernetes
 * manifests, or prove a checked-in apps directory reproduces from it and passes conformance.
 * Reading goes through the shared repository reader, writing through the owned output writer,
 * and every problem is a shared diagnostic; all decisions are the module's.
 */
import { dirname, resolve as resolvePath } from 'node:path';
import {
  diagnosticFromError,
  diagnosticsJson,
  escapeControl,
  isWithin,
  LabelwiseError,
  checkOutputTarget,
  pushAll,
  RepoReader,
  sortDiagnostics,
  writeOwnedDirectory,
} from '../base/index.js';
import type { Diagnostic } from '../base/index.js';
import {
  catalogSchemas,
  checkJson,
  immutableFieldDiagnostics,
  readAppsDir,
  readCatalogDir,
  readerDiagnostics,
  renderJson,
  runCatalog,
  VPN_EGRESS_CHECK,
} from '../catalog/index.js';
import type { CatalogInput } from '../catalog/index.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { paint, paintDiagnostic, printJson } from './output.js';
import { configureSubcommand, createProgram, runProgram } from './program.js';

const EXAMPLES = {
  render: 'labelwise catalog render examples/homelab/catalog --out examples/homelab/apps',
  check: 'labelwise catalog check examples/homelab/catalog --apps examples/homelab/apps',
};

function serviceNames(input: CatalogInput): string[] {
  return input.definitions.map((d) => (d.file.split('/').pop() ?? '').replace(/\.ya?ml$/, ''));
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * The repository the command reads: the working directory when the catalog lies inside it (so
 * paths read as the user typed them), else the catalog's parent.
 */
function openRepository(io: CliIO, catalogDir: string): { reader: RepoReader; catalog: string } {
  const absolute = resolvePath(io.cwd, catalogDir);
  const root = isWithin(absolute, resolvePath(io.cwd)) ? io.cwd : dirname(absolute);
  const reader = RepoReader.open(root);
  const catalog = reader.inside(absolute, io.cwd);
  if (catalog === undefined)
    throw new LabelwiseError(
      'CATALOG_UNREADABLE',
      `cannot read ${catalogDir}: it leads outside ${root}`,
      { source: { file: catalogDir }, kind: 'unavailable' },
    );
  return { reader, catalog };
}

/** A reader and repository path for an apps directory: the catalog's reader when inside it. */
function appsLocation(
  io: CliIO,
  reader: RepoReader,
  apps: string,
): { reader: RepoReader; path: string } | undefined {
  const absolute = resolvePath(io.cwd, apps);
  const inside = reader.inside(absolute, io.cwd);
  if (inside !== undefined) return { reader, path: inside };
  try {
    return { reader: RepoReader.open(absolute), path: '.' };
  } catch {
    return undefined;
  }
}

function printDiagnostics(io: CliIO, list: readonly Diagnostic[]): void {
  for (const d of sortDiagnostics(list)) {
    io.stderr(`${paintDiagnostic(d, io)}\n`);
  }
}

/** Reports an error that stopped the command, in the command's output shape, and its exit code. */
function stopped(io: CliIO, error: unknown, json: boolean | undefined): number {
  if (!(error instanceof LabelwiseError)) throw error;
  const d = diagnosticFromError(error, 'catalog');
  if (json) printJson(io, { ok: false, ...diagnosticsJson([d]) });
  // The prefix every command group puts on the error that stopped it.
  else io.stderr(`labelwise catalog: ${paintDiagnostic(d, io)}\n`);
  return error.kind === 'unavailable' ? EXIT.unavailable : EXIT.invalid;
}

async function render(io: CliIO, dir: string, flags: { out: string; json?: boolean }) {
  const { reader, catalog } = openRepository(io, dir);
  const input = readCatalogDir(reader, catalog);
  const outDir = resolvePath(io.cwd, flags.out);
  const writeOptions = {
    writer: 'labelwise catalog render',
    flag: '--out',
    inputs: [resolvePath(reader.root, catalog)],
    repositories: [reader.root],
  };
  // Refuse a place labelwise never writes to before reading what it holds (`--out /`).
  await checkOutputTarget(outDir, writeOptions);
  const out = appsLocation(io, reader, flags.out);
  const existing = out === undefined ? {} : readAppsDir(out.reader, out.path, serviceNames(input));
  const result = runCatalog(input, catalogSchemas(), { apps: existing });
  const diagnostics = [...readerDiagnostics(reader, 0), ...result.diagnostics];
  if (out !== undefined && out.reader !== reader)
    pushAll(diagnostics, readerDiagnostics(out.reader, 0));
  const body = renderJson(result, diagnostics);
  let written = 0;
  if (body.ok) {
    written = (await writeOwnedDirectory(outDir, result.files, writeOptions)).files;
  }
  if (flags.json) {
    printJson(io, body);
    return body.ok ? EXIT.ok : EXIT.invalid;
  }
  printDiagnostics(io, diagnostics);
  if (!body.ok) {
    io.stderr(
      `nothing written: ${plural(body.errors, 'error')}, ${plural(body.checks.length, 'failed check')}\n`,
    );
    return EXIT.invalid;
  }
  const changed = (result.diffs ?? []).length;
  io.stdout(
    `rendered ${plural(body.services.length, 'service')}, ${plural(written, 'file')} into ${flags.out} (${plural(changed, 'file')} changed)\n`,
  );
  return EXIT.ok;
}

async function check(
  io: CliIO,
  dir: string,
  flags: { apps?: string; json?: boolean; all?: boolean },
) {
  const { reader, catalog } = openRepository(io, dir);
  const input = readCatalogDir(reader, catalog);
  let apps: Record<string, string> | undefined;
  let appsReader: RepoReader | undefined;
  if (flags.apps !== undefined) {
    const location = appsLocation(io, reader, flags.apps);
    if (location === undefined || !location.reader.exists(location.path)) {
      // Not "every file differs": a mistyped path deserves its own answer.
      throw new LabelwiseError(
        'CATALOG_UNREADABLE',
        `the apps directory ${flags.apps} does not exist`,
        {
          source: { file: flags.apps },
          hint: `render it first: labelwise catalog render ${dir} --out ${flags.apps}`,
          kind: 'unavailable',
        },
      );
    }
    apps = readAppsDir(location.reader, location.path, serviceNames(input));
    if (location.reader !== reader) appsReader = location.reader;
  }
  const result = runCatalog(input, catalogSchemas(), apps === undefined ? {} : { apps });
  const diagnostics = [
    ...readerDiagnostics(reader, 0),
    ...(appsReader === undefined ? [] : readerDiagnostics(appsReader, 0)),
    ...result.diagnostics,
    ...(apps === undefined || result.errors.length > 0
      ? []
      : immutableFieldDiagnostics(result, apps, flags.apps ?? '')),
  ];
  const body = checkJson(result, diagnostics);
  const { ok, diffs, errors } = body;
  const failed = result.checks.filter((c) => !c.ok);
  const code = errors > 0 ? EXIT.invalid : diffs.length > 0 ? EXIT.differences : EXIT.ok;
  if (flags.json) {
    printJson(io, body);
    return code;
  }
  printDiagnostics(io, diagnostics);
  for (const d of diffs) io.stdout(colourPatch(io, d.patch));
  // The kill-switch is what an operator most needs to see proved, so it is said every time.
  for (const c of result.checks.filter((c) => c.ok && c.name === VPN_EGRESS_CHECK))
    io.stdout(`${paint(io, 'green', 'proved')}: ${escapeControl(c.message)}\n`);
  if (flags.all)
    for (const c of result.checks.filter((c) => c.ok))
      io.stdout(`${paint(io, 'green', 'ok')}   ${c.name}: ${c.object}\n`);
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
    ...(errors > 0 ? [plural(errors, 'error')] : []),
  ];
  io.stdout(
    `${ok ? paint(io, 'green', 'ok') : paint(io, 'red', 'FAILED')}: ${summary.join(', ')}\n`,
  );
  if (diffs.length > 0 && errors === 0) {
    io.stdout(
      `hint: run \`labelwise catalog render ${dir} --out ${flags.apps ?? 'APPS_DIR'}\` and commit the result\n`,
    );
  }
  return code;
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
      'where to write the rendered services (replaced whole; refused if it holds files labelwise did not write)',
    )
    .option('--json', 'print JSON on stdout')
    .addHelpText(
      'after',
      `\nNothing is written when any definition is invalid or any conformance check fails (exit 1).\nOutput is byte-identical for identical input.\n\nExample:\n  ${EXAMPLES.render}\n`,
    )
    .action(async (dir: string, flags: { out: string; json?: boolean }) => {
      try {
        exit.code = await render(io, dir, flags);
      } catch (error) {
        exit.code = stopped(io, error, flags.json);
      }
    });

  configureSubcommand(program.command('check'), io)
    .description(
      'the golden gate: APPS_DIR must reproduce from CATALOG_DIR, every conformance check must pass, and no change may touch a field the API server forbids changing',
    )
    .argument('<catalog-dir>', 'directory holding platform.yaml and one <service>.yaml per service')
    .option(
      '--apps <apps-dir>',
      'the checked-in rendered directory to compare (without it, only conformance runs)',
    )
    .option(
      '--json',
      'print JSON on stdout: {"ok","diffs":[…],"checks":[…],"diagnostics":[…],"errors":N,"warnings":N}',
    )
    .option('--all', 'list passing checks too (text mode)')
    .addHelpText(
      'after',
      `\nExit 0 when everything passes, 1 on an invalid definition, a failed conformance check or an\nimmutable-field change, 2 when APPS_DIR differs from what the catalog renders (the diff is printed).\n\nExample:\n  ${EXAMPLES.check}\n`,
    )
    .action(async (dir: string, flags: { apps?: string; json?: boolean; all?: boolean }) => {
      try {
        exit.code = await check(io, dir, flags);
      } catch (error) {
        exit.code = stopped(io, error, flags.json);
      }
    });

  program.addHelpText('after', `\nExamples:\n  ${EXAMPLES.render}\n  ${EXAMPLES.check}\n`);
  return runProgram(program, args, exit);
}

/** A patch for the terminal: every line escaped (the checked-in side is input), then coloured. */
function colourPatch(io: CliIO, patch: string): string {
  return patch
    .split('\n')
    .map((line) => escapeControl(line, true))
    .map((line) =>
      line.startsWith('+') && !line.startsWith('+++')
        ? paint(io, 'green', line)
        : line.startsWith('-') && !line.startsWith('---')
          ? paint(io, 'red', line)
          : line,
    )
    .join('\n');
}
