/** The policy stage of `labelwise build`. */
import { isAbsolute, relative, resolve } from 'node:path';
import type { AcceptRule, Diagnostic, StageResult } from '../base/index.js';
import { acceptPolicyFindings } from './lint/accepted.js';
import { compilePolicy } from './api.js';
import { renderModel } from './compile/render.js';
import { loadPolicyDir } from './io/read-dir.js';
import { computeMatrix } from './matrix/index.js';
import { sortProblems } from './lint/index.js';
import { lintModel } from './lint/index.js';
import type { SettingsInput } from './settings.js';
import type { PolicyProblem } from './types.js';

/** Options for {@link buildPolicyStage}. */
export interface PolicyStageOptions {
  /** The repository root finding paths are relative to. Default: `dir`. */
  root?: string;
  /** Cluster settings. Default: Linkerd's install defaults. */
  settings?: SettingsInput;
  /** The namespace of namespace-less objects (`kubectl apply -n`). Default: `default`, warned. */
  namespace?: string;
  /**
   * `labelwise.yaml`'s per-folder namespaces: folder (relative to `root`, `/`-separated) →
   * namespace of that folder's namespace-less objects; the deepest folder wins. Default: none.
   */
  folderNamespaces?: Readonly<Record<string, string>>;
  /** `labelwise.yaml`'s accepted findings (see base/accepted.ts). Default: none. */
  accept?: readonly AcceptRule[];
}

function toFinding(p: PolicyProblem): Diagnostic {
  return {
    module: 'policy',
    severity: p.severity,
    code: p.code,
    ...(p.object === undefined ? {} : { object: p.object }),
    ...(p.file === undefined ? {} : { file: p.file }),
    ...(p.line === undefined ? {} : { line: p.line }),
    ...(p.path === undefined ? {} : { path: p.path }),
    message: p.message,
    ...(p.hint === undefined ? {} : { hint: p.hint }),
    ...(p.witness === undefined ? {} : { witness: p.witness }),
    ...(p.accepted === undefined ? {} : { accepted: p.accepted }),
  };
}

/**
 * Loads, validates, compiles and lints the policy directory `dir`. Returns admission errors and
 * lint diagnostics (file paths relative to `root`), `policy/compiled.json` as the one output, and
 * counts; `data` holds the compiled model, the diagnostics and the reachability `matrix`
 * ({@link computeMatrix}). Writes nothing. Throws only when `dir` cannot be read (`unavailable`).
 */
export async function buildPolicyStage(
  dir: string,
  options: PolicyStageOptions = {},
): Promise<StageResult> {
  const root = resolve(options.root ?? dir);
  const absolute = isAbsolute(dir) ? dir : resolve(dir);
  const loaded = await loadPolicyDir(absolute, {
    root,
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    ...(options.folderNamespaces === undefined
      ? {}
      : { folderNamespaces: options.folderNamespaces }),
  });
  const model = compilePolicy(loaded.resources, options.settings ?? {});
  const problems = acceptPolicyFindings(
    sortProblems([...loaded.problems, ...lintModel(model)]),
    model,
    options.accept,
  );
  const compiled = renderModel(model);
  const r = loaded.resources;
  const routes = r.routes.length + r.routeGroups.reduce((n, g) => n + g.routes.length, 0);
  const authorizations = r.authorizationPolicies.length + r.serverAuthorizations.length;
  return {
    diagnostics: problems.map(toFinding),
    outputs: { 'policy/compiled.json': `${JSON.stringify(compiled, null, 2)}\n` },
    counts: {
      files: loaded.files.length,
      pods: r.pods.length,
      servers: r.servers.length,
      routes,
      authorizations,
      errors: problems.filter((p) => p.severity === 'error' && p.accepted === undefined).length,
      warnings: problems.filter((p) => p.severity === 'warning' && p.accepted === undefined).length,
    },
    data: {
      directory: relative(root, absolute) || '.',
      compiled,
      diagnostics: problems,
      // Who can reach what, for the report's policy section (see docs/policy.md, "Matrix").
      matrix: computeMatrix(model),
      // For `labelwise diff`, which evaluates two revisions over the same clients.
      model,
    },
  };
}
