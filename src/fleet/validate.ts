/**
 * `fleet validate` as a pure function: resolve every host, group identical problems across
 * hosts, and lint matchers with the selector algebra (a matcher that can never match; a layer
 * that matches no declared host).
 */
import { compareText } from '../base/index.js';
import type { Diagnostic } from '../base/index.js';
import { LabelIndex, satisfiable } from '../selector/index.js';
import { compareProblems } from './documents/load-fleet.js';
import type { Fleet, FleetProblem, HostManifest } from './model.js';
import { hostLabels, prepareFleet } from './resolve/prepare.js';
import type { PreparedFleet } from './resolve/prepare.js';
import { resolveHost } from './resolve/resolve-host.js';

/** A problem and every host it was found on (empty for problems of the repository itself). */
export interface GroupedProblem extends FleetProblem {
  /** Hosts in name order. */
  readonly hosts: readonly string[];
}

export interface ValidationReport {
  readonly hosts: number;
  readonly layers: number;
  /** Resource documents across all layers. */
  readonly resources: number;
  /** Repository problems, lints, then host problems, each group in file/line order. */
  readonly problems: readonly GroupedProblem[];
  readonly errors: number;
  readonly warnings: number;
  /** Digest per host, in host order. */
  readonly digests: Readonly<Record<string, string>>;
}

/** Options for {@link validateFleet}. */
export interface ValidateOptions {
  /** Called with each host's manifest as it is resolved (build uses it to write outputs). */
  readonly onManifest?: (manifest: HostManifest) => void;
  /** Build provenance for the manifests passed to `onManifest`. Default: false. */
  readonly provenance?: boolean;
  /** Resolve only these hosts (a shard); repository problems and lints are reported as usual. */
  readonly hosts?: readonly string[];
  /** Hosts already resolved elsewhere (worker threads): their digest and problems are used. */
  readonly resolved?: ReadonlyMap<
    string,
    { readonly digest: string; readonly problems: readonly FleetProblem[] }
  >;
}

/** The index of hosts by label, for "which hosts does this matcher reach?". */
export function hostIndex(fleet: Fleet): LabelIndex<string> {
  const index = new LabelIndex<string>();
  for (const host of fleet.hosts) index.add(host.name, hostLabels(host));
  return index;
}

/** Matcher lints for every layer: a contradiction is an error, reaching no host a warning. */
export function lintMatchers(
  fleet: Fleet,
  hosts: LabelIndex<string> = hostIndex(fleet),
): FleetProblem[] {
  const out: FleetProblem[] = [];
  // The layer may well be meant for a host whose document is broken: say it was not counted.
  const broken = [...fleet.invalidHosts.keys()].sort(compareText);
  const uncounted =
    broken.length === 0
      ? ''
      : ` (not counting ${broken.length === 1 ? 'host' : 'hosts'} ${broken.slice(0, 3).join(', ')}${broken.length > 3 ? ` and ${broken.length - 3} more` : ''}, whose Host ${broken.length === 1 ? 'document has' : 'documents have'} errors)`;
  for (const layer of fleet.layers) {
    if (layer.invalid === true) continue;
    const at = { file: layer.file, line: layer.line, object: `Layer ${layer.name}` };
    const check = satisfiable(layer.selector);
    if (!check.satisfiable) {
      // An error, as in Datum's validate: the layer would silently never apply.
      out.push({
        severity: 'error',
        code: 'FLEET_MATCHER_NEVER_MATCHES',
        message: `layer ${layer.name} can never match any host: ${check.proof.reason}`,
        ...at,
      });
    } else if (hosts.select(layer.selector).length === 0) {
      out.push({
        severity: 'warning',
        code: 'FLEET_LAYER_MATCHES_NO_HOST',
        message: `layer ${layer.name} matches no declared host${uncounted}`,
        ...at,
      });
    }
  }
  return out;
}

/** Resolves every host and reports every problem, grouped. Deterministic. Never throws. */
export function validateFleet(
  fleet: Fleet,
  options: ValidateOptions = {},
  given?: PreparedFleet,
): ValidationReport {
  // Prepared only when some host is resolved here (not when worker threads resolved them all).
  let prepared = given;
  const repository: GroupedProblem[] = [...fleet.problems, ...lintMatchers(fleet)].map((p) => ({
    ...p,
    hosts: [],
  }));
  const groups = new Map<string, { problem: FleetProblem; hosts: string[] }>();
  // Host names are Datum names, and `__proto__` is one: keep them off Object.prototype.
  const digests: Record<string, string> = Object.create(null);
  const names = options.hosts ?? fleet.hosts.map((h) => h.name);
  for (const name of names) {
    const done = options.resolved?.get(name);
    let manifest: { readonly digest: string; readonly problems: readonly FleetProblem[] };
    if (done !== undefined) manifest = done;
    else {
      prepared ??= prepareFleet(fleet);
      const resolved = resolveHost(prepared, name, { provenance: options.provenance === true });
      options.onManifest?.(resolved);
      manifest = resolved;
    }
    digests[name] = manifest.digest;
    for (const problem of manifest.problems) {
      const key = `${problem.code}\u0000${problem.file ?? ''}\u0000${problem.line ?? 0}\u0000${problem.message}`;
      const group = groups.get(key);
      if (group === undefined) groups.set(key, { problem, hosts: [name] });
      else group.hosts.push(name);
    }
  }
  const resolution: GroupedProblem[] = [...groups.values()].map(({ problem, hosts }) => {
    const { host: _host, ...rest } = problem;
    return { ...rest, hosts: hosts.sort(compareText) };
  });
  repository.sort(compareProblems);
  resolution.sort(compareProblems);
  const problems = [...repository, ...resolution];
  return {
    hosts: names.length,
    layers: fleet.layers.length,
    resources: fleet.layers.reduce((n, layer) => n + layer.resources.length, 0),
    problems,
    errors: problems.filter((p) => p.severity === 'error').length,
    warnings: problems.filter((p) => p.severity === 'warning').length,
    digests,
  };
}

/**
 * A fleet problem as a diagnostic in the one shape, with the hosts a resolution problem affects
 * said after the message (print it with `formatDiagnostic`, which escapes every field).
 */
export function fleetDiagnostic(
  problem: FleetProblem & { readonly hosts?: readonly string[] },
): Diagnostic {
  const hosts = problem.hosts ?? (problem.host === undefined ? [] : [problem.host]);
  const suffix =
    hosts.length === 0
      ? ''
      : hosts.length === 1
        ? ` (host ${hosts[0]})`
        : ` (affects ${hosts.length} hosts, first: ${hosts[0]})`;
  const { host: _host, hosts: _hosts, ...rest } = problem;
  return { ...rest, message: `${problem.message}${suffix}` };
}
