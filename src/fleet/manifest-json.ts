/**
 * The `--json` shape of a resolved manifest (spec: `fleet resolve`), also written by `build`, and
 * what `fleet resolve --json` prints around it: one host, or every host (of a shard).
 */
import type { DesiredMap, Fleet, HostManifest } from './model.js';
import type { Diagnostic, DiagnosticsJson } from '../base/index.js';
import type { FleetSource } from './io/load-dir.js';
import { fleetDiagnosticsJson, repositoryErrors } from './report-json.js';
import { shardJson } from './revision.js';
import type { ShardJson } from './revision.js';
import type { Shard } from './shard.js';

export interface ManifestJson {
  readonly host: string;
  readonly digest: string;
  readonly layers: readonly {
    readonly name: string;
    readonly precedence: number;
    readonly reasons: readonly string[];
  }[];
  readonly resources: readonly {
    readonly ref: string;
    readonly target: string | null;
    readonly layers: readonly string[];
    readonly desired: DesiredMap;
    readonly requires: readonly string[];
    readonly restartOn: readonly string[];
    readonly reloadOn: readonly string[];
  }[];
  /** Resolution problems of this host (the shape every command reports problems in). */
  readonly diagnostics: readonly Diagnostic[];
  readonly errors: number;
  readonly warnings: number;
}

/** The manifest as plain JSON data, keys in the documented order. */
export function manifestJson(manifest: HostManifest): ManifestJson {
  const out = {
    host: manifest.host,
    digest: manifest.digest,
    layers: manifest.layers.map((l) => ({
      name: l.name,
      precedence: l.precedence,
      reasons: [...l.reasons],
    })),
    resources: manifest.resources.map((r) => ({
      ref: r.ref,
      target: r.target ?? null,
      layers: [...r.layers],
      desired: { ...r.desired },
      requires: [...r.requires],
      restartOn: [...r.restartOn],
      reloadOn: [...r.reloadOn],
    })),
  };
  return { ...out, ...fleetDiagnosticsJson(manifest.problems) };
}

/** `fleet resolve --host H --json`: the manifest, with the repository's errors in `diagnostics`. */
export function resolvedHostJson(fleet: Fleet, manifest: HostManifest): ManifestJson {
  return {
    ...manifestJson(manifest),
    ...fleetDiagnosticsJson([...repositoryErrors(fleet), ...manifest.problems]),
  };
}

/** `fleet resolve --json` without `--host`; `shard` and `revision` only when sharded. */
export interface ResolvedHostsJson extends ShardJson, DiagnosticsJson {
  readonly hosts: readonly ManifestJson[];
}

/** Every host's manifest (of a shard); each host's problems name it in their witness. */
export function resolvedHostsJson(
  source: FleetSource,
  manifests: readonly HostManifest[],
  shard: Shard | undefined,
): ResolvedHostsJson {
  return {
    ...shardJson(source, shard),
    hosts: manifests.map(manifestJson),
    ...fleetDiagnosticsJson([
      ...repositoryErrors(source.fleet),
      ...manifests.flatMap((m) => m.problems.map((p) => ({ ...p, host: m.host }))),
    ]),
  };
}
