/**
 * `labelwise policy route [DIR] --from NS/POD --to SVC.NS:PORT …`: where one outbound request
 * goes — the route and rule, the backends and their weights, timeouts, retries, circuit
 * breaking, and for egress whether it is allowed — with the reasons step by step.
 */
import type { Command } from 'commander';
import { diagnosticsJson, escapeControl } from '../base/index.js';
import {
  OutboundIndex,
  makeRequest,
  normalizePodRef,
  outboundDecisionJson,
  parseDestination,
  routeOutbound,
} from '../policy/index.js';
import type { OutboundDecision } from '../policy/index.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { paint, printJson, renderTable } from './output.js';
import { load, parseHeader, settingsOptions } from './policy-input.js';
import type { SettingsFlags } from './policy-input.js';
import { configureSubcommand, repeatable } from './program.js';

interface RouteFlags extends SettingsFlags {
  from: string;
  to: string;
  method: string;
  path: string;
  host?: string;
  header: string[];
  egressNamespace?: string;
}

const safe = (text: string): string => escapeControl(text, true);

function printOutbound(d: OutboundDecision, io: CliIO): void {
  const ok = d.decision === 'route' || d.decision === 'forward';
  const rows: string[][] = [
    [
      'decision',
      paint(io, ok ? 'green' : 'red', `${d.decision}${d.status === null ? '' : ` (${d.status})`}`),
    ],
    ['parent', d.parent === null ? '-' : safe(d.parent)],
    [
      'route',
      d.route === null ? '-' : `${safe(d.route)}${d.rule === null ? '' : ` rule ${d.rule}`}`,
    ],
    [
      'backends',
      d.backends
        .map(
          (b) =>
            `${safe(b.name)} ${Math.round(b.share * 1000) / 10}%${b.outcome === 'fail' ? ' (500)' : ''}`,
        )
        .join(', ') || '-',
    ],
    [
      'timeouts',
      `request ${d.timeouts.request ?? '-'}, response ${d.timeouts.response ?? '-'}, idle ${d.timeouts.idle ?? '-'}`,
    ],
    [
      'retry',
      d.retry === null
        ? '-'
        : `${d.retry.conditions.join(',') || 'default conditions'} limit ${d.retry.limit}${d.retry.timeout === null ? '' : ` timeout ${d.retry.timeout}`}`,
    ],
    [
      'circuit breaker',
      d.circuitBreaker === null
        ? '-'
        : `${d.circuitBreaker.mode}, max ${d.circuitBreaker.maxFailures} failures`,
    ],
  ];
  if (d.egress !== null)
    rows.push([
      'egress',
      `${safe(d.egress.network)} ${d.egress.trafficPolicy}: ${d.egress.allowed ? 'allowed' : 'denied'}`,
    ]);
  io.stdout(renderTable(rows));
  io.stdout('\nwhy:\n');
  d.trace.forEach((line, i) => io.stdout(`  ${String(i + 1).padStart(2)}. ${safe(line)}\n`));
}

async function routeCommand(
  dir: string | undefined,
  flags: RouteFlags,
  io: CliIO,
): Promise<number> {
  const to = parseDestination(flags.to);
  const headers = flags.header.map(parseHeader);
  const { loaded, model } = await load(dir, flags, io);
  const pod = model.podByRef(normalizePodRef(flags.from));
  const decision = routeOutbound(new OutboundIndex(loaded.resources), {
    from: { namespace: pod.meta.namespace, name: pod.meta.name },
    to,
    request: makeRequest({
      method: flags.method,
      path: flags.path,
      headers,
      ...(flags.host === undefined
        ? 'service' in to
          ? { host: `${to.service}.${to.namespace}.svc.${model.settings.identityDomain}` }
          : {}
        : { host: flags.host }),
    }),
    settings: {
      clusterNetworks: model.settings.clusterNetworks,
      ...(flags.egressNamespace === undefined ? {} : { egressNamespace: flags.egressNamespace }),
    },
  });
  if (flags.json)
    printJson(io, { ...outboundDecisionJson(decision), ...diagnosticsJson(loaded.problems) });
  else printOutbound(decision, io);
  return EXIT.ok;
}

/** `policy route`: one outbound request, routed step by step. */
export function registerRoute(program: Command, io: CliIO, exit: { code: number }): void {
  const route = configureSubcommand(
    program
      .command('route')
      .argument('[dir]', 'directory or file of Kubernetes YAML (or -f -: stdin)'),
    io,
  )
    .description(
      'route one outbound request: which route and backends, timeouts, retries, circuit breaking, egress',
    )
    .requiredOption('--from <ns/pod>', 'the client pod, or a workload (booksapp/deploy/webapp)')
    .requiredOption('--to <svc.ns:port>', 'the destination: a Service as svc.ns:port, or ip:port')
    .option('--method <method>', 'HTTP method', 'GET')
    .requiredOption(
      '--path <path>',
      'request path, optionally with ?query (for gRPC: /package.Service/Method)',
    )
    .option(
      '--host <host>',
      'the :authority (default: the Service DNS name; for TLSRoutes the SNI)',
    )
    .option('--header <name:value>', 'a request header (repeatable)', repeatable, [] as string[])
    .option(
      '--egress-namespace <ns>',
      'namespace of cluster-wide EgressNetworks (default: linkerd-egress)',
    );
  settingsOptions(route)
    .addHelpText(
      'after',
      '\nPrints the decision (route, forward, redirect, deny 403, not-found 404, fail 500) and the reasons\nstep by step. Exit code 0 whenever a decision was made.\n\nExample:\n  labelwise policy route examples/homelab/policy --from booksapp/deploy/webapp \\\n    --to books.booksapp:7002 --method GET --path /books.json\n',
    )
    .action(async (dir: string | undefined, flags: RouteFlags) => {
      exit.code = await routeCommand(dir, flags, io);
    });
}
