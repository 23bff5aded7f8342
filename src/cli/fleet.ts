/**
 * `labelwise fleet validate|resolve|explain|hosts|affected`: a Datum-style fleet repository on the
 * command line. Each subcommand reads the repository through the fleet io adapter, calls the pure
 * core and prints text or `--json`. Problems print as `path:line: message`, paths relative to the
 * fleet root.
 */
import { resolve as resolvePath } from 'node:path';
import { LabelwiseError } from '../base/errors.js';
import {
  compareDigests,
  explainResource,
  formatProblem,
  hostIndex,
  loadFleetAt,
  loadFleetDir,
  manifestJson,
  prepareFleet,
  resolveHost,
  shortDigest,
  validateFleet,
} from '../fleet/index.js';
import type { DesiredValue, Fleet, FleetProblem } from '../fleet/index.js';
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

function problemJson(p: FleetProblem & { hosts?: readonly string[] }): Record<string, unknown> {
  return {
    severity: p.severity,
    code: p.code,
    ...(p.file === undefined ? {} : { file: p.file }),
    ...(p.line === undefined ? {} : { line: p.line }),
    ...(p.object === undefined ? {} : { object: p.object }),
    message: p.message,
    ...(p.hosts === undefined
      ? p.host === undefined
        ? {}
        : { hosts: [p.host] }
      : { hosts: [...p.hosts] }),
    text: formatProblem(p),
  };
}

function colourProblem(io: CliIO, p: FleetProblem & { hosts?: readonly string[] }): string {
  return paint(io, p.severity === 'error' ? 'red' : 'yellow', formatProblem(p));
}

/** Loads a fleet; a repository without exactly one Fleet document is an input error. */
async function load(io: CliIO, repo: string): Promise<Fleet> {
  const fleet = await loadFleetDir(resolvePath(io.cwd, repo), repo);
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
  return fleet;
}

/** Prints repository errors to stderr (text mode); returns whether there were any. */
function reportLoadErrors(io: CliIO, fleet: Fleet, json: boolean): boolean {
  const errors = fleet.problems.filter((p) => p.severity === 'error');
  if (!json) for (const p of errors) io.stderr(`${colourProblem(io, p)}\n`);
  return errors.length > 0;
}

/** The layers a user could have meant, kept short for fleets with thousands of layers. */
function layerHint(fleet: Fleet): string {
  const names = fleet.layers.map((l) => l.name);
  if (names.length === 0) return 'this fleet has no Layer documents';
  const shown = names.slice(0, 10).join(', ');
  return names.length <= 10
    ? `layers: ${shown}`
    : `layers: ${shown} and ${names.length - 10} more (labelwise fleet resolve --host H lists a host's layers)`;
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
    .option('--json', 'print JSON on stdout')
    .addHelpText('after', `\nExit 1 when any error is found.\n\nExample:\n  ${EXAMPLES.validate}\n`)
    .action(async (repo: string, flags: JsonFlag) => {
      const fleet = await load(io, repo);
      const report = validateFleet(fleet);
      exit.code = report.errors > 0 ? EXIT.invalid : EXIT.ok;
      if (flags.json) {
        printJson(io, {
          hosts: report.hosts,
          layers: report.layers,
          resources: report.resources,
          errors: report.errors,
          warnings: report.warnings,
          problems: report.problems.map(problemJson),
          digests: report.digests,
        });
        return;
      }
      for (const p of report.problems) io.stdout(`${colourProblem(io, p)}\n`);
      if (report.warnings > 0)
        io.stdout(`${report.warnings} warning${report.warnings === 1 ? '' : 's'}\n`);
      io.stdout(
        `resolved ${report.hosts} host${report.hosts === 1 ? '' : 's'}, ${report.errors} error${report.errors === 1 ? '' : 's'}\n`,
      );
    });

  configureSubcommand(program.command('resolve'), io)
    .description("print a host's effective manifest: layers, resources, desired state and digest")
    .argument('<repo>', 'the fleet directory')
    .requiredOption('--host <name>', 'the Host to resolve')
    .option('--json', 'print JSON on stdout')
    .addHelpText(
      'after',
      `\nExit 1 when the host's resolution has errors (they go to stderr).\n\nExample:\n  ${EXAMPLES.resolve}\n`,
    )
    .action(async (repo: string, flags: JsonFlag & { host: string }) => {
      const fleet = await load(io, repo);
      const loadErrors = reportLoadErrors(io, fleet, flags.json === true);
      const manifest = resolveHost(prepareFleet(fleet), flags.host, { provenance: false });
      exit.code = loadErrors || manifest.problems.length > 0 ? EXIT.invalid : EXIT.ok;
      if (flags.json) {
        const json = manifestJson(manifest);
        const repository = fleet.problems.filter((p) => p.severity === 'error');
        // Repository errors make the exit code 1; say why in the JSON too.
        if (repository.length > 0)
          printJson(io, {
            ...json,
            errors: [
              ...repository.map((p) => ({
                code: p.code,
                ...(p.file === undefined ? {} : { file: p.file }),
                ...(p.line === undefined ? {} : { line: p.line }),
                message: p.message,
                text: formatProblem(p),
              })),
              ...(json.errors ?? []),
            ],
          });
        else printJson(io, json);
        return;
      }
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
      reportLoadErrors(io, fleet, flags.json === true);
      const result = explainResource(prepareFleet(fleet), flags.host, ref);
      exit.code = result.applies ? EXIT.ok : EXIT.invalid;
      if (flags.json) {
        printJson(io, result);
        return;
      }
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
        exit.code = EXIT.invalid;
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
    .description('list the hosts a layer reaches')
    .argument('<repo>', 'the fleet directory')
    .requiredOption('--layer <name>', 'the Layer')
    .option('--json', 'print JSON on stdout')
    .addHelpText(
      'after',
      `\nExit 1 when the Layer document has errors (it then reaches no host).\n\nExample:\n  ${EXAMPLES.hosts}\n`,
    )
    .action(async (repo: string, flags: JsonFlag & { layer: string }) => {
      const fleet = await load(io, repo);
      reportLoadErrors(io, fleet, flags.json === true);
      const layer = fleet.layers.find((l) => l.name === flags.layer);
      if (layer === undefined)
        throw new LabelwiseError(
          'FLEET_UNKNOWN_LAYER',
          `no Layer named ${JSON.stringify(flags.layer)} in this fleet`,
          {},
          layerHint(fleet),
        );
      const hosts = hostIndex(fleet).select(layer.selector);
      // A Layer with errors applies to no host; that is not an answer about its matcher.
      if (layer.invalid === true) exit.code = EXIT.invalid;
      if (flags.json) {
        printJson(io, {
          layer: layer.name,
          hosts,
          ...(layer.invalid === true ? { invalid: true } : {}),
        });
        return;
      }
      for (const host of hosts) io.stdout(`${host}\n`);
      if (layer.invalid === true)
        io.stderr(`${layer.name}'s Layer document has errors (above), so it reaches no host\n`);
      else
        io.stderr(
          `${layer.name} reaches ${hosts.length} of ${fleet.hosts.length} host${fleet.hosts.length === 1 ? '' : 's'}\n`,
        );
    });

  configureSubcommand(program.command('affected'), io)
    .description("compare every host's manifest digest between two git revisions")
    .argument('<repo>', 'the fleet directory, inside a git repository')
    .requiredOption('--from <rev>', 'the older revision')
    .option('--to <rev>', 'the newer revision (default: the working tree)')
    .option('--json', 'print JSON on stdout')
    .addHelpText('after', `\nExample:\n  ${EXAMPLES.affected}\n`)
    .action(async (repo: string, flags: JsonFlag & { from: string; to?: string }) => {
      const dir = resolvePath(io.cwd, repo);
      const before = await loadFleetAt(dir, flags.from);
      const after =
        flags.to === undefined ? await loadFleetDir(dir) : await loadFleetAt(dir, flags.to);
      const digests = (fleet: Fleet): Record<string, string> => {
        const out: Record<string, string> = Object.create(null); // `__proto__` is a valid host name
        const prepared = prepareFleet(fleet);
        for (const host of fleet.hosts)
          out[host.name] = resolveHost(prepared, host.name, { provenance: false }).digest;
        return out;
      };
      const report = compareDigests(digests(before), digests(after));
      if (flags.json) {
        printJson(io, report);
        return;
      }
      for (const [label, fleet, isRevision] of [
        [flags.from, before, true],
        [flags.to ?? 'the working tree', after, flags.to !== undefined],
      ] as const) {
        const errors = fleet.problems.filter((p) => p.severity === 'error').length;
        const rootless = fleet.problems.find(
          (p) => p.code === 'FLEET_NO_FLEET' || p.code === 'FLEET_SEVERAL_FLEETS',
        );
        if (rootless !== undefined)
          io.stderr(
            `note: at ${label}, ${rootless.code === 'FLEET_NO_FLEET' ? `${repo} holds no Fleet document` : `${repo} holds more than one Fleet document`}, so no host is resolved there\n`,
          );
        else if (errors > 0)
          io.stderr(
            `note: ${label} has ${errors} repository error${errors === 1 ? '' : 's'}; run labelwise fleet validate${isRevision ? ` on a checkout of ${label}` : ''}\n`,
          );
        // A Host whose document has errors is not resolved, so it would read as removed or added.
        const broken = [...fleet.invalidHosts.keys()].sort();
        if (broken.length > 0)
          io.stderr(
            `note: at ${label}, ${broken.join(', ')} ${broken.length === 1 ? 'has' : 'have'} Host document errors and ${broken.length === 1 ? 'is' : 'are'} left out of the comparison\n`,
          );
      }
      io.stdout(
        `${report.affected} of ${report.total} host${report.total === 1 ? '' : 's'} affected\n`,
      );
      io.stdout(
        renderTable(
          report.hosts.map((h) => {
            switch (h.status) {
              case 'changed':
                return [h.host, `${shortDigest(h.from)} → ${shortDigest(h.to)}`];
              case 'unchanged':
                return [h.host, paint(io, 'dim', 'unchanged')];
              case 'added':
                return [h.host, `added (${shortDigest(h.to)})`];
              case 'removed':
                return [h.host, `removed (was ${shortDigest(h.from)})`];
            }
          }),
        ),
      );
    });

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
