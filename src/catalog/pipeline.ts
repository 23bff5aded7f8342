/**
 * The whole catalog run over in-memory inputs: load and resolve, render, validate, emit, check
 * conformance and (with an apps directory's contents) compare against the golden files. Pure:
 * the CLI and the build stage do the reading and writing around it.
 */
import { diagnosticFromError, pushAll, sortDiagnostics } from '../base/index.js';
import type { Diagnostic, LabelwiseError } from '../base/index.js';
import { runConformance } from './conformance/run-conformance.js';
import { proveReachability } from './conformance/check-reachability.js';
import type { Reachability } from './conformance/reachability.js';
import type { CheckResult } from './conformance/model.js';
import { emitFiles } from './output/emit.js';
import type { GoldenDiff } from './output/golden.js';
import { compareGolden } from './output/golden.js';
import type { CatalogInput, CatalogSchemas, LoadedCatalog } from './definition/load-catalog.js';
import { loadCatalog } from './definition/load-catalog.js';
import { immutableDiagnostics } from './apply/immutable-fields.js';
import { parsedApps } from './apply/parsed-apps.js';
import { upstreamDiagnostics } from './crds/diagnostics.js';
import { renderService } from './render/render-service.js';
import type { KubeObject, RenderedService } from './types.js';

/** Options for {@link runCatalog}. */
export interface RunCatalogOptions {
  /**
   * The existing apps directory's managed files (`<service>/<file>` → text). Enables the golden
   * comparison and the storage-migration check. Default: none.
   */
  readonly apps?: Readonly<Record<string, string>>;
}

/** Everything one run found. `files` is empty when there were errors (nothing may be written). */
export interface CatalogRun {
  readonly loaded: LoadedCatalog;
  readonly rendered: readonly RenderedService[];
  readonly files: Readonly<Record<string, string>>;
  readonly errors: readonly LabelwiseError[];
  readonly warnings: readonly LabelwiseError[];
  readonly checks: readonly CheckResult[];
  /** Golden differences; undefined without `apps`. */
  readonly diffs: readonly GoldenDiff[] | undefined;
  /**
   * Every problem as the shared diagnostic, in the one order: load, render and validation errors,
   * upstream-schema problems (`CATALOG_INVALID_OBJECT`, when `schemas.upstream` is given),
   * warnings, and failed conformance checks (`CATALOG_CONFORMANCE`, pointing at the definition).
   * Golden differences are not in it; callers report those their own way (a patch, a finding).
   */
  readonly diagnostics: readonly Diagnostic[];
  /** The flows the reachability proof computed, for the service graph; absent without a platform. */
  readonly reachability?: Reachability;
}

/** A catalog problem as the shared diagnostic. */
export function catalogDiagnostic(
  error: LabelwiseError,
  severity: Diagnostic['severity'],
): Diagnostic {
  const d = diagnosticFromError(error, 'catalog');
  // The path has its own field: a message that starts with it says it once, not twice.
  const prefix = d.path === undefined ? undefined : `${d.path}: `;
  const message =
    prefix !== undefined && d.message.startsWith(prefix)
      ? d.message.slice(prefix.length)
      : d.message;
  return { ...d, message, severity };
}

/**
 * Failed conformance checks, each pointed at the definition of the service its object is in and
 * carrying the check's witness (the label set or flow that breaks it) when it has one.
 */
export function checkDiagnostics(
  checks: readonly CheckResult[],
  loaded: LoadedCatalog,
): Diagnostic[] {
  const definitionFiles = new Map(loaded.services.map((s) => [s.name, s.file]));
  const definitionOf = (object: string): { file?: string } => {
    // `Kind namespace/name …`, `Namespace name` or `service name`: each service renders into its
    // own namespace.
    const match = /^(\S+) (?:([^/\s]+)\/)?(\S+)/.exec(object);
    const service =
      match === null
        ? undefined
        : (match[2] ?? (match[1] === 'Namespace' || match[1] === 'service' ? match[3] : undefined));
    const file = service === undefined ? undefined : definitionFiles.get(service);
    return file === undefined ? {} : { file };
  };
  return checks
    .filter((c) => !c.ok)
    .map((c) => ({
      module: 'catalog',
      severity: 'error',
      code: 'CATALOG_CONFORMANCE',
      object: c.object,
      ...definitionOf(c.object),
      message: `${c.name}: ${c.message}`,
      ...(c.witness === undefined ? {} : { witness: c.witness }),
    }));
}

const WORKLOAD_FILE = /^(deployment|statefulset|virtualmachine)-/;
const KIND_OF: Readonly<Record<string, string>> = {
  deployment: 'Deployment',
  statefulset: 'StatefulSet',
  virtualmachine: 'VirtualMachine',
};

/** The workload kind each service had in the apps directory, read from its object's `kind`. */
export function previousWorkloads(apps: Readonly<Record<string, string>>): Map<string, string> {
  const out = new Map<string, string>();
  const documents = parsedApps(apps);
  for (const path of Object.keys(apps)) {
    const [service, name] = path.split('/') as [string, string];
    const prefix = WORKLOAD_FILE.exec(name)?.[1];
    if (prefix === undefined) continue;
    // Trust the object over the file name when it parses; fall back to the name (a broken
    // file is the golden diff's to report).
    const k = (documents.get(path) as { kind?: unknown } | null | undefined)?.kind;
    const kind = typeof k === 'string' ? k : (KIND_OF[prefix] ?? prefix);
    out.set(service, kind);
  }
  return out;
}

/** Runs the catalog. Never throws for bad input; see {@link CatalogRun}. */
export function runCatalog(
  input: CatalogInput,
  schemas: CatalogSchemas,
  options: RunCatalogOptions = {},
): CatalogRun {
  const loaded = loadCatalog(input, schemas);
  const errors: LabelwiseError[] = [...loaded.errors];
  const rendered: RenderedService[] = [];
  let checks: CheckResult[] = [];
  let files: Record<string, string> = {};
  let upstream: Diagnostic[] = [];
  let proof: ReturnType<typeof proveReachability> | undefined;
  if (loaded.platform !== undefined) {
    const context = {
      platform: loaded.platform,
      validateVirtualMachine: schemas.virtualMachine,
      upstreamKinds: schemas.upstream?.kinds,
    };
    for (const service of loaded.services) {
      const result = renderService(service, context);
      rendered.push(result.rendered);
      pushAll(errors, result.errors);
    }
    const emitted = emitFiles(rendered);
    pushAll(errors, emitted.errors);
    files = emitted.files;
    if (schemas.upstream !== undefined)
      upstream = upstreamDiagnostics(rendered, loaded.services, schemas.upstream);
    const objects = new Map<string, readonly KubeObject[]>(
      rendered.map((r) => [r.service, r.objects]),
    );
    proof = proveReachability(loaded.services, objects, loaded.platform);
    checks = runConformance({
      platform: loaded.platform,
      services: loaded.services,
      objects,
      previousWorkloads: options.apps === undefined ? new Map() : previousWorkloads(options.apps),
      proof,
    });
  }
  const diffs =
    options.apps === undefined || errors.length > 0
      ? undefined
      : compareGolden(files, options.apps);
  const diagnostics = sortDiagnostics([
    ...errors.map((e) => catalogDiagnostic(e, 'error')),
    ...upstream,
    ...loaded.warnings.map((e) => catalogDiagnostic(e, 'warning')),
    ...checkDiagnostics(checks, loaded),
  ]);
  return {
    loaded,
    rendered,
    files: errors.length > 0 ? {} : files,
    errors,
    warnings: loaded.warnings,
    checks,
    diffs: options.apps === undefined ? undefined : (diffs ?? []),
    diagnostics,
    ...(proof === undefined ? {} : { reachability: proof.reachability }),
  };
}

/**
 * Immutable-field changes of a run's render relative to the apps directory it was given (see
 * `immutable-fields.ts`). `appsDir` is the directory as shown to the user.
 */
export function immutableFieldDiagnostics(
  run: CatalogRun,
  apps: Readonly<Record<string, string>>,
  appsDir: string,
): Diagnostic[] {
  return immutableDiagnostics(run.rendered, run.loaded.services, apps, appsDir);
}
