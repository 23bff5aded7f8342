/**
 * `labelwise fleet explain|hosts|affected`: asking why a resource reaches a host, which hosts
 * a layer or selector reaches, and what a change between revisions does to each host.
 */
import { resolve as resolvePath } from 'node:path';
import { LabelwiseError, escapeControl } from '../base/index.js';
import {
  affectedJson,
  affectedNotes,
  explainJson,
  explainResource,
  fleetChanges,
  formatChangesMarkdown,
  formatChangesText,
  hostIndex,
  hostsJson,
  layerHint,
  loadFleetAt,
  loadFleetDir,
  prepareFleet,
  resolveHost,
  selectorOf,
  shortDigest,
} from '../fleet/index.js';
import type {
  FleetProblem,
  HostChanges,
  LayerDoc,
  ListedHost,
  ResourceExplanation,
} from '../fleet/index.js';
import { SYNTAXES } from '../selector/index.js';
import { EXAMPLES, colourProblem, load, reportLoadErrors, show } from './fleet-support.js';
import type { JsonFlag } from './fleet-support.js';
import type { Command } from 'commander';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { paint, printJson, renderTable } from './output.js';
import { configureSubcommand } from './program.js';

/** Registers explain, hosts and affected on `program`. */
export function registerInspectCommands(program: Command, io: CliIO, exit: { code: number }): void {
  explainCommand(program, io, exit);
  hostsCommand(program, io, exit);
  affectedCommand(program, io, exit);
}

/** `explain`: why a resource reaches a host and where each field's value comes from. */
function explainCommand(program: Command, io: CliIO, exit: { code: number }): void {
  configureSubcommand(program.command('explain'), io)
    .description(
      'why a resource reaches a host and why each field has its value, or why it does not apply',
    )
    .argument('<repo>', 'the fleet directory')
    .argument('<ref>', 'the resource, as Type[name]')
    .requiredOption('--host <name>', 'the Host to explain for')
    .option('--json', 'print JSON on stdout')
    .addHelpText(
      'after',
      `\nExit 1 when the resource does not apply to the host, or has problems there.\n\nExample:\n  ${EXAMPLES.explain}\n`,
    )
    .action(async (repo: string, ref: string, flags: JsonFlag & { host: string }) => {
      const fleet = await load(io, repo);
      const loadErrors = reportLoadErrors(io, fleet, flags.json === true);
      const prepared = prepareFleet(fleet);
      const manifest = resolveHost(prepared, flags.host, { provenance: true });
      const result = explainResource(prepared, flags.host, ref, manifest);
      // As in Datum, a host that does not resolve is a failure, whichever resource was asked.
      exit.code =
        result.applies && manifest.problems.length === 0 && !loadErrors ? EXIT.ok : EXIT.invalid;
      if (flags.json) {
        printJson(io, explainJson(fleet, manifest, result));
        return;
      }
      printExplanation(io, result, manifest.problems, flags.host);
    });
}

/** Text for {@link explainCommand}; the problems that are not about the resource go to stderr. */
function printExplanation(
  io: CliIO,
  result: ResourceExplanation,
  problems: readonly FleetProblem[],
  host: string,
): void {
  const about = result.applies ? new Set(result.problems) : new Set();
  const elsewhere = problems.filter((p) => !about.has(p));
  for (const p of elsewhere) io.stderr(`${colourProblem(io, p)}\n`);
  if (elsewhere.length > 0)
    io.stderr(
      `${escapeControl(host, true)} does not resolve (${elsewhere.length} problem${elsewhere.length === 1 ? '' : 's'} above)\n`,
    );
  if (!result.applies) {
    printNotApplied(io, result);
    return;
  }
  printApplied(io, result);
}

/** A layer that declares the resource but does not apply, with the terms that failed. */
function failedLayerLine(layer: {
  layer: string;
  precedence: number;
  failed: readonly { text: string }[];
}): string {
  return `  ${layer.layer} (precedence ${layer.precedence}): ${layer.failed.map((f) => f.text).join('; ')}\n`;
}

function printNotApplied(io: CliIO, result: ResourceExplanation & { applies: false }): void {
  io.stdout(
    `${result.ref} does not apply to ${result.host}; the layers that declare it do not match:\n`,
  );
  for (const layer of result.declaredBy) io.stdout(failedLayerLine(layer));
}

function printApplied(io: CliIO, result: ResourceExplanation & { applies: true }): void {
  io.stdout(
    `${paint(io, 'bold', result.ref)} on ${result.host}  target ${result.target ?? '(none)'}\n\nlayers:\n`,
  );
  for (const l of result.layers)
    io.stdout(`  ${l.name} (precedence ${l.precedence}): ${l.reasons.join(', ')}\n`);
  io.stdout('\nfields:\n');
  io.stdout(
    renderTable(
      result.fields.map((f) => [
        `  ${f.field}`,
        show(f.value),
        f.layer,
        f.overrides.map((o) => `overrides ${show(o.value)} from ${o.layer}`).join(', '),
      ]),
    ),
  );
  if (result.edges.length > 0) {
    io.stdout('\nedges:\n');
    io.stdout(renderTable(result.edges.map((e) => [`  ${e.kind}`, e.ref, `from ${e.layer}`])));
  }
  if (result.notApplied.length > 0) {
    io.stdout('\nalso declared by layers that do not apply:\n');
    for (const layer of result.notApplied) io.stdout(failedLayerLine(layer));
  }
  if (result.problems.length > 0) {
    io.stdout('\nproblems:\n');
    for (const p of result.problems) io.stdout(`  ${colourProblem(io, p)}\n`);
  }
  if (result.substitutions.length > 0) {
    io.stdout('\nsubstitutions:\n');
    io.stdout(
      renderTable(
        result.substitutions.map((s) => [
          `  ${s.field}`,
          s.placeholder,
          `→ ${show(s.value)}`,
          `in ${s.layer}`,
        ]),
      ),
    );
  }
}

/** `hosts`: the hosts a layer or selector reaches, with their labels. */
function hostsCommand(program: Command, io: CliIO, exit: { code: number }): void {
  configureSubcommand(program.command('hosts'), io)
    .description(
      'list hosts with their labels: all, those a layer reaches, or those a selector matches',
    )
    .argument('<repo>', 'the fleet directory')
    .option('--layer <name>', 'only the hosts this Layer reaches')
    .option(
      '--selector <expr>',
      "only the hosts this selector matches, in any syntax ('role=web,site in (london)')",
    )
    .option(
      '--syntax <name>',
      `the selector's syntax (${SYNTAXES.join(', ')}); default: the first that reads it`,
    )
    .option('--json', 'print JSON on stdout')
    .addHelpText(
      'after',
      `\nExit 1 when the Layer document has errors (it then reaches no host).\n\nExample:\n  ${EXAMPLES.hosts}\n  labelwise fleet hosts examples/homelab/fleet --selector 'role=web,site in (london)'\n`,
    )
    .action(
      async (
        repo: string,
        flags: JsonFlag & { layer?: string; selector?: string; syntax?: string },
      ) => {
        if (flags.layer !== undefined && flags.selector !== undefined)
          throw new LabelwiseError(
            'FLEET_INVALID_SELECTOR',
            'give --layer or --selector, not both',
          );
        const fleet = await load(io, repo);
        const loadErrors = reportLoadErrors(io, fleet, flags.json === true);
        const layer =
          flags.layer === undefined ? undefined : fleet.layers.find((l) => l.name === flags.layer);
        if (flags.layer !== undefined && layer === undefined)
          throw new LabelwiseError(
            'FLEET_UNKNOWN_LAYER',
            `no Layer named ${JSON.stringify(flags.layer)} in this fleet`,
            { hint: layerHint(fleet) },
          );
        const selector =
          layer?.selector ??
          (flags.selector === undefined ? undefined : selectorOf(flags.selector, flags.syntax));
        const names =
          selector === undefined
            ? fleet.hosts.map((h) => h.name)
            : hostIndex(fleet).select(selector);
        const json = hostsJson(fleet, names, { layer, selector: flags.selector });
        // A Layer with errors applies to no host; that is not an answer about its matcher.
        if (json.invalid === true) exit.code = EXIT.invalid;
        if (flags.json) {
          printJson(io, json);
          return;
        }
        printHosts(io, json.hosts, fleet.hosts.length, layer, flags.selector !== undefined);
        if (loadErrors && exit.code === EXIT.ok && layer === undefined && selector === undefined)
          exit.code = EXIT.invalid;
      },
    );
}

/** Text for {@link hostsCommand}: one host a line, and how many of all were reached. */
function printHosts(
  io: CliIO,
  hosts: readonly ListedHost[],
  total: number,
  layer: LayerDoc | undefined,
  bySelector: boolean,
): void {
  for (const host of hosts) {
    const labels = Object.entries(host.labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    io.stdout(escapeControl(labels === '' ? `${host.name}\n` : `${host.name}  ${labels}\n`));
  }
  const what = layer?.name ?? (bySelector ? 'the selector' : undefined);
  if (layer?.invalid === true)
    io.stderr(`${layer.name}'s Layer document has errors (above), so it reaches no host\n`);
  else if (what !== undefined)
    io.stderr(
      escapeControl(
        `${what} ${layer === undefined ? 'matches' : 'reaches'} ${hosts.length} of ${total} host${total === 1 ? '' : 's'}\n`,
      ),
    );
}

/** `affected`: which hosts a change between two revisions reaches, field by field. */
function affectedCommand(program: Command, io: CliIO, exit: { code: number }): void {
  configureSubcommand(program.command('affected'), io)
    .description(
      'which hosts a change between two git revisions reaches, and what changes for each, field by field',
    )
    .argument('<repo>', 'the fleet directory, inside a git repository')
    .requiredOption('--from <rev>', 'the older revision')
    .option('--to <rev>', 'the newer revision (default: the working tree)')
    .option('--host <name>', 'only this host')
    .option('--show-resources', "Datum's per-resource diff of one host (needs --host)")
    .option('--format <format>', 'text or markdown (for a pull-request comment)', 'text')
    .option('--exit-code', 'exit 2 when any host is affected')
    .option('--json', 'print JSON on stdout')
    .addHelpText('after', `\nExample:\n  ${EXAMPLES.affected}\n`)
    .action(
      async (
        repo: string,
        flags: JsonFlag & {
          from: string;
          to?: string;
          host?: string;
          showResources?: boolean;
          format: string;
          exitCode?: boolean;
        },
      ) => {
        if (flags.format !== 'text' && flags.format !== 'markdown')
          throw new LabelwiseError(
            'FLEET_INVALID_FORMAT',
            `--format must be text or markdown, got ${JSON.stringify(flags.format)}`,
          );
        if (flags.showResources === true && flags.host === undefined)
          throw new LabelwiseError('FLEET_INVALID_FORMAT', '--show-resources needs --host');
        const dir = resolvePath(io.cwd, repo);
        const before = await loadFleetAt(dir, flags.from);
        const after =
          flags.to === undefined ? await loadFleetDir(dir) : await loadFleetAt(dir, flags.to);
        if (
          flags.host !== undefined &&
          !before.hosts.some((h) => h.name === flags.host) &&
          !after.hosts.some((h) => h.name === flags.host)
        )
          throw new LabelwiseError(
            'FLEET_UNKNOWN_HOST',
            `no Host document named ${JSON.stringify(flags.host)} at either revision`,
          );
        const changes = fleetChanges(
          before,
          after,
          flags.host === undefined ? {} : { hosts: [flags.host] },
        );
        const json = affectedJson(changes, before, after);
        if (flags.exitCode === true && json.affected > 0) exit.code = EXIT.differences;
        if (flags.json) {
          printJson(io, json);
          return;
        }
        for (const note of affectedNotes(repo, flags, before, after)) io.stderr(note);
        if (flags.format === 'markdown') {
          io.stdout(formatChangesMarkdown(changes));
          return;
        }
        printAffected(io, changes, json.affected);
      },
    );
}

/** Text for {@link affectedCommand}: the count, one line a host, then each host's changes. */
function printAffected(io: CliIO, changes: readonly HostChanges[], affected: number): void {
  io.stdout(`${affected} of ${changes.length} host${changes.length === 1 ? '' : 's'} affected\n`);
  io.stdout(
    renderTable(
      changes.map((h) => {
        const name = escapeControl(h.host, true);
        switch (h.status) {
          case 'changed':
            return [name, `${shortDigest(h.from ?? '')} → ${shortDigest(h.to ?? '')}`];
          case 'unchanged':
            return [name, paint(io, 'dim', 'unchanged')];
          case 'added':
            return [name, `added (${shortDigest(h.to ?? '')})`];
          case 'removed':
            return [name, `removed (was ${shortDigest(h.from ?? '')})`];
        }
      }),
    ),
  );
  io.stdout(formatChangesText(changes));
}
