/**
 * `labelwise policy authorize|compile|lint|matrix [DIR]`: simulate, compile, lint and map
 * Linkerd-style inbound policy from Kubernetes YAML (a directory, a file, or `-f -` for a
 * rendered stream on stdin). Cluster settings come from flags (or `--settings FILE`, which flags
 * override). Inputs and settings: `policy-input.ts`; the matrix command: `policy-matrix.ts`.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { LabelwiseError, countDiagnostics, diagnosticsJson, escapeControl } from '../base/index.js';
import type { Diagnostic } from '../base/index.js';
import {
  HTTP_VERSIONS,
  acceptPolicyFindings,
  decide,
  decisionJson,
  lintPolicy,
  normalizePodRef,
  renderModel,
} from '../policy/index.js';
import type { Decision, HttpVersion } from '../policy/index.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { paint, printJson, renderTable } from './output.js';
import { load, parseHeader, settingsOptions } from './policy-input.js';
import type { SettingsFlags } from './policy-input.js';
import { matrixCommand, registerMatrix } from './policy-matrix.js';
import { paintDiagnostic } from './output.js';
import { printDecision } from './policy-output.js';
import { registerRoute } from './policy-route.js';
import { configureSubcommand, createProgram, repeatable, runProgram } from './program.js';

/**
 * Admission errors do not stop a simulation — Linkerd would have rejected those objects — but
 * they are shown, with the loader's warnings (objects left out for their apiVersion), on stderr.
 */
export function reportLoadErrors(problems: readonly Diagnostic[], io: CliIO): void {
  if (problems.length === 0) return;
  io.stderr(
    `${problems.length} problem(s) in the input; the objects concerned are left out (run labelwise policy lint for all findings):\n`,
  );
  for (const p of diagnosticsJson(problems).diagnostics)
    io.stderr(`  ${paintDiagnostic(p, { ...io, isTTY: false }).replace(/\n/g, '\n  ')}\n`);
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
  expect?: 'allow' | 'deny' | '404';
  rate?: string;
  totalRate?: string;
  httpVersion?: HttpVersion;
}

/** A requests-per-second flag: a positive number, or a clear error naming the flag. */
function parseRate(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const rate = /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  if (!(rate > 0))
    throw new LabelwiseError(
      'CLI_USAGE',
      `${flag} ${JSON.stringify(value)} must be a positive number of requests per second`,
    );
  return rate;
}

/** Does the decision meet `--expect`? `deny` covers 403 and a refused connection. */
export function meetsExpectation(d: Decision, expect: 'allow' | 'deny' | '404'): boolean {
  if (expect === 'allow') return d.decision === 'allow';
  if (expect === '404') return d.decision === 'not-found';
  return d.decision === 'deny' || d.decision === 'refused';
}

function rates(flags: AuthorizeFlags): { rate?: number; totalRate?: number } {
  const rate = parseRate(flags.rate, '--rate');
  const totalRate = parseRate(flags.totalRate, '--total-rate');
  return {
    ...(rate === undefined ? {} : { rate }),
    ...(totalRate === undefined ? {} : { totalRate }),
  };
}

async function authorizeCommand(
  dir: string | undefined,
  flags: AuthorizeFlags,
  io: CliIO,
): Promise<number> {
  const port = /^\d{1,5}$/.test(flags.port) ? Number(flags.port) : NaN;
  if (!(port >= 1 && port <= 65535))
    throw new LabelwiseError(
      'POLICY_INVALID_PORT',
      `--port ${JSON.stringify(flags.port)} must be a number from 1 to 65535`,
      { source: { path: 'port' } },
    );
  const headers = flags.header.map(parseHeader);
  const { loaded, model } = await load(dir, flags, io);
  reportLoadErrors(loaded.problems, io);
  const decision = decide(model, {
    pod: normalizePodRef(flags.pod),
    port,
    method: flags.method,
    path: flags.path,
    ...(flags.host === undefined ? {} : { host: flags.host }),
    headers,
    ...(flags.identity === undefined ? {} : { identity: flags.identity }),
    clientIp: flags.clientIp,
    precedence: flags.precedence,
    ...rates(flags),
    ...(flags.httpVersion === undefined ? {} : { httpVersion: flags.httpVersion }),
  });
  const met = flags.expect === undefined ? undefined : meetsExpectation(decision, flags.expect);
  if (flags.json) {
    printJson(io, {
      ...decisionJson(decision),
      ...(flags.expect === undefined ? {} : { expected: flags.expect, met }),
      ...diagnosticsJson(loaded.problems),
    });
  } else {
    printDecision(decision, io);
    if (met === false)
      io.stdout(
        `\n${paint(io, 'red', `expected ${flags.expect ?? ''}`)}, got ${decision.decision}${decision.status === null ? '' : ` (${decision.status})`}\n`,
      );
  }
  return met === false ? EXIT.invalid : EXIT.ok;
}

async function compileCommand(
  dir: string | undefined,
  flags: SettingsFlags & { pod?: string },
  io: CliIO,
): Promise<number> {
  const { loaded, model } = await load(dir, flags, io);
  reportLoadErrors(loaded.problems, io);
  let only: { namespace: string; name: string } | undefined;
  if (flags.pod !== undefined) {
    const pod = model.podByRef(normalizePodRef(flags.pod));
    only = { namespace: pod.meta.namespace, name: pod.meta.name };
  }
  const rendered = renderModel(model, only);
  if (flags.json) {
    printJson(io, { ...rendered, ...diagnosticsJson(loaded.problems) });
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
      rows.push(
        [
          String(pod.pod),
          String(port.port),
          String(port.server),
          String(port.protocol),
          shown,
          authz.join(', '),
        ].map((cell) => escapeControl(cell, true)),
      );
    }
  }
  io.stdout(renderTable(rows));
  return EXIT.ok;
}

async function lintCommand(
  dir: string | undefined,
  flags: SettingsFlags,
  io: CliIO,
): Promise<number> {
  const { loaded, model } = await load(dir, flags, io);
  const findings: Diagnostic[] = acceptPolicyFindings(
    [...loaded.problems, ...lintPolicy(model)],
    model,
  );
  const body = diagnosticsJson(findings);
  if (flags.json) {
    printJson(io, body);
  } else {
    for (const f of body.diagnostics) io.stdout(`${paintDiagnostic(f, io)}\n`);
    const { errors, warnings } = countDiagnostics(body.diagnostics);
    const accepted = body.accepted === undefined ? '' : `, ${body.accepted} accepted`;
    const verdict =
      errors > 0
        ? paint(io, 'red', `${errors} error(s), ${warnings} warning(s)${accepted}`)
        : paint(io, 'green', `ok: ${warnings} warning(s)${accepted}`);
    io.stdout(
      `${body.diagnostics.length > 0 ? '\n' : ''}${verdict} in ${loaded.files.length} file(s)\n`,
    );
  }
  return body.errors > 0 ? EXIT.invalid : EXIT.ok;
}

function inputArgument(command: Command): Command {
  return command.argument('[dir]', 'directory or file of Kubernetes YAML (or -f -: stdin)');
}

/** `policy authorize`: one request, decided step by step. */
function registerAuthorize(program: Command, io: CliIO, exit: { code: number }): void {
  const authorize = configureSubcommand(inputArgument(program.command('authorize')), io)
    .description('decide one request: which Server and route, which authorization, and why')
    .requiredOption(
      '--pod <ns/name>',
      'the destination pod, or a workload (booksapp/deploy/authors, booksapp/sts/db)',
    )
    .requiredOption('--port <port>', 'the destination port')
    .option('--method <method>', 'HTTP method', 'GET')
    .requiredOption('--path <path>', 'request path, optionally with ?query')
    .option('--host <host>', 'the :authority / Host header')
    .option('--header <name:value>', 'a request header (repeatable)', repeatable, [] as string[])
    .option('--identity <id>', "the client's mTLS identity (omit for a plaintext client)")
    .requiredOption('--client-ip <ip>', "the client's address")
    .addOption(
      new Option('--precedence <mode>', 'route precedence')
        .choices(['linkerd', 'gateway-api'])
        .default('linkerd'),
    )
    .option(
      '--rate <rps>',
      'requests per second this client sends, for HTTPLocalRateLimitPolicy (429 past the limit)',
    )
    .option('--total-rate <rps>', 'requests per second of all clients together (default: --rate)')
    .addOption(
      new Option(
        '--http-version <version>',
        "the connection's HTTP version on a proxyProtocol unknown Server, which route-group routes carry as http.linkerd.io/version (default: none, so a class selecting a version covers none of them)",
      ).choices([...HTTP_VERSIONS]),
    )
    .addOption(
      new Option(
        '--expect <decision>',
        'exit 1 unless the decision is this (deny: 403 or refused)',
      ).choices(['allow', 'deny', '404']),
    );
  settingsOptions(authorize)
    .addHelpText(
      'after',
      '\nPrints the decision (allow 200, deny 403, not-found 404, refused on opaque/TLS ports) and the\nreasons step by step. Exit code 0 whenever a decision was made, unless --expect names another.\n\nExample:\n  labelwise policy authorize examples/homelab/policy --pod booksapp/web-0 --port 7000 \\\n    --path /books/12 --client-ip 10.1.2.3 \\\n    --identity traffic.booksapp.serviceaccount.identity.linkerd.cluster.local --expect allow\n',
    )
    .action(async (dir: string | undefined, flags: AuthorizeFlags) => {
      exit.code = await authorizeCommand(dir, flags, io);
    });
}

/** `policy compile` and `policy lint`: the compiled model, and the findings. */
function registerCompileAndLint(program: Command, io: CliIO, exit: { code: number }): void {
  const compile = configureSubcommand(inputArgument(program.command('compile')), io)
    .description('per pod and port: governing server, protocol, routes and authorizations')
    .option('--pod <ns/name>', 'only this pod (or workload: booksapp/deploy/authors)');
  settingsOptions(compile)
    .addHelpText(
      'after',
      '\nExample:\n  labelwise policy compile examples/homelab/policy --pod booksapp/books-0 --json\n',
    )
    .action(async (dir: string | undefined, flags: SettingsFlags & { pod?: string }) => {
      exit.code = await compileCommand(dir, flags, io);
    });

  const lint = configureSubcommand(inputArgument(program.command('lint')), io).description(
    'admission errors and misconfigurations: broken references, shadowed rules, probes that will 404, overlapping Servers, authorizations broader than the routes need',
  );
  settingsOptions(lint)
    .addHelpText(
      'after',
      '\nExit code 1 when any finding is an error; warnings alone exit 0.\n\nExamples:\n  labelwise policy lint examples/homelab/policy --json\n  helm template my-release chart/ | labelwise policy lint -f -\n',
    )
    .action(async (dir: string | undefined, flags: SettingsFlags) => {
      exit.code = await lintCommand(dir, flags, io);
    });
}

export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const exit = { code: EXIT.ok as number };
  const program = createProgram(
    'labelwise policy',
    'Simulate, lint, compile and map Linkerd-style inbound route policy from Kubernetes YAML.',
    io,
  );
  program.addHelpText(
    'after',
    '\nExamples:\n  labelwise policy lint examples/homelab/policy\n  kustomize build overlays/prod | labelwise policy lint -f -\n  labelwise policy authorize examples/homelab/policy --pod booksapp/authors-0 --port 7001 \\\n    --method GET --path /authors/1.json --client-ip 10.1.2.3 \\\n    --identity web.booksapp.serviceaccount.identity.linkerd.cluster.local\n  labelwise policy matrix examples/homelab/policy --namespace booksapp\n',
  );

  registerAuthorize(program, io, exit);
  registerCompileAndLint(program, io, exit);
  registerRoute(program, io, exit);
  registerMatrix(program, io, (dir, flags) =>
    matrixCommand(dir, flags, io).then((code) => void (exit.code = code)),
  );

  return runProgram(program, args, exit);
}
