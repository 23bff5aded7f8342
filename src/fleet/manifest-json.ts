/** The `--json` shape of a resolved manifest (spec: `fleet resolve`), also written by `build`. */
import type { DesiredMap, HostManifest } from './model.js';
import { formatProblem } from './validate.js';

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
  /** Present only when resolution found problems. */
  readonly errors?: readonly {
    readonly code: string;
    readonly file?: string;
    readonly line?: number;
    readonly message: string;
    readonly text: string;
  }[];
}

/** The manifest as plain JSON data, keys in the documented order. */
export function manifestJson(manifest: HostManifest): ManifestJson {
  const out: ManifestJson = {
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
  if (manifest.problems.length === 0) return out;
  return {
    ...out,
    errors: manifest.problems.map((p) => ({
      code: p.code,
      ...(p.file === undefined ? {} : { file: p.file }),
      ...(p.line === undefined ? {} : { line: p.line }),
      message: p.message,
      text: formatProblem(p),
    })),
  };
}
