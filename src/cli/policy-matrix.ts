/**
 * `labelwise policy matrix [DIR]`: who can reach what, per Server port and route, by client
 * (text table or `--json`); `--explain ROW --client ID` decides one cell's witness request with
 * the trace `authorize` prints; `--expect FILE` checks a table of expected reachabilities and
 * exits 1 when one fails.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { LabelwiseError, diagnosticsJson, readUserFile } from '../base/index.js';
import type { Diagnostic } from '../base/index.js';
import {
  HTTP_VERSIONS,
  checkExpectations,
  computeMatrix,
  expectationDiagnostics,
  explainCell,
  explainedCellJson,
  matrixCell,
  matrixJson,
  matrixRow,
  readExpectations,
} from '../policy/index.js';
import type { HttpVersion } from '../policy/index.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { paint, printJson } from './output.js';
import { load, settingsOptions } from './policy-input.js';
import type { SettingsFlags } from './policy-input.js';
import { paintDiagnostic } from './output.js';
import { printDecision, printMatrix } from './policy-output.js';
import { configureSubcommand } from './program.js';

export interface MatrixFlags extends SettingsFlags {
  explain?: string;
  client?: string;
  expect?: string;
  egressNamespace?: string;
  httpVersion?: HttpVersion;
}

/** An expectations file is a table of one-line facts; more than this is not one. */
const MAX_EXPECT_BYTES = 4 * 1024 * 1024;

function readExpectFile(path: string, io: CliIO): string {
  return readUserFile(path, {
    cwd: io.cwd,
    what: 'expectations file',
    maxBytes: MAX_EXPECT_BYTES,
    codes: { invalid: 'POLICY_EXPECTATION_INVALID', unreadable: 'POLICY_UNREADABLE' },
  });
}

export async function matrixCommand(
  dir: string | undefined,
  flags: MatrixFlags,
  io: CliIO,
): Promise<number> {
  if ((flags.explain === undefined) !== (flags.client === undefined))
    throw new LabelwiseError('POLICY_MATRIX_UNKNOWN', '--explain ROW and --client ID go together', {
      source: { path: flags.explain === undefined ? 'explain' : 'client' },
      hint: 'row ids are in the --json output; clients are the column headers',
    });
  const { loaded, model } = await load(dir, flags, io);
  const matrix = computeMatrix(model, {
    ...(flags.namespace === undefined ? {} : { namespace: flags.namespace }),
    ...(flags.egressNamespace === undefined ? {} : { egressNamespace: flags.egressNamespace }),
    ...(flags.httpVersion === undefined ? {} : { httpVersion: flags.httpVersion }),
  });
  if (flags.explain !== undefined && flags.client !== undefined) {
    const row = matrixRow(matrix, flags.explain);
    const cell = matrixCell(matrix, row, flags.client);
    const decision = explainCell(model, cell);
    if (flags.json) {
      printJson(io, {
        ...explainedCellJson(row, flags.client, cell, decision),
        ...diagnosticsJson(loaded.problems),
      });
    } else {
      io.stdout(
        `${row.id} for ${flags.client}: ${cell.reach}${cell.via === undefined ? '' : ` via ${cell.via}`}\n`,
      );
      io.stdout(`witness: ${JSON.stringify(cell.witness)}\n\n`);
      printDecision(decision, io);
    }
    return EXIT.ok;
  }
  let checks: Diagnostic[] = [];
  let results: ReturnType<typeof checkExpectations> | undefined;
  if (flags.expect !== undefined) {
    const read = readExpectations(readExpectFile(flags.expect, io), flags.expect);
    results = checkExpectations(model, matrix, read.expectations);
    checks = [...read.diagnostics, ...expectationDiagnostics(results)];
  }
  const diagnostics = [...loaded.problems, ...checks];
  const failed = checks.some((d) => d.severity === 'error');
  if (flags.json) {
    printJson(io, {
      ...matrixJson(matrix, results),
      ...diagnosticsJson(diagnostics),
    });
    return failed ? EXIT.invalid : EXIT.ok;
  }
  if (results === undefined) {
    printMatrix(matrix, io);
    for (const d of diagnosticsJson(loaded.problems).diagnostics)
      io.stderr(`${paintDiagnostic(d, { ...io, isTTY: false })}\n`);
    return EXIT.ok;
  }
  for (const d of diagnosticsJson(checks).diagnostics) io.stdout(`${paintDiagnostic(d, io)}\n`);
  const passed = results.filter((r) => r.ok).length;
  const summary = `${passed} of ${results.length} expectation(s) hold`;
  io.stdout(
    `${checks.length > 0 ? '\n' : ''}${failed ? paint(io, 'red', summary) : paint(io, 'green', summary)}\n`,
  );
  return failed ? EXIT.invalid : EXIT.ok;
}

export function registerMatrix(
  program: Command,
  io: CliIO,
  action: (dir: string | undefined, flags: MatrixFlags) => Promise<void>,
): void {
  const matrix = configureSubcommand(
    program
      .command('matrix')
      .argument('[dir]', 'directory or file of Kubernetes YAML (or -f -: stdin)'),
    io,
  )
    .description(
      "who can reach what: per Server port and route, which clients are admitted; and where each namespace's outbound requests go",
    )
    .option(
      '--explain <row>',
      'decide one cell (with --client) and print the trace authorize prints',
    )
    .option('--client <id>', 'the client column of the cell to explain (sa:ns/name, ns:ns, …)')
    .option(
      '--expect <file>',
      'check a YAML list of expected reachabilities; exit 1 when one fails',
    )
    .option(
      '--egress-namespace <ns>',
      'namespace of cluster-wide EgressNetworks, for the outbound flows (default: linkerd-egress)',
    )
    .addOption(
      new Option(
        '--http-version <version>',
        "the connections' HTTP version on proxyProtocol unknown Servers, as authorize --http-version (default: none)",
      ).choices([...HTTP_VERSIONS]),
    );
  settingsOptions(matrix)
    .addHelpText(
      'after',
      '\nCells: allow (every client of the column), some (part of it), - (none). Computed from the\ncompiled policy with the selector algebra, not by sampling requests. -n NS also limits the rows to that namespace.\n\nOutbound: for the clients of each namespace, every Service or EgressNetwork port with outbound\npolicy (routes, timeout, retry or failure-accrual annotations), where the requests of each rule go:\nbackends and shares, timeouts, retries, circuit breaker, egress allowed or denied. -n NS limits\nthe clients to that namespace; the witness of each flow (--json) is a request for policy route.\n\nExamples:\n  labelwise policy matrix examples/homelab/policy\n  labelwise policy matrix examples/homelab/policy --explain booksapp/authors-http:7001/authors-modify-route --client sa:booksapp/web\n  labelwise policy matrix examples/homelab/policy --expect examples/homelab/policy/reachability.expect\n',
    )
    .action(action);
}
