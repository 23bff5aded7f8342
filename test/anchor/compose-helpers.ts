// Helpers for the compose tests: the check over files held in memory, and a witness check
// through the selector core.
import { matches, parseEqualityList } from '../../src/selector/index.js';
import type { Labels } from '../../src/selector/index.js';
import type { Diagnostic } from '../../src/base/index.js';
import { checkComposeProject, memoryFileSystem } from '../../src/anchor/index.js';
import type { CheckReport } from '../../src/anchor/index.js';
export {
  buildAnchorStage,
  checkAnchors,
  checkComposeProject,
  loadComposeProject,
  memoryFileSystem,
  projectSnapshot,
} from '../../src/anchor/index.js';

export function matchesWitness(selector: string, witness: Labels): boolean {
  return matches(parseEqualityList(selector), witness);
}

/** A diagnostic with the service it is about (from `object: "service NAME"`). */
export type Issue = Diagnostic & { readonly service?: string };

export interface CheckedFiles extends CheckReport {
  readonly errors: Issue[];
  readonly warnings: Issue[];
}

/**
 * Checks files held in memory. The Compose files are, unless named, the top-level
 * `compose*.yaml` files in insertion order (the first is the main one).
 */
export function checkFiles(
  files: Record<string, string>,
  options: {
    project?: string;
    environment?: Record<string, string>;
    directoryName?: string;
    composeFiles?: string[];
    profiles?: string[];
  } = {},
): CheckedFiles {
  const composeFiles =
    options.composeFiles ??
    Object.keys(files).filter((p) => /^(docker-)?compose([.-][\w.-]+)?\.ya?ml$/.test(p));
  const report = checkComposeProject({
    files: composeFiles,
    fs: memoryFileSystem(files),
    directoryName: options.directoryName ?? 'My Stack',
    project: options.project,
    environment: options.environment,
    profiles: options.profiles,
  });
  const withService = (d: Diagnostic): Issue =>
    d.object?.startsWith('service ') === true ? { ...d, service: d.object.slice(8) } : d;
  return {
    ...report,
    errors: report.diagnostics.filter((d) => d.severity === 'error').map(withService),
    warnings: report.diagnostics.filter((d) => d.severity === 'warning').map(withService),
  };
}
