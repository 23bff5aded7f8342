/**
 * The fleet commands' `--json` problem lists in the one shape every labelwise command uses:
 * `diagnostics` (base Diagnostic objects, sorted) with `errors` and `warnings` counts. A problem
 * found on several hosts carries them as its witness, `{"hosts": [...]}`. Also what `fleet
 * validate --json` prints (docs/fleet.md), which `fleet merge` reads back byte for byte.
 */
import { diagnosticsJson } from '../base/index.js';
import type { Diagnostic, DiagnosticsJson } from '../base/index.js';
import { SCHEMA_VERSION } from './documents/parse-document.js';
import type { FleetSource } from './io/load-dir.js';
import type { Fleet, FleetProblem } from './model.js';
import { shardJson } from './revision.js';
import type { ShardJson } from './revision.js';
import type { Shard } from './shard.js';
import type { ValidationReport } from './validate.js';
import { hostIndex } from './validate.js';

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

/**
 * The repository's own errors (documents that do not load, broken Layers), which every fleet
 * command's `diagnostics` carries beside what the command found.
 */
export function repositoryErrors(fleet: Fleet): FleetProblem[] {
  return fleet.problems.filter((p) => p.severity === 'error');
}

/** How many hosts a layer reaches (none for a Layer whose document has errors). */
export interface LayerReach {
  readonly name: string;
  readonly precedence: number;
  readonly hosts: number;
}

/** Every layer's reach, in the fleet's layer order: `validate`'s header and `layerHosts`. */
export function layerReach(fleet: Fleet): LayerReach[] {
  const index = hostIndex(fleet);
  return fleet.layers.map((l) => ({
    name: l.name,
    precedence: l.precedence,
    hosts: l.invalid === true ? 0 : index.select(l.selector).length,
  }));
}

/** `fleet validate --json`; `shard` and `revision` only when sharded. */
export interface ValidateJson extends ShardJson, DiagnosticsJson {
  readonly fleet: string | null;
  readonly schema: string;
  readonly hosts: number;
  readonly layers: number;
  readonly resources: number;
  readonly layerHosts: readonly LayerReach[];
  readonly digests: Readonly<Record<string, string>>;
}

/** The report of a (sharded) run as `validate --json` prints it, keys in the documented order. */
export function validateJson(
  source: FleetSource,
  report: ValidationReport,
  shard: Shard | undefined,
): ValidateJson {
  return {
    fleet: source.fleet.fleet?.name ?? null,
    schema: SCHEMA_VERSION,
    ...shardJson(source, shard),
    hosts: report.hosts,
    layers: report.layers,
    resources: report.resources,
    layerHosts: layerReach(source.fleet),
    ...fleetDiagnosticsJson(report.problems),
    digests: report.digests,
  };
}
