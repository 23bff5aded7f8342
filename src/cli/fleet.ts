/**
 * `labelwise fleet validate|resolve|explain|hosts|affected`: a Datum-style fleet repository on the
 * command line. Each subcommand reads the repository through the fleet io adapter, calls the pure
 * core and prints text or `--json`. Problems print as `path:line: message`, paths relative to the
 * fleet root.
 */
import { resolve as resolvePath } from 'node:path';
import { LabelwiseError, escapeControl } from '../base/index.js';
import {
  SCHEMA_VERSION,
  affectedNotes,
  defaultThreads,
  explainResource,
  fleetChanges,
  fleetDiagnosticsJson,
  formatChangesMarkdown,
  formatChangesText,
  formatProblem,
  hostIndex,
  layerHint,
  loadFleetAt,
  loadFleetDir,
  loadFleetSource,
  manifestJson,
  parseShard,
  prepareFleet,
  resolveHost,
  selectorOf,
  shardHosts,
  shortDigest,
  threadsOf,
  validateInParallel,
} from '../fleet/index.js';
import type { FleetSource, Shard } from '../fleet/index.js';
import { SYNTAXES } from '../selector/index.js';
import type { DesiredValue, Fleet, FleetProblem, HostManifest } from '../fleet/index.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { paint, printJson, renderTable } from './output.js';
import { configureSubcommand, createProgram, runProgram } from './program.js';

interface JsonFlag {
  json?: boolean;
}

/** Text for a value in tables: bare when unambiguous, JSON otherwise. */
function show(value: DesiredValue): string {
  if (typeof value === 'string')
    return /^[^\s"'{}[\],:#]+$/.test(value) ? value : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => show(v as string)).join(', ')}]`;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function colourProblem(io: CliIO, p: FleetProblem & { hosts?: readonly string[] }): string {
  return paint(io, p.severity === 'error' ? 'red' : 'yellow', formatProblem(p));
}

/** Loads a fleet; a repository without exactly one Fleet document is an input error. */
async function load(io: CliIO, repo: string): Promise<Fleet> {
  return (await loadSource(io, repo)).fleet;
}

/** {@link load}, keeping the files read for worker threads. */
async function loadSource(io: CliIO, repo: string): Promise<FleetSource> {
  const source = await loadFleetSource(resolvePath(io.cwd, repo), repo);
  const fleet = source.fleet;
  const fatal = fleet.problems.filter(
    (p) => p.code === 'FLEET_NO_FLEET' || p.code === 'FLEET_SEVERAL_FLEETS',
  );
  const first = fatal[0];
  if (first !== undefined) {
    const where = first.file === undefined ? {} : { file: first.file, line: first.line ?? 1 };
    const others = fatal.slice(1).map((p) => `${p.file}:${p.line}`);
    throw new LabelwiseError(
      first.code,
      others.length === 0 ? first.message : `${first.message} (also at ${others.join(', ')})`,
      where,
      'a fleet repository has exactly one `type: Fleet` document, at its root',
    );
  }
  return source;
}

/** Prints repository errors to stderr (text mode); returns whether there were any. */
function reportLoadErrors(io: CliIO, fleet: Fleet, json: boolean): boolean {
  const errors = fleet.problems.filter((p) => p.severity === 'error');
  if (!json) for (const p of errors) io.stderr(`${colourProblem(io, p)}\n`);
  return errors.length > 0;
}

/** `validate`'s header, as Datum prints it: fleet name, schema version, counts, layers' reach. */
function validateHeader(
  fleet: Fleet,
  resolved: number,
  shard: Shard | undefined,
  layers: readonly { name: string; precedence: number; hosts: number }[],
): string {
  const total = fleet.hosts.length;
  const hosts =
    shard === undefined
      ? `${total}`
      : `${resolved} of ${total} (shard ${shard.index}/${shard.count})`;
  const shown = layers.slice(0, 50);
  const rows = shown.map((l) => [
    `  ${l.name}`,
    `precedence ${l.precedence}`,
    `${l.hosts} host${l.hosts === 1 ? '' : 's'}`,
  ]);
  const more =
    layers.length > shown.length
      ? `  and ${layers.length - shown.length} more (--json lists all)\n`
      : '';
  return `${renderTable([
    ['fleet', escapeControl(fleet.fleet?.name ?? '', true)],
    ['schema', SCHEMA_VERSION],
    ['hosts', hosts],
    ['layers', String(layers.length)],
  ])}${rows.length === 0 ? '' : renderTable(rows.map((r) => r.map((c) => escapeControl(c, true))))}${more}\n`;
}

const EXAMPLES = {
  validate: 'labelwise fleet validate examples/homelab/fleet',
  resolve: 'labelwise fleet resolve examples/homelab/fleet --host web-001 --json',
  explain: "labelwise fleet explain examples/homelab/fleet --host web-001 'File[nginx-config]'",
  hosts: 'labelwise fleet hosts examples/homelab/fleet --layer role-web',
  affected: 'labelwise fleet affected examples/homelab/fleet --from HEAD~1 --to HEAD',
};

/** `labelwise fleet …`. */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const exit = { code: EXIT.ok as number };
  const program = createProgram(
    'labelwise fleet',
    'Resolve and explain a Datum-style fleet repository.',
    io,
  );

  configureSubcommand(program.command('validate'), io)
    .description(
      'resolve every host; report every problem, grouped across hosts, and lint matchers',
    )
    .argument('<repo>', 'the fleet directory (holding the Fleet document)')
    .option('--shard <i/n>', 'resolve only shard I of N (hosts split by a stable hash of the name)')
    .option(
      '--threads <n>',
      'worker threads resolving hosts (default: every core for fleets of 2,000 hosts or more)',
    )
    .option('--json', 'print JSON on stdout')
    .addHelpText('after', `\nExit 1 when any error is found.\n\nExample:\n  ${EXAMPLES.validate}\n`)
    .action(async (repo: string, flags: JsonFlag & { shard?: string; threads?: string }) => {
      const shard = flags.shard === undefined ? undefined : parseShard(flags.shard);
      const threads = threadsOf(flags.threads);
      const source = await loadSource(io, repo);
      const fleet = source.fleet;
      const names = shardHosts(
        fleet.hosts.map((h) => h.name),
        shard,
      );
      const parallel = threads ?? (names.length >= 2000 ? defaultThreads() : 1);
      const report = await validateInParallel(
        fleet,
        source.files,
        source.options,
        { hosts: names },
        { threads: parallel },
      );
      const index = hostIndex(fleet);
      const layerHosts = fleet.layers.map((l) => ({
        name: l.name,
        precedence: l.precedence,
        hosts: l.invalid === true ? 0 : index.select(l.selector).length,
      }));
      exit.code = report.errors > 0 ? EXIT.invalid : EXIT.ok;
      if (flags.json) {
        printJson(io, {
          fleet: fleet.fleet?.name ?? null,
          schema: SCHEMA_VERSION,
          ...(shard === undefined ? {} : { shard: `${shard.index}/${shard.count}` }),
          hosts: report.hosts,
          layers: report.layers,
          resources: report.resources,
          layerHosts,
          ...fleetDiagnosticsJson(report.problems),
          digests: report.digests,
        });
        return;
      }
      io.stdout(validateHeader(fleet, report.hosts, shard, layerHosts));
      for (const p of report.problems) io.stdout(`${colourProblem(io, p)}\n`);
      if (report.warnings > 0)
        io.stdout(`${report.warnings} warning${report.warnings === 1 ? '' : 's'}\n`);
      io.stdout(
        `resolved ${report.hosts} host${report.hosts === 1 ? '' : 's'}, ${report.errors} error${report.errors === 1 ? '' : 's'}\n`,
      );
    });

  configureSubcommand(program.command('resolve'), io)
    .description(
      "print a host's effective manifest: layers, resources, desired state and digest (every host of a shard without --host)",
    )
    .argument('<repo>', 'the fleet directory')
    .option('--host <name>', 'the Host to resolve')
    .option('--shard <i/n>', 'without --host: resolve every host of shard I of N')
    .option('--json', 'print JSON on stdout')
    .addHelpText(
      'after',
      `\nExit 1 when a resolution has errors (they go to stderr).\n\nExample:\n  ${EXAMPLES.resolve}\n`,
    )
    .action(async (repo: string, flags: JsonFlag & { host?: string; shard?: string }) => {
      if (flags.host !== undefined && flags.shard !== undefined)
        throw new LabelwiseError(
          'FLEET_INVALID_SHARD',
          '--shard resolves every host of a shard; it cannot be combined with --host',
        );
      const shard = flags.shard === undefined ? undefined : parseShard(flags.shard);
      const fleet = await load(io, repo);
      const loadErrors = reportLoadErrors(io, fleet, flags.json === true);
      const repository = fleet.problems.filter((p) => p.severity === 'error');
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
      if (flags.json) {
        if (flags.host !== undefined) {
          const manifest = manifests[0] as HostManifest;
          printJson(io, {
            ...manifestJson(manifest),
            ...fleetDiagnosticsJson([...repository, ...manifest.problems]),
          });
        } else
          printJson(io, {
            ...(shard === undefined ? {} : { shard: `${shard.index}/${shard.count}` }),
            hosts: manifests.map(manifestJson),
            ...fleetDiagnosticsJson([
              ...repository,
              ...manifests.flatMap((m) => m.problems.map((p) => ({ ...p, host: m.host }))),
            ]),
          });
        return;
      }
      if (flags.host === undefined) {
        for (const m of manifests) {
          for (const p of m.problems) io.stderr(`${colourProblem(io, { ...p, host: m.host })}\n`);
        }
        io.stdout(
          renderTable(
            manifests.map((m) => [
              escapeControl(m.host, true),
              m.digest,
              `${m.resources.length} resource${m.resources.length === 1 ? '' : 's'}`,
            ]),
          ),
        );
        return;
      }
      const manifest = manifests[0] as HostManifest;
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
    });

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
        printJson(io, {
          ...result,
          ...fleetDiagnosticsJson([
            ...fleet.problems.filter((p) => p.severity === 'error'),
            ...manifest.problems,
          ]),
        });
        return;
      }
      const about = result.applies ? new Set(result.problems) : new Set();
      const elsewhere = manifest.problems.filter((p) => !about.has(p));
      for (const p of elsewhere) io.stderr(`${colourProblem(io, p)}\n`);
      if (elsewhere.length > 0)
        io.stderr(
          `${escapeControl(flags.host, true)} does not resolve (${elsewhere.length} problem${elsewhere.length === 1 ? '' : 's'} above)\n`,
        );
      if (!result.applies) {
        io.stdout(
          `${result.ref} does not apply to ${result.host}; the layers that declare it do not match:\n`,
        );
        for (const layer of result.declaredBy)
          io.stdout(
            `  ${layer.layer} (precedence ${layer.precedence}): ${layer.failed.map((f) => f.text).join('; ')}\n`,
          );
        return;
      }
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
        for (const layer of result.notApplied)
          io.stdout(
            `  ${layer.layer} (precedence ${layer.precedence}): ${layer.failed.map((f) => f.text).join('; ')}\n`,
          );
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
    });

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
            {},
            layerHint(fleet),
          );
        const selector =
          layer?.selector ??
          (flags.selector === undefined ? undefined : selectorOf(flags.selector, flags.syntax));
        const names =
          selector === undefined
            ? fleet.hosts.map((h) => h.name)
            : hostIndex(fleet).select(selector);
        const byName = new Map(fleet.hosts.map((h) => [h.name, h]));
        const hosts = names.map((name) => {
          const labels = { ...(byName.get(name)?.labels ?? {}) };
          return { name, labels };
        });
        // A Layer with errors applies to no host; that is not an answer about its matcher.
        if (layer?.invalid === true) exit.code = EXIT.invalid;
        if (flags.json) {
          printJson(io, {
            ...(layer === undefined ? {} : { layer: layer.name }),
            ...(flags.selector === undefined ? {} : { selector: flags.selector }),
            hosts,
            ...(layer?.invalid === true ? { invalid: true } : {}),
            ...fleetDiagnosticsJson(fleet.problems.filter((p) => p.severity === 'error')),
          });
          return;
        }
        for (const host of hosts) {
          const labels = Object.entries(host.labels)
            .map(([k, v]) => `${k}=${v}`)
            .join(',');
          io.stdout(escapeControl(labels === '' ? `${host.name}\n` : `${host.name}  ${labels}\n`));
        }
        const what = layer?.name ?? (flags.selector === undefined ? undefined : 'the selector');
        if (layer?.invalid === true)
          io.stderr(`${layer.name}'s Layer document has errors (above), so it reaches no host\n`);
        else if (what !== undefined)
          io.stderr(
            escapeControl(
              `${what} ${layer === undefined ? 'matches' : 'reaches'} ${hosts.length} of ${fleet.hosts.length} host${fleet.hosts.length === 1 ? '' : 's'}\n`,
            ),
          );
        if (loadErrors && exit.code === EXIT.ok && layer === undefined && selector === undefined)
          exit.code = EXIT.invalid;
      },
    );

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
        const affected = changes.filter((h) => h.status !== 'unchanged').length;
        if (flags.exitCode === true && affected > 0) exit.code = EXIT.differences;
        if (flags.json) {
          printJson(io, {
            affected,
            total: changes.length,
            hosts: changes,
            ...fleetDiagnosticsJson(
              [before, after].flatMap((f) => f.problems.filter((p) => p.severity === 'error')),
            ),
          });
          return;
        }
        for (const note of affectedNotes(repo, flags, before, after)) io.stderr(note);
        if (flags.format === 'markdown') {
          io.stdout(formatChangesMarkdown(changes));
          return;
        }
        io.stdout(
          `${affected} of ${changes.length} host${changes.length === 1 ? '' : 's'} affected\n`,
        );
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
      },
    );

  program.addHelpText(
    'after',
    `\nExamples:\n${Object.values(EXAMPLES)
      .map((e) => `  ${e}`)
      .join('\n')}\n`,
  );
  if (args.length === 0) {
    io.stderr(program.helpInformation());
    return EXIT.invalid;
  }
  return runProgram(program, args, exit);
}
