/**
 * `labelwise fleet merge SHARD…`: the `--json` outputs of every shard of one `fleet validate` or
 * `fleet resolve` run (a CI matrix, an Indexed Job), joined into what one unsharded run prints.
 * Reading the files is here; the joining and its refusals are the fleet core's.
 */
import { readUserFile } from '../base/index.js';
import type { Diagnostic } from '../base/index.js';
import { mergeShards, readShardOutput, shortDigest } from '../fleet/index.js';
import type { MergedShards } from '../fleet/index.js';
import type { Command } from 'commander';
import { EXAMPLES, colourProblem, hostsTable } from './fleet-support.js';
import type { JsonFlag } from './fleet-support.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { printJson } from './output.js';
import { configureSubcommand } from './program.js';

/**
 * A shard output lists every host of its shard (a resolve shard: each host's manifest, a few KiB
 * apiece), so its limit is well above the reader's default; a file above it is no shard output.
 */
const MAX_SHARD_BYTES = 256 * 1024 * 1024;

/** One shard file, read as every file a flag names is: no device, FIFO or oversized file. */
function readShard(io: CliIO, name: string): string {
  return readUserFile(name, {
    cwd: io.cwd,
    what: 'shard output file',
    maxBytes: MAX_SHARD_BYTES,
    codes: { invalid: 'FLEET_NOT_A_SHARD', unreadable: 'FLEET_SHARD_UNREADABLE' },
  });
}

/** The merged run as its command prints it without `--json`: problems, then the summary. */
function printMergedText(io: CliIO, merged: MergedShards): void {
  const diagnostics = merged.json.diagnostics as Diagnostic[];
  for (const d of diagnostics) {
    const hosts = (d.witness as { hosts?: string[] } | undefined)?.hosts ?? [];
    const { witness: _witness, ...problem } = d;
    io.stdout(`${colourProblem(io, { ...problem, hosts })}\n`);
  }
  const from = `merged ${merged.count} shard${merged.count === 1 ? '' : 's'} of revision ${shortDigest(merged.revision)}`;
  if (merged.kind === 'validate') {
    const hosts = merged.json.hosts as number;
    const errors = merged.json.errors as number;
    io.stdout(
      `${from}: resolved ${hosts} host${hosts === 1 ? '' : 's'}, ${errors} error${errors === 1 ? '' : 's'}\n`,
    );
    return;
  }
  const manifests = merged.json.hosts as { host: string; digest: string; resources: unknown[] }[];
  io.stdout(hostsTable(manifests));
  io.stdout(`${from}: ${manifests.length} host${manifests.length === 1 ? '' : 's'}\n`);
}

/** `merge`: join the shards of one run. */
export function registerMergeCommand(program: Command, io: CliIO, exit: { code: number }): void {
  configureSubcommand(program.command('merge'), io)
    .description(
      'join the --json outputs of every shard of one validate or resolve run into the output of one unsharded run',
    )
    .argument('<shard...>', "each shard's --json output (from --shard I/N or --shards N)")
    .option('--json', 'print the joined JSON on stdout, as the unsharded run prints it')
    .addHelpText(
      'after',
      `\nRefuses shards of different revisions, counts or commands, and a missing or doubled shard.\nExit 1 when the joined run has errors, as the unsharded run would.\n\nExample:\n  ${EXAMPLES.merge}\n`,
    )
    .action(async (names: string[], flags: JsonFlag) => {
      const outputs = [];
      for (const name of names) outputs.push(readShardOutput(name, readShard(io, name)));
      const merged = mergeShards(outputs);
      exit.code = merged.failed ? EXIT.invalid : EXIT.ok;
      if (flags.json === true) printJson(io, merged.json);
      else printMergedText(io, merged);
    });
}
