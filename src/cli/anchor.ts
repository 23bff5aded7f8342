/**
 * `labelwise anchor run` (the daemon, configured by ANCHORD_* variables) and
 * `labelwise anchor check COMPOSE_FILE… [--project NAME] [--json]` (the static check).
 */
import { Option } from 'commander';
import { LabelwiseError } from '../base/errors.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { paint, printJson, renderTable } from './output.js';
import { configureSubcommand, createProgram, runProgram } from './program.js';

const RUN_HELP = `
Configuration comes only from the environment:
  ANCHORD_LABEL_SELECTOR   equality list k=v,k2=v2 (wins over ANCHORD_PROJECT)
  ANCHORD_PROJECT          Compose project to serve (default: COMPOSE_PROJECT_NAME)
  ANCHORD_EXT_NETWORK      Docker network of the outside address (else ANCHORD_EXT_IFACE, default eth0)
  ANCHORD_SHARED_NETWORK   network backend addresses are read from (default: chosen automatically)
  ANCHORD_POLL_INTERVAL    safety-net resync, e.g. 30s or 2m30s (default 30s)
  ANCHORD_LOG_LEVEL        debug, info, warn, error (default info)
  ANCHORD_METRICS_ADDR     /healthz, /readyz, /metrics (default 127.0.0.1:9090; "" disables)
  DOCKER_HOST              unix:///var/run/docker.sock (default) or tcp://host:port

Logs are JSON lines on stdout. SIGTERM or SIGINT removes the nftables tables and exits 0;
a configuration error logs one "fatal" line and exits 1.

Example:
  ANCHORD_LABEL_SELECTOR=anchord.role=ldap-outpost ANCHORD_EXT_NETWORK=dmz labelwise anchor run
`;

const CHECK_HELP = `
Reads the files as Docker Compose merges them and reports, per anchor, the backends it claims
and the DNAT entries it would install. Errors (exit 1): invalid selectors or expose labels, two
anchors whose scopes can claim the same container (with a witness label set), two backends of
one anchor on the same port. Warning: a backend no anchor claims.

Examples:
  labelwise anchor check compose.yaml
  labelwise anchor check compose.yaml compose.override.yaml --project ix-authentik --json
`;

async function runDaemon(io: CliIO): Promise<number> {
  const { runAnchorDaemon } = await import('../anchor/run.js');
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => controller.abort(signal);
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    return await runAnchorDaemon({
      env: io.env,
      write: (line) => io.stdout(line),
      signal: controller.signal,
    });
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

async function check(
  files: readonly string[],
  options: { project?: string; json?: boolean },
  io: CliIO,
): Promise<number> {
  const { readComposeFiles } = await import('../anchor/adapters/compose-files.js');
  const { loadComposeProject } = await import('../anchor/compose/compose-model.js');
  const { checkAnchors } = await import('../anchor/compose/check.js');
  const input = await readComposeFiles(files, io.cwd);
  const variables: Record<string, string | undefined> = { ...input.dotEnv };
  for (const [key, value] of Object.entries(io.env))
    if (value !== undefined) variables[key] = value;
  const project = options.project ?? (io.env.COMPOSE_PROJECT_NAME || undefined);
  if (project !== undefined && !/^[a-z0-9][a-z0-9_-]*$/.test(project)) {
    throw new LabelwiseError(
      'ANCHOR_INVALID_PROJECT_NAME',
      `project name ${JSON.stringify(project)} is invalid`,
      {},
      'use lower-case letters, digits, "_" and "-", starting with a letter or digit',
    );
  }
  const loaded = loadComposeProject(input.files, {
    project,
    directoryName: input.directoryName,
    variables,
  });
  const report = checkAnchors(loaded.project, loaded.issues);
  if (options.json === true) {
    printJson(io, report);
    return report.errors.length > 0 ? EXIT.invalid : EXIT.ok;
  }
  let out = `project ${paint(io, 'bold', report.project)}: ${report.anchors.length} anchor(s)\n`;
  for (const anchor of report.anchors) {
    out += `\n${paint(io, 'bold', anchor.service)}  scope: ${anchor.scope}\n`;
    if (anchor.entries.length === 0) {
      out += '  claims no backend in these files\n';
      continue;
    }
    const rows = [['FAMILY', 'PROTO', 'PORT', 'BACKEND', 'BACKEND PORT']];
    for (const e of anchor.entries)
      rows.push([e.family, e.proto, String(e.port), e.backend, String(e.backendPort)]);
    out += `${renderTable(rows).trimEnd().replace(/^/gm, '  ')}\n`;
  }
  const line = (issue: (typeof report.errors)[number], colour: 'red' | 'yellow'): string =>
    `${issue.file}${issue.line !== undefined ? `:${issue.line}` : ''}: ${paint(io, colour, issue.code)}: ${issue.message}\n`;
  if (report.errors.length + report.warnings.length > 0) out += '\n';
  for (const issue of report.errors) out += line(issue, 'red');
  for (const issue of report.warnings) out += line(issue, 'yellow');
  out += `\n${report.errors.length} error(s), ${report.warnings.length} warning(s)\n`;
  io.stdout(out);
  return report.errors.length > 0 ? EXIT.invalid : EXIT.ok;
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
  const daemon = configureSubcommand(
    program
      .command('run')
      .alias('network-anchor')
      .description(
        'Run the network-anchor daemon: discover labelled containers and program nftables DNAT.',
      )
      .addOption(
        new Option('--json', 'accepted for symmetry: logs are always JSON lines').hideHelp(),
      )
      .addHelpText('after', RUN_HELP),
    io,
  );
  daemon.action(async () => {
    exit.code = await runDaemon(io);
  });
  const checker = configureSubcommand(
    program
      .command('check')
      .description(
        'Check the anchors and backends of a Compose project (claims, entries, overlap proofs).',
      )
      .argument('<compose-file...>', 'Compose files, merged in order like docker compose -f')
      .option(
        '--project <name>',
        'project name (default: name: in the files, else the directory name)',
      )
      .option('--json', 'print the report as JSON')
      .addHelpText('after', CHECK_HELP),
    io,
  );
  checker.action(async (files: string[], options: { project?: string; json?: boolean }) => {
    exit.code = await check(files, options, io);
  });
  return runProgram(program, args, exit);
}
