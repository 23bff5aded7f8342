/**
 * `labelwise policy authorize|compile|lint DIR`: simulate, compile and lint Linkerd-style inbound
 * policy from a directory of Kubernetes YAML. Cluster settings come from flags (or
 * `--settings FILE`, which flags override).
 */
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import { parse as parseYaml } from 'yaml';
import { LabelwiseError } from '../base/errors.js';
import { compilePolicy, decide, lintPolicy, loadPolicyDir, renderModel } from '../policy/index.js';
import type { PolicyProblem, SettingsInput } from '../policy/index.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { paint, printJson, renderTable } from './output.js';
import { formatProblem, printDecision, problemJson } from './policy-output.js';
import { configureSubcommand, createProgram, runProgram } from './program.js';

interface SettingsFlags {
  settings?: string;
  defaultPolicy?: string;
  clusterNetworks?: string;
  probeNetworks?: string;
  identityDomain?: string;
  controlPlaneNamespace?: string;
  json?: boolean;
}

function settingsOptions(command: Command): Command {
  return command
    .option(
      '--default-policy <policy>',
      'cluster default inbound policy (default: all-unauthenticated)',
    )
    .option(
      '--cluster-networks <cidrs>',
      'comma-separated cluster networks (default: 10.0.0.0/8,100.64.0.0/10,172.16.0.0/12,192.168.0.0/16,fd00::/8)',
    )
    .option(
      '--probe-networks <cidrs>',
      "networks probes come from; '' disables probe routes (default: 0.0.0.0/0,::/0)",
    )
    .option('--identity-domain <domain>', 'trust domain of identities (default: cluster.local)')
    .option('--control-plane-namespace <ns>', 'Linkerd control plane namespace (default: linkerd)')
    .option(
      '--settings <file>',
      'YAML file with defaultPolicy, clusterNetworks, probeNetworks, identityDomain, controlPlaneNamespace',
    )
    .option('--json', 'print JSON on stdout');
}

const SETTING_KEYS = [
  'defaultPolicy',
  'clusterNetworks',
  'probeNetworks',
  'identityDomain',
  'controlPlaneNamespace',
] as const;

/** A settings file is a few lines; more than this is not one (and `/dev/zero` never ends). */
const MAX_SETTINGS_BYTES = 1024 * 1024;

async function readSmall(file: string, shown: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(MAX_SETTINGS_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_SETTINGS_BYTES) {
        throw new LabelwiseError(
          'POLICY_INVALID_SETTING',
          `settings file is larger than ${MAX_SETTINGS_BYTES} bytes`,
          { file: shown },
        );
      }
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    await handle.close();
  }
}

async function readSettings(flags: SettingsFlags, io: CliIO): Promise<SettingsInput> {
  const out: SettingsInput = {};
  if (flags.settings !== undefined) {
    let text: string;
    try {
      text = await readSmall(resolve(io.cwd, flags.settings), flags.settings);
    } catch (error) {
      if (error instanceof LabelwiseError) throw error;
      throw new LabelwiseError(
        'POLICY_UNREADABLE',
        `cannot read settings file ${flags.settings}: ${(error as NodeJS.ErrnoException).code ?? ''}`,
        { file: flags.settings },
        undefined,
        'unavailable',
      );
    }
    let value: unknown;
    try {
      value = parseYaml(text, { maxAliasCount: 100 });
    } catch (error) {
      throw new LabelwiseError(
        'POLICY_INVALID_SETTING',
        `settings file is not valid YAML: ${(error as Error).message.split('\n')[0] ?? ''}`,
        { file: flags.settings },
      );
    }
    if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
      throw new LabelwiseError('POLICY_INVALID_SETTING', 'settings file must be a mapping', {
        file: flags.settings,
      });
    }
    for (const [k, v] of Object.entries((value ?? {}) as Record<string, unknown>)) {
      if (!(SETTING_KEYS as readonly string[]).includes(k)) {
        throw new LabelwiseError(
          'POLICY_INVALID_SETTING',
          `unknown setting ${JSON.stringify(k)}`,
          { file: flags.settings, path: k },
          `known settings: ${SETTING_KEYS.join(', ')}`,
        );
      }
      const ok =
        typeof v === 'string' ||
        ((k === 'clusterNetworks' || k === 'probeNetworks') &&
          Array.isArray(v) &&
          v.every((x) => typeof x === 'string'));
      if (!ok)
        throw new LabelwiseError(
          'POLICY_INVALID_SETTING',
          `setting ${k} must be ${k.endsWith('Networks') ? 'a list of CIDRs or a comma-separated string' : 'a string'}`,
          { file: flags.settings, path: k },
        );
      (out as Record<string, unknown>)[k] = v;
    }
  }
  if (flags.defaultPolicy !== undefined) out.defaultPolicy = flags.defaultPolicy;
  if (flags.clusterNetworks !== undefined) out.clusterNetworks = flags.clusterNetworks;
  if (flags.probeNetworks !== undefined) out.probeNetworks = flags.probeNetworks;
  if (flags.identityDomain !== undefined) out.identityDomain = flags.identityDomain;
  if (flags.controlPlaneNamespace !== undefined)
    out.controlPlaneNamespace = flags.controlPlaneNamespace;
  return out;
}

async function load(dir: string, flags: SettingsFlags, io: CliIO) {
  const settings = await readSettings(flags, io);
  const loaded = await loadPolicyDir(resolve(io.cwd, dir), { root: io.cwd });
  if (loaded.files.length === 0) {
    throw new LabelwiseError(
      'POLICY_NO_FILES',
      `${dir} holds no .yaml or .yml files`,
      { file: dir },
      'pass the directory with your Servers, routes and policies',
    );
  }
  const model = compilePolicy(loaded.resources, settings);
  return { loaded, model };
}

/**
 * Admission errors do not stop a simulation — Linkerd would have rejected those objects — but
 * they are shown, with the loader's warnings (objects left out for their apiVersion), on stderr.
 */
function reportLoadErrors(problems: readonly PolicyProblem[], io: CliIO): void {
  if (problems.length === 0) return;
  io.stderr(
    `${problems.length} problem(s) in the input; the objects concerned are left out (run labelwise policy lint for all findings):\n`,
  );
  for (const p of problems) io.stderr(`  ${formatProblem(p, { ...io, isTTY: false })}\n`);
}

interface AuthorizeFlags extends SettingsFlags {
  pod: string;
  port: string;
  method: string;
  path: string;
  host?: string;
  header: string[];
  identity?: string;
  clientIp: string;
  precedence: 'linkerd' | 'gateway-api';
}

function parseHeader(item: string): [string, string] {
  const colon = item.indexOf(':');
  if (colon <= 0)
    throw new LabelwiseError(
      'POLICY_INVALID_HEADER',
      `--header ${JSON.stringify(item)} must look like name:value`,
      { path: 'header' },
    );
  return [item.slice(0, colon).trim(), item.slice(colon + 1).trim()];
}

async function authorizeCommand(dir: string, flags: AuthorizeFlags, io: CliIO): Promise<number> {
  const port = /^\d{1,5}$/.test(flags.port) ? Number(flags.port) : NaN;
  if (!(port >= 1 && port <= 65535))
    throw new LabelwiseError(
      'POLICY_INVALID_PORT',
      `--port ${JSON.stringify(flags.port)} must be a number from 1 to 65535`,
      { path: 'port' },
    );
  const headers = flags.header.map(parseHeader);
  const { loaded, model } = await load(dir, flags, io);
  reportLoadErrors(loaded.problems, io);
  const decision = decide(model, {
    pod: flags.pod,
    port,
    method: flags.method,
    path: flags.path,
    ...(flags.host === undefined ? {} : { host: flags.host }),
    headers,
    ...(flags.identity === undefined ? {} : { identity: flags.identity }),
    clientIp: flags.clientIp,
    precedence: flags.precedence,
  });
  if (flags.json) {
    const {
      decision: verdict,
      status,
      server,
      route,
      rule,
      authorization,
      timeout,
      precedence,
      trace,
    } = decision;
    printJson(io, {
      decision: verdict,
      status,
      server,
      route,
      rule,
      authorization,
      timeout,
      precedence,
      ...(decision.params === undefined ? {} : { params: decision.params }),
      ...(decision.rewrite === undefined ? {} : { rewrite: decision.rewrite }),
      trace,
    });
  } else printDecision(decision, io);
  return EXIT.ok;
}

async function compileCommand(
  dir: string,
  flags: SettingsFlags & { pod?: string },
  io: CliIO,
): Promise<number> {
  const { loaded, model } = await load(dir, flags, io);
  reportLoadErrors(loaded.problems, io);
  let only: { namespace: string; name: string } | undefined;
  if (flags.pod !== undefined) {
    const pod = model.podByRef(flags.pod);
    only = { namespace: pod.meta.namespace, name: pod.meta.name };
  }
  const rendered = renderModel(model, only);
  if (flags.json) {
    printJson(io, rendered);
    return EXIT.ok;
  }
  const rows: string[][] = [['POD', 'PORT', 'SERVER', 'PROTOCOL', 'ROUTES', 'AUTHORIZATIONS']];
  for (const pod of rendered.pods) {
    for (const port of pod.ports as Record<string, unknown>[]) {
      const routes = (port.routes as { name: string }[]).map((r) => r.name);
      const authz = (port.authorizations as { name: string }[]).map((a) => a.name);
      const shown =
        routes.length > 4
          ? `${routes.length} routes: ${routes.slice(0, 3).join(', ')}, …`
          : routes.join(', ') || '-';
      rows.push([
        String(pod.pod),
        String(port.port),
        String(port.server),
        String(port.protocol),
        shown,
        authz.join(', '),
      ]);
    }
  }
  io.stdout(renderTable(rows));
  return EXIT.ok;
}

async function lintCommand(dir: string, flags: SettingsFlags, io: CliIO): Promise<number> {
  const { loaded, model } = await load(dir, flags, io);
  const findings = [...loaded.problems, ...lintPolicy(model)];
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.length - errors;
  if (flags.json) {
    printJson(io, { findings: findings.map(problemJson), errors, warnings });
  } else {
    for (const f of findings) io.stdout(`${formatProblem(f, io)}\n`);
    const verdict =
      errors > 0
        ? paint(io, 'red', `${errors} error(s), ${warnings} warning(s)`)
        : paint(io, 'green', `ok: ${warnings} warning(s)`);
    io.stdout(`${findings.length > 0 ? '\n' : ''}${verdict} in ${loaded.files.length} file(s)\n`);
  }
  return errors > 0 ? EXIT.invalid : EXIT.ok;
}

export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const exit = { code: EXIT.ok as number };
  const program = createProgram(
    'labelwise policy',
    'Simulate, lint and compile Linkerd-style inbound route policy from Kubernetes YAML.',
    io,
  );
  program.addHelpText(
    'after',
    '\nExamples:\n  labelwise policy lint examples/homelab/policy\n  labelwise policy authorize examples/homelab/policy --pod booksapp/authors-0 --port 7001 \\\n    --method GET --path /authors/1.json --client-ip 10.1.2.3 \\\n    --identity web.booksapp.serviceaccount.identity.linkerd.cluster.local\n',
  );

  const authorize = configureSubcommand(
    program.command('authorize').argument('<dir>', 'directory of Kubernetes YAML'),
    io,
  )
    .description('decide one request: which Server and route, which authorization, and why')
    .requiredOption('--pod <ns/name>', 'the destination pod')
    .requiredOption('--port <port>', 'the destination port')
    .option('--method <method>', 'HTTP method', 'GET')
    .requiredOption('--path <path>', 'request path, optionally with ?query')
    .option('--host <host>', 'the :authority / Host header')
    .option(
      '--header <name:value>',
      'a request header (repeatable)',
      (value: string, list: string[]) => [...list, value],
      [] as string[],
    )
    .option('--identity <id>', "the client's mTLS identity (omit for a plaintext client)")
    .requiredOption('--client-ip <ip>', "the client's address")
    .addOption(
      new Option('--precedence <mode>', 'route precedence')
        .choices(['linkerd', 'gateway-api'])
        .default('linkerd'),
    );
  settingsOptions(authorize)
    .addHelpText(
      'after',
      '\nPrints the decision (allow 200, deny 403, not-found 404, refused on opaque/TLS ports) and the\nreasons step by step. Exit code 0 whenever a decision was made.\n\nExample:\n  labelwise policy authorize examples/homelab/policy --pod booksapp/web-0 --port 7000 \\\n    --path /books/12 --client-ip 10.1.2.3 \\\n    --identity traffic.booksapp.serviceaccount.identity.linkerd.cluster.local --json\n',
    )
    .action(async (dir: string, flags: AuthorizeFlags) => {
      exit.code = await authorizeCommand(dir, flags, io);
    });

  const compile = configureSubcommand(
    program.command('compile').argument('<dir>', 'directory of Kubernetes YAML'),
    io,
  )
    .description('per pod and port: governing server, protocol, routes and authorizations')
    .option('--pod <ns/name>', 'only this pod');
  settingsOptions(compile)
    .addHelpText(
      'after',
      '\nExample:\n  labelwise policy compile examples/homelab/policy --pod booksapp/books-0 --json\n',
    )
    .action(async (dir: string, flags: SettingsFlags & { pod?: string }) => {
      exit.code = await compileCommand(dir, flags, io);
    });

  const lint = configureSubcommand(
    program.command('lint').argument('<dir>', 'directory of Kubernetes YAML'),
    io,
  ).description(
    'admission errors and misconfigurations: broken references, shadowed rules, probes that will 404, overlapping Servers',
  );
  settingsOptions(lint)
    .addHelpText(
      'after',
      '\nExit code 1 when any finding is an error; warnings alone exit 0.\n\nExample:\n  labelwise policy lint examples/homelab/policy --json\n',
    )
    .action(async (dir: string, flags: SettingsFlags) => {
      exit.code = await lintCommand(dir, flags, io);
    });

  return runProgram(program, args, exit);
}
