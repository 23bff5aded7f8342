/**
 * The catalog's stage of `labelwise build`: validate, render and check a catalog directory, and
 * return diagnostics, the files it would write and counts. Reads files; never writes.
 */
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Diagnostic, StageResult } from '../base/index.js';
import type { LabelwiseError } from '../base/errors.js';
import { catalogSchemas } from './io/schemas.js';
import { displayPath, readAppsDir, readCatalogDir } from './io/read-files.js';
import { runCatalog } from './pipeline.js';

/** Options for {@link buildCatalogStage}. */
export interface CatalogStageOptions {
  /** Repository root that finding paths are relative to. Default: the parent of `dir`. */
  readonly root?: string;
  /**
   * The checked-in rendered directory. When given (and present), the stage also runs the golden
   * comparison and the storage-migration check against it. Default: none.
   */
  readonly apps?: string;
}

function toFinding(error: LabelwiseError, severity: Diagnostic['severity']): Diagnostic {
  const { file, line, col: column } = error.source;
  return {
    module: 'catalog',
    severity,
    code: error.code,
    ...(file !== undefined ? { file } : {}),
    ...(line !== undefined ? { line } : {}),
    ...(column !== undefined ? { column } : {}),
    message: error.hint === undefined ? error.message : `${error.message} (hint: ${error.hint})`,
  };
}

/**
 * Runs the catalog in `dir` for `labelwise build`. Findings: every load, render and validation
 * error, every warning, every failed conformance check and every golden difference. Outputs:
 * `apps/<service>/<file>` for every rendered file (empty when there were errors). Unreadable
 * paths throw a LabelwiseError of kind `unavailable`.
 */
export async function buildCatalogStage(
  dir: string,
  options: CatalogStageOptions = {},
): Promise<StageResult> {
  const catalogDir = resolve(dir);
  const root = resolve(options.root ?? dirname(catalogDir));
  const input = readCatalogDir(catalogDir, root);
  const appsDir =
    options.apps === undefined
      ? undefined
      : isAbsolute(options.apps)
        ? options.apps
        : join(root, options.apps);
  const names = input.definitions.map((d) =>
    (d.file.split('/').pop() ?? '').replace(/\.ya?ml$/, ''),
  );
  const apps = appsDir === undefined ? undefined : readAppsDir(appsDir, root, names);
  const run = runCatalog(input, catalogSchemas(), apps === undefined ? {} : { apps });
  // Conformance results name a rendered object; point the finding at the definition it came
  // from (each service renders into the namespace of its own name).
  const definitionFiles = new Map(run.loaded.services.map((s) => [s.name, s.file]));
  const definitionOf = (object: string): { file?: string } => {
    const match = /^(\S+) (?:([^/\s]+)\/)?(\S+)$/.exec(object);
    const service =
      match === null ? undefined : (match[2] ?? (match[1] === 'Namespace' ? match[3] : undefined));
    const file = service === undefined ? undefined : definitionFiles.get(service);
    return file === undefined ? {} : { file };
  };
  const diagnostics: Diagnostic[] = [
    ...run.errors.map((e) => toFinding(e, 'error')),
    ...run.warnings.map((e) => toFinding(e, 'warning')),
    ...run.checks
      .filter((c) => !c.ok)
      .map((c): Diagnostic => ({
        module: 'catalog',
        severity: 'error',
        code: 'CATALOG_CONFORMANCE',
        object: c.object,
        ...definitionOf(c.object),
        message: `${c.name}: ${c.message}`,
      })),
    ...(run.diffs ?? []).map((d): Diagnostic => ({
      module: 'catalog',
      severity: 'error',
      code: 'CATALOG_GOLDEN_DIFF',
      object: d.path,
      ...(appsDir === undefined ? {} : { file: displayPath(root, join(appsDir, d.path)) }),
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
    },
  };
}
