/** The fleet stage of `labelwise build`: diagnostics, resolved manifests and the host × layer matrix. */
import { join, relative, resolve, sep } from 'node:path';
import type { Diagnostic, RepoReader, StageResult } from '../base/index.js';
import { hostOutputPath } from './host-files.js';
import { loadFleetDir } from './io/load-dir.js';
import type { Fleet } from './model.js';
import { manifestJson } from './manifest-json.js';
import { validateFleet } from './validate.js';

/** Options for {@link buildFleetStage}. */
export interface FleetStageOptions {
  /** The repository root that finding paths are relative to. Default: `dir`. */
  readonly root?: string;
  /**
   * The repository's reader (rooted at `root`): the fleet is read through it, so its rules on
   * links, size and labelwise's own output apply. Default: a reader opened at `dir`.
   */
  readonly reader?: RepoReader;
}

/** Host × layer matrix for the HTML report: `applies[h][l]` is whether layer l reaches host h. */
export interface FleetMatrix {
  readonly hosts: string[];
  readonly layers: string[];
  readonly applies: boolean[][];
}

/** The stage's data: the host × layer matrix for the report, and the loaded fleet for diffs. */
export interface FleetStageData extends FleetMatrix {
  readonly fleet: Fleet;
}

/**
 * Validates and resolves the fleet under `dir` and returns what `build` reports and writes:
 * `outputs` maps `fleet/<host>.json` (see {@link hostOutputPath}) to each host's resolved manifest (the `fleet resolve
 * --json` shape). Writes nothing itself. Throws only when `dir` cannot be read.
 */
export async function buildFleetStage(
  dir: string,
  options: FleetStageOptions = {},
): Promise<StageResult & { data: FleetStageData }> {
  const root = options.root ?? dir;
  const inRepo = relative(resolve(root), resolve(dir)).split(sep).join('/');
  const fleet =
    options.reader === undefined || inRepo.startsWith('..')
      ? await loadFleetDir(dir)
      : await loadFleetDir(inRepo, dir, options.reader);
  const toRepo = (file: string): string =>
    relative(resolve(root), resolve(join(dir, fleet.root, file)))
      .split(sep)
      .join('/');
  const outputs: Record<string, string> = {};
  const layerNames = fleet.layers.map((l) => l.name);
  const position = new Map(layerNames.map((name, i) => [name, i]));
  const matrix: FleetMatrix = { hosts: [], layers: layerNames, applies: [] };
  const report = validateFleet(fleet, {
    onManifest: (manifest) => {
      outputs[hostOutputPath(manifest.host)] =
        `${JSON.stringify(manifestJson(manifest), null, 2)}\n`;
      const row = layerNames.map(() => false);
      for (const layer of manifest.layers) row[position.get(layer.name) as number] = true;
      matrix.hosts.push(manifest.host);
      matrix.applies.push(row);
    },
  });
  const diagnostics: Diagnostic[] = report.problems.map((p) => {
    const hosts =
      p.hosts.length === 0
        ? ''
        : p.hosts.length === 1
          ? ` (host ${p.hosts[0]})`
          : ` (affects ${p.hosts.length} hosts, first: ${p.hosts[0]})`;
    const object = p.object ?? (p.hosts.length > 0 ? `host ${p.hosts[0]}` : undefined);
    return {
      module: 'fleet',
      severity: p.severity,
      code: p.code,
      ...(object === undefined ? {} : { object }),
      ...(p.file === undefined ? {} : { file: toRepo(p.file) }),
      ...(p.line === undefined ? {} : { line: p.line }),
      message: `${p.message}${hosts}`,
    };
  });
  return {
    diagnostics,
    outputs,
    counts: {
      hosts: report.hosts,
      layers: report.layers,
      resources: report.resources,
      errors: report.errors,
      warnings: report.warnings,
    },
    // The loaded fleet rides along for `labelwise diff` (fleetChanges); it is never written.
    data: { ...matrix, fleet },
  };
}
