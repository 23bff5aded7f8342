/**
 * `labelwise fleet validate|resolve|explain|hosts|affected`: a Datum-style fleet repository on the
 * command line. Each subcommand reads the repository through the fleet io adapter, calls the pure
 * core and prints text or `--json`. Problems print as `path:line: message`, paths relative to the
 * fleet root.
 */
import { LabelwiseError } from '../base/index.js';
import {
  layerReach,
  prepareFleet,
  resolveHost,
  resolvedHostJson,
  resolvedHostsJson,
  shardHosts,
  shardOfRun,
  shortDigest,
  threadsOf,
  validateInParallel,
  validateJson,
} from '../fleet/index.js';
import type { Command } from 'commander';
import type {
  FleetSource,
  HostManifest,
  Shard,
  ShardFlags,
  ValidationReport,
} from '../fleet/index.js';
import {
  EXAMPLES,
  colourProblem,
  hostsTable,
  loadSource,
  reportLoadErrors,
  show,
  validateHeader,
} from './fleet-support.js';
import type { JsonFlag } from './fleet-support.js';
import { registerInspectCommands } from './fleet-inspect.js';
import { registerMergeCommand } from './fleet-merge.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { paint, printJson, renderTable } from './output.js';
import { configureSubcommand, createProgram, runProgram } from './program.js';

/** `validate`: resolve every host (of a shard) and report every problem. */
function validateCommand(program: Command, io: CliIO, exit: { code: number }): void {
  configureSubcommand(program.command('validate'), io)
    .description(
      'resolve every host; report every problem, grouped across hosts, and lint matchers',
    )
    .argument('<repo>', 'the fleet directory (holding the Fleet document)')
    .option('--shard <i/n>', 'resolve only shard I of N (hosts split by a stable hash of the name)')
    .option('--shards <n>', SHARDS_HELP)
    .option(
      '--threads <n>',
      'worker threads resolving hosts, at most one per core (default: every core free memory allows, for fleets of 2,000 hosts or more)',
    )
    .option('--json', 'print JSON on stdout')
    .addHelpText('after', `\nExit 1 when any error is found.\n\nExample:\n  ${EXAMPLES.validate}\n`)
    .action(async (repo: string, flags: JsonFlag & ShardFlags & { threads?: string }) => {
      const shard = shardOfRun(flags, io.env);
      const threads = threadsOf(flags.threads);
      const source = await loadSource(io, repo);
      const fleet = source.fleet;
      const names = shardHosts(
        fleet.hosts.map((h) => h.name),
        shard,
      );
      // Undefined: as many threads as cores and free memory allow, for fleets worth spreading.
      const parallel = threads ?? (names.length >= 2000 ? undefined : 1);
      const report = await validateInParallel(
        fleet,
        { hosts: names },
        parallel === undefined ? {} : { threads: parallel },
      );
      exit.code = report.errors > 0 ? EXIT.invalid : EXIT.ok;
      printValidation(io, source, report, shard, flags.json === true);
    });
}

const SHARDS_HELP =
  'run shard I of N, N given here and I read from JOB_COMPLETION_INDEX (0-based, as a Kubernetes Indexed Job sets it)';

function printValidation(
  io: CliIO,
  source: FleetSource,
  report: ValidationReport,
  shard: Shard | undefined,
  json: boolean,
): void {
  if (json) {
    printJson(io, validateJson(source, report, shard));
    return;
  }
  const fleet = source.fleet;
  io.stdout(validateHeader(fleet, report.hosts, shard, layerReach(fleet)));
  for (const p of report.problems) io.stdout(`${colourProblem(io, p)}\n`);
  if (report.warnings > 0)
    io.stdout(`${report.warnings} warning${report.warnings === 1 ? '' : 's'}\n`);
  io.stdout(
    `resolved ${report.hosts} host${report.hosts === 1 ? '' : 's'}, ${report.errors} error${report.errors === 1 ? '' : 's'}\n`,
  );
}

/** `resolve`: one host's manifest, or every host of a shard. */
function resolveCommand(program: Command, io: CliIO, exit: { code: number }): void {
  configureSubcommand(program.command('resolve'), io)
    .description(
      "print a host's effective manifest: layers, resources, desired state and digest (every host of a shard without --host)",
    )
    .argument('<repo>', 'the fleet directory')
    .option('--host <name>', 'the Host to resolve')
    .option('--shard <i/n>', 'without --host: resolve every host of shard I of N')
    .option('--shards <n>', `without --host: ${SHARDS_HELP}`)
    .option('--json', 'print JSON on stdout')
    .addHelpText(
      'after',
      `\nExit 1 when a resolution has errors (they go to stderr).\n\nExample:\n  ${EXAMPLES.resolve}\n`,
    )
    .action(async (repo: string, flags: JsonFlag & ShardFlags & { host?: string }) => {
      if (flags.host !== undefined && (flags.shard !== undefined || flags.shards !== undefined))
        throw new LabelwiseError(
          'FLEET_INVALID_SHARD',
          '--shard resolves every host of a shard; it cannot be combined with --host',
        );
      const shard = shardOfRun(flags, io.env);
      const source = await loadSource(io, repo);
      const fleet = source.fleet;
      const loadErrors = reportLoadErrors(io, fleet, flags.json === true);
      const prepared = prepareFleet(fleet);
      const names =
        flags.host !== undefined
          ? [flags.host]
          : shardHosts(
              fleet.hosts.map((h) => h.name),
              shard,
            );
      const manifests = names.map((name) => resolveHost(prepared, name, { provenance: false }));
      const failed = manifests.some((m) => m.problems.length > 0);
      exit.code = loadErrors || failed ? EXIT.invalid : EXIT.ok;
      if (flags.json)
        printJson(
          io,
          flags.host === undefined
            ? resolvedHostsJson(source, manifests, shard)
            : resolvedHostJson(fleet, manifests[0] as HostManifest),
        );
      else if (flags.host === undefined) printResolvedHosts(io, manifests);
      else printManifest(io, manifests[0] as HostManifest);
    });
}

/** Every host of a shard, one line each; problems on stderr. */
function printResolvedHosts(io: CliIO, manifests: readonly HostManifest[]): void {
  for (const m of manifests) {
    for (const p of m.problems) io.stderr(`${colourProblem(io, { ...p, host: m.host })}\n`);
  }
  io.stdout(hostsTable(manifests));
}

/** One host's manifest: its layers, then each resource's desired state and edges. */
function printManifest(io: CliIO, manifest: HostManifest): void {
  for (const p of manifest.problems) io.stderr(`${colourProblem(io, p)}\n`);
  io.stdout(`host ${manifest.host}  ${manifest.digest} (${shortDigest(manifest.digest)})\n\n`);
  io.stdout(
    renderTable([
      ['LAYER', 'PRECEDENCE', 'MATCHED BY'],
      ...manifest.layers.map((l) => [l.name, String(l.precedence), l.reasons.join(', ')]),
    ]),
  );
  for (const r of manifest.resources) {
    io.stdout(
      `\n${paint(io, 'bold', r.ref)}  ${r.target ?? '(no target)'}  from ${r.layers.join(', ')}\n`,
    );
    for (const [field, value] of Object.entries(r.desired))
      io.stdout(`  ${field}: ${show(value)}\n`);
    for (const kind of ['requires', 'restartOn', 'reloadOn'] as const)
      if (r[kind].length > 0) io.stdout(`  ${paint(io, 'dim', kind)}: ${r[kind].join(', ')}\n`);
  }
}

/** validate and resolve: the fleet as a whole, and one host's manifest. */
function registerResolveCommands(program: Command, io: CliIO, exit: { code: number }): void {
  validateCommand(program, io, exit);
  resolveCommand(program, io, exit);
}

export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const exit = { code: EXIT.ok as number };
  const program = createProgram(
    'labelwise fleet',
    'Resolve and explain a Datum-style fleet repository.',
    io,
  );
  // One line per command group; each group registers its subcommands in its own file.
  registerResolveCommands(program, io, exit);
  registerInspectCommands(program, io, exit);
  registerMergeCommand(program, io, exit);

  program.addHelpText(
    'after',
    `\nExamples:\n${Object.values(EXAMPLES)
      .map((e) => `  ${e}`)
      .join('\n')}\n`,
  );
  return runProgram(program, args, exit);
}
