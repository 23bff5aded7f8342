/**
 * The anchor stage of `labelwise build`: checks every Compose project found in the repository
 * and reports diagnostics, the claim table and `anchors.json`. Writes nothing itself.
 */
import { relative, resolve } from 'node:path';
import { LabelwiseError } from '../base/errors.js';
import type { Diagnostic, StageResult } from '../base/index.js';
import { findComposeProjects, readComposeFiles } from './adapters/compose-files.js';
import { checkAnchors } from './compose/check.js';
import type { CheckReport } from './compose/check.js';
import { loadComposeProject } from './compose/compose-model.js';

export interface AnchorStageOptions {
  /** Repository root that finding paths are relative to. Default: `dir`. */
  readonly root?: string;
}

/** The claim table for the HTML report: anchor → backends → entries, per project. */
export interface AnchorClaims {
  readonly projects: readonly {
    readonly project: string;
    readonly files: readonly string[];
    readonly anchors: readonly {
      readonly anchor: string;
      readonly scope: string;
      readonly backends: readonly {
        readonly backend: string;
        readonly entries: CheckReport['anchors'][number]['entries'];
      }[];
    }[];
  }[];
}

/**
 * Runs the anchor check over the Compose projects in `dir` (`compose/` or `compose*.yaml`).
 * Deterministic; never writes files; unreadable files surface as error diagnostics.
 */
export async function buildAnchorStage(
  dir: string,
  options: AnchorStageOptions = {},
): Promise<StageResult> {
  const root = resolve(options.root ?? dir);
  const diagnostics: Diagnostic[] = [];
  const reports: { files: string[]; report: CheckReport }[] = [];
  for (const paths of await findComposeProjects(resolve(dir))) {
    let input: Awaited<ReturnType<typeof readComposeFiles>>;
    try {
      input = await readComposeFiles(paths, root, root);
    } catch (error) {
      if (!(error instanceof LabelwiseError)) throw error;
      diagnostics.push({
        module: 'anchor',
        severity: 'error',
        code: error.code,
        file: relativePath(root, paths[0] ?? dir),
        message: error.message,
      });
      continue;
    }
    const loaded = loadComposeProject(input.files, {
      directoryName: input.directoryName,
      variables: input.dotEnv,
    });
    const report = checkAnchors(loaded.project, loaded.issues);
    reports.push({ files: input.files.map((f) => f.path), report });
    for (const issue of [...report.errors, ...report.warnings]) {
      diagnostics.push({
        module: 'anchor',
        severity: issue.severity,
        code: issue.code,
        ...(issue.service !== undefined
          ? { object: `service ${loaded.project.name}/${issue.service}` }
          : {}),
        file: issue.file,
        ...(issue.line !== undefined ? { line: issue.line } : {}),
        message: issue.message,
      });
    }
  }
  const claims: AnchorClaims = {
    projects: reports.map(({ files, report }) => ({
      project: report.project,
      files,
      anchors: report.anchors.map((a) => ({
        anchor: a.service,
        scope: a.scope,
        backends: a.backends.map((backend) => ({
          backend,
          entries: a.entries.filter((e) => e.backend === backend),
        })),
      })),
    })),
  };
  const anchors = reports.reduce((n, r) => n + r.report.anchors.length, 0);
  const backends = reports.reduce(
    (n, r) => n + r.report.anchors.reduce((m, a) => m + a.backends.length, 0),
    0,
  );
  const entries = reports.reduce(
    (n, r) => n + r.report.anchors.reduce((m, a) => m + a.entries.length, 0),
    0,
  );
  return {
    diagnostics,
    outputs:
      reports.length === 0
        ? {}
        : {
            'anchors.json': `${JSON.stringify(
              reports.map((r) => r.report),
              null,
              2,
            )}\n`,
          },
    counts: {
      projects: reports.length,
      anchors,
      backends,
      entries,
      overlaps: reports.reduce((n, r) => n + r.report.overlaps.length, 0),
    },
    data: claims,
  };
}

/** Paths relative to a root, with forward slashes (for diagnostics). */
function relativePath(root: string, path: string): string {
  return relative(root, path).split('\\').join('/');
}
