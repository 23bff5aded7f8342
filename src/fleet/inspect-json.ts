/**
 * What `fleet explain --json`, `fleet hosts --json` and `fleet affected --json` print
 * (docs/fleet.md), made from the command's result and the fleets it read. Each carries the
 * repository's errors in `diagnostics`, as every fleet command does. The commands print these as
 * they are, and `hosts` and `affected` read their text output from the same objects.
 */
import type { DiagnosticsJson } from '../base/index.js';
import type { HostChanges } from './changes.js';
import type { ResourceExplanation } from './explain.js';
import type { Fleet, HostManifest, LayerDoc } from './model.js';
import { fleetDiagnosticsJson, repositoryErrors } from './report-json.js';

/** `fleet explain --json`: the explanation, then the repository's and the host's problems. */
export type ExplainJson = ResourceExplanation & DiagnosticsJson;

/** `manifest` is the host's, resolved with provenance, that `result` explains a resource of. */
export function explainJson(
  fleet: Fleet,
  manifest: HostManifest,
  result: ResourceExplanation,
): ExplainJson {
  return {
    ...result,
    ...fleetDiagnosticsJson([...repositoryErrors(fleet), ...manifest.problems]),
  };
}

/** A host as `fleet hosts` lists it. */
export interface ListedHost {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** `fleet hosts --json`: what was asked (`layer`, `selector`), the hosts, and the problems. */
export interface HostsJson extends DiagnosticsJson {
  readonly layer?: string;
  readonly selector?: string;
  readonly hosts: readonly ListedHost[];
  /** Present when the asked Layer's document has errors: it then reaches no host. */
  readonly invalid?: true;
}

/** What `fleet hosts` was asked for: a Layer, or a selector as the user wrote it, or neither. */
export interface HostsQuery {
  readonly layer?: LayerDoc;
  readonly selector?: string;
}

/** The hosts named `names` (in that order), with their labels, as `fleet hosts` lists them. */
export function hostsJson(fleet: Fleet, names: readonly string[], query: HostsQuery): HostsJson {
  const byName = new Map(fleet.hosts.map((h) => [h.name, h]));
  const hosts = names.map((name) => {
    const labels = { ...(byName.get(name)?.labels ?? {}) };
    return { name, labels };
  });
  const layer = query.layer;
  return {
    ...(layer === undefined ? {} : { layer: layer.name }),
    ...(query.selector === undefined ? {} : { selector: query.selector }),
    hosts,
    ...(layer?.invalid === true ? { invalid: true as const } : {}),
    ...fleetDiagnosticsJson(repositoryErrors(fleet)),
  };
}

/** `fleet affected --json`: how many hosts changed, of how many, and each host's changes. */
export interface AffectedJson extends DiagnosticsJson {
  /** Hosts that changed, appeared or disappeared. */
  readonly affected: number;
  readonly total: number;
  readonly hosts: readonly HostChanges[];
}

/** `changes` between the fleets `before` and `after`; both revisions' errors are reported. */
export function affectedJson(
  changes: readonly HostChanges[],
  before: Fleet,
  after: Fleet,
): AffectedJson {
  return {
    affected: changes.filter((h) => h.status !== 'unchanged').length,
    total: changes.length,
    hosts: changes,
    ...fleetDiagnosticsJson([before, after].flatMap((f) => repositoryErrors(f))),
  };
}
