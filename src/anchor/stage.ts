/**
 * The anchor stage of `labelwise build`: checks every Compose project found in the repository
 * with {@link checkComposeProject} — the function `labelwise anchor check` uses, so both judge a
 * file the same way — and reports diagnostics, the claim table and `anchors.json`. Reads through
 * the shared repository reader; writes nothing itself. The shell environment is not used: a
 * repository revision alone decides the result (the project's `.env` is read).
 */
import { posix, resolve } from 'node:path';
import { RepoReader } from '../base/index.js';
import type { Diagnostic, StageResult } from '../base/index.js';
import { checkComposeProject } from './check.js';
import type { CheckReport } from './compose/check.js';
import { findComposeProjects, folderName } from './io/compose-files.js';
import type { ComposeDiscovery } from './io/compose-files.js';

/** A project as labelwise.yaml lists it: its `-f` files in order, and `-p` when given. */
export interface ListedProject {
  /** Repository-relative. */
  readonly files: readonly string[];
  readonly name?: string;
}

export interface AnchorStageOptions {
  /** Repository root that finding paths are relative to. Default: `dir`. */
  readonly root?: string;
  /** The repository folder's own name when `root` is a copy of it (a revision being diffed). */
  readonly rootName?: string;
  /** Projects listed in labelwise.yaml; they replace discovery. */
  readonly projects?: readonly ListedProject[];
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
  /** Compose-named files no project reads, with the project read beside them. */
  readonly notRead?: ComposeDiscovery['notRead'];
}

/**
 * Runs the anchor check over the Compose projects in `dir` (found as `docker compose` with no
 * `-f` finds them, see compose-files.ts) or over the projects labelwise.yaml lists.
 * Deterministic; never writes files; unreadable files surface as diagnostics.
 */
export async function buildAnchorStage(
  dir: string,
  options: AnchorStageOptions = {},
): Promise<StageResult> {
  const root = resolve(options.root ?? dir);
  const reader = RepoReader.open(root);
  const folder = reader.inside(resolve(dir)) ?? '.';
  const diagnostics: Diagnostic[] = [];
  const reports: { files: readonly string[]; report: CheckReport }[] = [];
  const found: ComposeDiscovery =
    options.projects === undefined
      ? findComposeProjects(reader, folder)
      : { projects: options.projects.map((p) => p.files), notRead: [] };
  for (const [index, files] of found.projects.entries()) {
    const report = checkComposeProject({
      files,
      fs: reader,
      directoryName: folderName(reader, posix.dirname(files[0] as string), options.rootName),
      project: options.projects?.[index]?.name,
    });
    reports.push({ files, report });
    // In a repository with several projects, the object names the project too.
    for (const d of report.diagnostics)
      diagnostics.push({
        ...d,
        module: 'anchor',
        ...(d.object?.startsWith('service ') === true
          ? { object: `service ${report.project}/${d.object.slice('service '.length)}` }
          : {}),
      });
  }
  // Listing problems (links out of the repository) not tied to one project.
  for (const d of reader.diagnostics)
    if (!diagnostics.some((x) => x.code === d.code && x.file === d.file))
      diagnostics.push({ ...d, module: 'anchor' });
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
    notRead: found.notRead,
  };
  const sum = (f: (r: CheckReport) => number): number =>
    reports.reduce((n, r) => n + f(r.report), 0);
  return {
    diagnostics,
    outputs:
      reports.length === 0
        ? {}
        : {
            'anchors.json': `${JSON.stringify(
              reports.map((r) => ({
                project: r.report.project,
                anchors: r.report.anchors,
                overlaps: r.report.overlaps,
              })),
              null,
              2,
            )}\n`,
          },
    counts: {
      projects: reports.length,
      anchors: sum((r) => r.anchors.length),
      backends: sum((r) => r.anchors.reduce((m, a) => m + a.backends.length, 0)),
      entries: sum((r) => r.anchors.reduce((m, a) => m + a.entries.length, 0)),
      overlaps: sum((r) => r.overlaps.length),
    },
    data: claims,
  };
}
