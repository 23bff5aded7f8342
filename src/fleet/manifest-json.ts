/** The `--json` shape of a resolved manifest (spec: `fleet resolve`), also written by `build`. */
import type { DesiredMap, HostManifest } from './model.js';
import type { Diagnostic } from '../base/index.js';
import { fleetDiagnosticsJson } from './report-json.js';

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
