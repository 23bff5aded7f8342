/**
 * The catalog's stage of `labelwise build`: validate, render and check a catalog directory, and
 * return diagnostics, the files it would write and counts. Reads through the shared repository
 * reader; never writes.
 */
import { dirname, resolve } from 'node:path';
import { LabelwiseError, RepoReader } from '../base/index.js';
import type { Diagnostic, StageResult } from '../base/index.js';
import { catalogSchemas } from './io/schemas.js';
import { readAppsDir, readCatalogDir, readerDiagnostics } from './io/read-files.js';
import { immutableFieldDiagnostics, runCatalog } from './pipeline.js';
import { serviceGraphData } from './graph/graph-data.js';

/** Options for {@link buildCatalogStage}. */
export interface CatalogStageOptions {
  /** Repository root that finding paths are relative to. Default: the parent of `dir`. */
  readonly root?: string;
  /** The repository reader to read with (the build shares one). Default: one opened at `root`. */
  readonly reader?: RepoReader;
  /**
   * The checked-in rendered directory. When given (and present), the stage also runs the golden
   * comparison and the storage checks against it. Default: none.
   */
  readonly apps?: string;
}

/** A path the caller named, as a path of the reader's repository. */
function repoPath(reader: RepoReader, path: string): string {
  const inside = reader.inside(path);
  if (inside === undefined)
    throw new LabelwiseError(
      'CATALOG_UNREADABLE',
      `${path} lies outside the repository ${reader.root}`,
      { source: { file: path }, kind: 'unavailable' },
    );
  return inside;
}

/**
 * Runs the catalog in `dir` for `labelwise build`. Findings: every read, load, render and
 * validation problem, every warning, every failed conformance check and every golden
 * difference. Outputs: `apps/<service>/<file>` for every rendered file (empty when there were
 * errors). A catalog directory without `platform.yaml` is an error, never skipped. An unreadable
 * catalog directory throws a LabelwiseError of kind `unavailable`.
 */
export async function buildCatalogStage(
  dir: string,
  options: CatalogStageOptions = {},
): Promise<StageResult> {
  const catalogDir = resolve(dir);
  const reader = options.reader ?? RepoReader.open(resolve(options.root ?? dirname(catalogDir)));
  const mark = reader.diagnostics.length;
  const input = readCatalogDir(reader, repoPath(reader, catalogDir));
  const appsDir =
    options.apps === undefined ? undefined : repoPath(reader, resolve(reader.root, options.apps));
  const names = input.definitions.map((d) =>
    (d.file.split('/').pop() ?? '').replace(/\.ya?ml$/, ''),
  );
  const apps = appsDir === undefined ? undefined : readAppsDir(reader, appsDir, names);
  const run = runCatalog(input, catalogSchemas(), apps === undefined ? {} : { apps });
  const diagnostics: Diagnostic[] = [
    ...readerDiagnostics(reader, mark),
    ...run.diagnostics,
    ...(apps === undefined || appsDir === undefined || run.errors.length > 0
      ? []
      : immutableFieldDiagnostics(run, apps, appsDir)),
    ...(run.diffs ?? []).map((d): Diagnostic => ({
      module: 'catalog',
      severity: 'error',
      code: 'CATALOG_GOLDEN_DIFF',
      object: d.path,
      ...(appsDir === undefined ? {} : { file: `${appsDir}/${d.path}` }),
      message: `${d.path} is ${d.change === 'added' ? 'missing from' : d.change === 'removed' ? 'extra in' : 'out of date in'} the apps directory; re-run labelwise catalog render`,
    })),
  ];
  const outputs: Record<string, string> = {};
  for (const [path, text] of Object.entries(run.files)) outputs[`apps/${path}`] = text;
  const objects = run.rendered.reduce((n, r) => n + r.objects.length, 0);
  return {
    diagnostics,
    outputs,
    counts: {
      services: run.loaded.services.length,
      objects,
      files: Object.keys(run.files).length,
      checks: run.checks.length,
      failedChecks: run.checks.filter((c) => !c.ok).length,
      ...(run.diffs !== undefined ? { diffs: run.diffs.length } : {}),
    },
    data: {
      services: run.loaded.services.map((s) => ({
        name: s.name,
        kind: s.kind,
        workload: s.observability.livenessWorkload.kind,
        exposure: s.exposure,
        egress: s.egress,
        auth: s.auth.mode,
        replicas: s.availability.replicas,
        objects:
          run.rendered
            .find((r) => r.service === s.name)
            ?.objects.map((o) => `${o.kind}/${o.metadata.name}`) ?? [],
      })),
      checks: run.checks,
      ...serviceGraphData(run),
    },
  };
}
