/**
 * The fleet commands' `--json` problem lists in the one shape every labelwise command uses:
 * `diagnostics` (base Diagnostic objects, sorted) with `errors` and `warnings` counts. A problem
 * found on several hosts carries them as its witness, `{"hosts": [...]}`.
 */
import { diagnosticsJson } from '../base/index.js';
import type { Diagnostic, DiagnosticsJson } from '../base/index.js';
import type { FleetProblem } from './model.js';

/** One fleet problem as a base diagnostic. */
export function problemDiagnostic(
  p: FleetProblem & { readonly hosts?: readonly string[] },
): Diagnostic {
  const { host, hosts, ...rest } = p;
  const list = hosts ?? (host === undefined ? [] : [host]);
  return {
    ...rest,
    module: 'fleet',
    ...(p.object === undefined && list.length > 0 ? { object: `host ${list[0]}` } : {}),
    ...(list.length === 0 ? {} : { witness: { hosts: [...list] } }),
  };
}

/** `{diagnostics, errors, warnings}` for a list of fleet problems. */
export function fleetDiagnosticsJson(
  problems: readonly (FleetProblem & { readonly hosts?: readonly string[] })[],
): DiagnosticsJson {
  return diagnosticsJson(problems.map(problemDiagnostic));
}
