/**
 * `labelwise anchor run` (the daemon, configured by ANCHORD_* variables) and
 * `labelwise anchor check COMPOSE_FILE… [--project NAME] [--profile P] [--json]` (the static check).
 */
import { Option } from 'commander';
import type { Command } from 'commander';
import { LabelwiseError } from '../base/index.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { paint, paintDiagnostic, printJson, renderTable } from './output.js';
import { configureSubcommand, createProgram, repeatable, runProgram } from './program.js';

const RUN_HELP = `
Configuration comes only from the environment:
  ANCHORD_LABEL_SELECTOR   equality list k=v,k2=v2 (wins over ANCHORD_PROJECT)
  ANCHORD_PROJECT          Compose project to serve (default: COMPOSE_PROJECT_NAME)
  ANCHORD_EXT_NETWORK      Docker network of the outside address (else ANCHORD_EXT_IFACE, default eth0)
  ANCHORD_SHARED_NETWORK   network backend addresses are read from (default: chosen automatically)
  ANCHORD_POLL_INTERVAL    safety-net resync, e.g. 30s or 2m30s (default 30s)
  ANCHORD_ADDRESS_MODE     bootstrap (default), or dhcp-refresh to lease the outside address by DHCP
  ANCHORD_DHCP_HOSTNAME    dhcp-refresh: hostname and client id (default: the project)
  ANCHORD_DHCP_BACKOFF_MAX dhcp-refresh: longest wait between attempts (default 5m)
  ANCHORD_LOG_LEVEL        debug, info, warn, error (default info)
  ANCHORD_METRICS_ADDR     /healthz, /readyz, /metrics (default 127.0.0.1:9090; "" disables)
  DOCKER_HOST              unix:///var/run/docker.sock (default) or tcp://host:port

Logs are JSON lines on stdout. SIGTERM or SIGINT removes the nftables tables and exits 0;
a configuration error logs one "fatal" line and exits 1.

Example:
  ANCHORD_LABEL_SELECTOR=anchord.role=ldap-outpost ANCHORD_EXT_NETWORK=dmz labelwise anchor run
`;

const CHECK_HELP = `
Loads the files as Docker Compose does (.env, project name, YAML aliases and merge keys, !reset
and !override, interpolation, profiles, extends, env_file) and reports, per anchor, the backends
it claims and the DNAT entries it would install. Errors (exit 1): invalid selectors or expose labels, two
anchors whose scopes can claim the same container (with a witness label set), two backends of
one anchor on the same port. Warning: a backend no anchor claims.

Examples:
  labelwise anchor check compose.yaml
  labelwise anchor check compose.yaml compose.override.yaml --project ix-authentik --json
`;

/** anchord's modes this anchor does not implement: recognised, and refused with "not supported". */
const UNSUPPORTED_MODES = ['dhcp-refresh'];

const EXTERNAL_HELP = `
The sidecar of a follower stack: keeps one container attached to a network name another stack
recreates. It releases the follower when it is the network's last endpoint (so the other stack's
network rm can proceed) and reattaches it to the new network ID once that stack has settled.
  ANCHORD_FOLLOW_NETWORK         the network name to follow (required)
  ANCHORD_FOLLOW_TARGET          the follower: a service of this Compose project, or a container name (required)
  ANCHORD_FOLLOW_RESTART         restart the follower after a reattach (default false)
  ANCHORD_FOLLOW_EVENT_BACKOFF   wait after a network create before probing (default 2s)
  COMPOSE_PROJECT_NAME, ANCHORD_LOG_LEVEL, ANCHORD_METRICS_ADDR, DOCKER_HOST
`;

const WRAP_HELP = `
The sidecar of a wrap-stack: follows every sibling in its own Compose project whose network_mode
is container:<owner>, and recreates it against container:<owner> when the owner is recreated
under the same name (Docker resolves the reference only at create). Configuration:
  COMPOSE_PROJECT_NAME           the wrap-stack's project (required; Compose sets it)
  ANCHORD_WRAP_POLL_INTERVAL     safety-net recheck (default 30s)
  ANCHORD_WRAP_RESTART_TIMEOUT   stop timeout of a recreate (default 10s)
  ANCHORD_LOG_LEVEL, ANCHORD_METRICS_ADDR, DOCKER_HOST   as for the network anchor

Needs the Docker socket with container create, start and remove.
`;

const DOCTOR_HELP = `
One-shot diagnostics through the Docker API (DOCKER_HOST); no ANCHORD_* configuration.
  stale-netns   list containers whose network_mode: container:<ref> names a container that no
                longer exists, grouped by the gone container, with the Compose command that
                recreates each

Exit 0 with the report (found or not); 1 when Docker cannot be asked or the subcommand is unknown.
`;

const SERVICE_HELP = `
The sidecar a backend shares its network namespace with (network_mode: service:<it>): keeps the
namespace's default route pointed at the network anchor, so replies to outside clients return
through it. Configuration comes only from the environment:
  ANCHORD_GATEWAY_HOSTNAME          network anchor name in Docker DNS (default anchord)
  ANCHORD_GATEWAY_IP                fixed gateway instead: one IPv4 and/or one IPv6, comma-separated
  ANCHORD_GATEWAY_RESOLVE_INTERVAL  re-resolve period (default 5s)
  ANCHORD_LOG_LEVEL, ANCHORD_METRICS_ADDR   as for the network anchor

Needs NET_ADMIN. SIGTERM removes the route and restores the namespace's previous default route.

Example:
  ANCHORD_GATEWAY_HOSTNAME=anchor-ldap labelwise anchor service-anchor
`;

async function runDaemon(
  io: CliIO,
  modeArgument?: string,
  doctorArguments?: readonly string[],
): Promise<number> {
  const { runAnchorDaemon } = await import('../anchor/index.js');
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => controller.abort(signal);
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    return await runAnchorDaemon({
      env: io.env,
      ...(modeArgument !== undefined ? { modeArgument } : {}),
      write: (line) => io.stdout(line),
      ...(doctorArguments !== undefined
        ? {
            doctorArguments,
            print: (text) => io.stdout(text),
            writeError: (text) => io.stderr(text),
          }
        : {}),
      signal: controller.signal,
    });
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

async function check(
  files: readonly string[],
  options: { project?: string; profile?: string[]; json?: boolean },
  io: CliIO,
): Promise<number> {
  // The static check's entry point: it never loads the daemon or the Docker client.
  const { checkComposeProject, checkReportJson, openCheckInput } =
    await import('../anchor/index.js');
  const { countDiagnostics, escapeControl } = await import('../base/index.js');
  const input = openCheckInput(files, io.cwd);
  for (const [i, file] of input.files.entries()) {
    if (input.reader.kind(file) === 'file') continue;
    const named = files[i] ?? file;
    const why = input.reader.diagnostics.find((d) => d.file === file)?.message;
    throw new LabelwiseError(
      'ANCHOR_COMPOSE_UNREADABLE',
      `cannot read ${escapeControl(JSON.stringify(named), true)}: ${why ?? 'no such file'}`,
      { source: { file: named }, kind: 'unavailable' },
    );
  }
  const report = checkComposeProject({
    files: input.files,
    fs: input.reader,
    directoryName: input.directoryName,
    project: options.project,
    environment: io.env,
    profiles: options.profile,
  });
  const counts = countDiagnostics(report.diagnostics);
  const status = counts.errors > 0 ? EXIT.invalid : EXIT.ok;
  if (options.json === true) {
    printJson(io, checkReportJson(report));
    return status;
  }
  // Service names, scopes and labels come from the files: escaped before they reach a terminal.
  const safe = (text: string): string => escapeControl(text, true);
  let out = `project ${paint(io, 'bold', safe(report.project))}: ${report.anchors.length} anchor(s)\n`;
  for (const anchor of report.anchors) {
    const own =
      anchor.profiles === undefined ? '' : `  profiles: ${safe(anchor.profiles.join(', '))}`;
    out += `\n${paint(io, 'bold', safe(anchor.service))}  scope: ${safe(anchor.scope)}${own}\n`;
    if (anchor.entries.length === 0) {
      out += '  claims no backend in these files\n';
      continue;
    }
    const rows = [['FAMILY', 'PROTO', 'PORT', 'BACKEND', 'BACKEND PORT']];
    for (const e of anchor.entries) {
      // A claim that exists only under profiles says which.
      const needs = anchor.backendProfiles?.[e.backend];
      const backend = needs === undefined ? e.backend : `${e.backend} [profile ${needs.join('|')}]`;
      rows.push([e.family, e.proto, String(e.port), safe(backend), String(e.backendPort)]);
    }
    out += `${renderTable(rows).trimEnd().replace(/^/gm, '  ')}\n`;
  }
  if (report.diagnostics.length > 0) out += '\n';
  for (const d of report.diagnostics) {
    out += `${paintDiagnostic(d, io)}\n`;
  }
  out += `\n${counts.errors} error(s), ${counts.warnings} warning(s)\n`;
  io.stdout(out);
  return status;
}

/** `labelwise anchor …`. */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const exit: { code: number } = { code: EXIT.ok };
  const program = createProgram(
    'labelwise anchor',
    'Run the Docker network anchor, or check a Compose project statically.',
    io,
  );
  program.addHelpText(
    'after',
    '\nExamples:\n  ANCHORD_LABEL_SELECTOR=anchord.role=ldap-outpost ANCHORD_EXT_NETWORK=dmz labelwise anchor run\n  labelwise anchor check compose.yaml --json\n',
  );
  registerDaemonCommands(program, io, exit, args);
  registerCheckCommand(program, io, exit);
  return runProgram(program, args, exit);
}

/** One daemon mode as a subcommand; `mode` is what the daemon is told it runs as. */
interface DaemonCommand {
  readonly name: string;
  readonly description: string;
  readonly help: string;
  readonly mode: () => string | undefined;
}

/** A daemon mode's subcommand. Its logs are always JSON lines, so `--json` is taken and hidden. */
function daemonCommand(
  program: Command,
  io: CliIO,
  exit: { code: number },
  spec: DaemonCommand,
): Command {
  const command = configureSubcommand(
    program
      .command(spec.name)
      .description(spec.description)
      .addOption(
        new Option('--json', 'accepted for symmetry: logs are always JSON lines').hideHelp(),
      )
      .addHelpText('after', spec.help),
    io,
  );
  command.action(async () => {
    exit.code = await runDaemon(io, spec.mode());
  });
  return command;
}

/**
 * The daemon modes: `run` (alias `network-anchor`), `service-anchor`, the sidecars
 * `wrap-rebinder` and `external-rebinder`, `doctor`, and the refused ones.
 */
function registerDaemonCommands(
  program: Command,
  io: CliIO,
  exit: { code: number },
  args: readonly string[],
): void {
  // The mode may come first, as anchord takes it (`command: [service-anchor]` in Compose).
  daemonCommand(program, io, exit, {
    name: 'run',
    description:
      'Run the anchor in the mode ANCHORD_MODE names (default network-anchor: discover labelled containers and program nftables DNAT).',
    help: RUN_HELP,
    // `anchor network-anchor` names its mode; `anchor run` leaves it to ANCHORD_MODE.
    mode: () =>
      args.find((arg) => !arg.startsWith('-')) === 'network-anchor' ? 'network-anchor' : undefined,
  }).alias('network-anchor');
  for (const spec of SIDECARS) daemonCommand(program, io, exit, spec);
  const doctor = configureSubcommand(
    program
      .command('doctor')
      .description('Diagnose containers left in a dead network namespace (doctor stale-netns).')
      .argument('[subcommand...]', 'stale-netns')
      .allowUnknownOption()
      .addHelpText('after', DOCTOR_HELP),
    io,
  );
  doctor.action(async () => {
    // Everything after `doctor` is its own, as anchord passes os.Args[2:] on.
    exit.code = await runDaemon(io, 'doctor', args.slice(args.indexOf('doctor') + 1));
  });
  for (const mode of UNSUPPORTED_MODES) {
    const refused = configureSubcommand(
      program.command(mode, { hidden: true }).allowUnknownOption().allowExcessArguments(),
      io,
    );
    refused.action(async () => {
      exit.code = await runDaemon(io, mode);
    });
  }
}

/** The modes that run beside a network anchor, each named by its subcommand. */
const SIDECARS: readonly DaemonCommand[] = [
  {
    name: 'service-anchor',
    description:
      "Run the service-anchor sidecar: point a backend's default route at the network anchor.",
    help: SERVICE_HELP,
    mode: () => 'service-anchor',
  },
  {
    name: 'wrap-rebinder',
    description:
      'Run the wrap-rebinder sidecar: recreate container:<owner> siblings when their owner is recreated.',
    help: WRAP_HELP,
    mode: () => 'wrap-rebinder',
  },
  {
    name: 'external-rebinder',
    description:
      'Run the external-rebinder sidecar: keep a follower attached to a network another stack recreates.',
    help: EXTERNAL_HELP,
    mode: () => 'external-rebinder',
  },
];

/** `check`: the static check of a Compose project's anchors. */
function registerCheckCommand(program: Command, io: CliIO, exit: { code: number }): void {
  const checker = configureSubcommand(
    program
      .command('check')
      .description(
        'Check the anchors and backends of a Compose project (claims, entries, overlap proofs).',
      )
      .argument('<compose-file...>', 'Compose files, merged in order like docker compose -f')
      .option(
        '--project <name>',
        'project name (default: COMPOSE_PROJECT_NAME, else name: in the files, else the directory name)',
      )
      .option(
        '--profile <name>',
        'enable a Compose profile (repeatable; default: COMPOSE_PROFILES)',
        repeatable,
      )
      .option('--json', 'print the report as JSON')
      .addHelpText('after', CHECK_HELP),
    io,
  );
  checker.action(
    async (files: string[], options: { project?: string; profile?: string[]; json?: boolean }) => {
      exit.code = await check(files, options, io);
    },
  );
}
