/**
 * Compares two builds of one repository: what the change does, module by module, and which
 * diagnostics it introduces or resolves.
 */
import { countDiagnostics, sortDiagnostics } from '../../base/index.js';
import type { Diagnostic } from '../../base/index.js';
import type { BuildRun } from '../build-run.js';
import { diffClaims } from './anchor-diff.js';
import { checkedParts } from './checked.js';
import { applyHazards, diffFlows, diffManifests } from './catalog-diff.js';
import { diffFleet, diffFleetData } from './fleet-diff.js';
import type { RepoDiff } from './model.js';
import { diffMatrix, groupByCause } from './policy-diff.js';

/** A temporary folder a revision was read into, wherever a message mentions it. */
const SNAPSHOT_PATH = /[^\s'"`]*labelwise-diff-[A-Za-z0-9]+\/?/g;
/** A position inside a message (`compose.yaml:12:3`, `line 12`): it moves when a file is edited. */
const POSITION = /(:\d+){1,2}\b|\b(line|lines|column) \d+(-\d+)?/g;

/** Message text without what moves between revisions of an unchanged finding. */
export function stableMessage(message: string): string {
  return message.replace(SNAPSHOT_PATH, '').replace(POSITION, '');
}

/**
 * A diagnostic's identity across revisions: lines move when a file is edited and each side is
 * read from its own temporary folder; the rest stays.
 */
export function diagnosticIdentity(d: Diagnostic): string {
  return JSON.stringify([d.severity, d.code, d.module, d.file, d.object, stableMessage(d.message)]);
}
const identity = diagnosticIdentity;

function stageData(build: BuildRun | undefined, module: string): unknown {
  return build?.runs.find((run) => run.module === module)?.result.data;
}

export interface Side {
  readonly revision: string;
  readonly commit?: string;
  /** Undefined when the revision holds nothing to build (a part added by the change). */
  readonly build?: BuildRun;
}

const OVERLAP = /OVERLAP/;

export function compareBuilds(from: Side, to: Side): RepoDiff {
  const before = from.build?.files ?? {};
  const after = to.build?.files ?? {};
  const oldDiagnostics = from.build?.report.diagnostics ?? [];
  const newDiagnostics = to.build?.report.diagnostics ?? [];
  const seenBefore = new Set(oldDiagnostics.map(identity));
  const seenAfter = new Set(newDiagnostics.map(identity));
  const introduced = sortDiagnostics(newDiagnostics.filter((d) => !seenBefore.has(identity(d))));
  const resolved = sortDiagnostics(oldDiagnostics.filter((d) => !seenAfter.has(identity(d))));
  const fleet = {
    changes:
      diffFleetData(stageData(from.build, 'fleet'), stageData(to.build, 'fleet')) ??
      diffFleet(before, after),
  };
  const catalog = {
    changes: diffManifests(before, after),
    flows: diffFlows(stageData(from.build, 'catalog'), stageData(to.build, 'catalog')),
    hazards: applyHazards(before, after),
  };
  const flips = diffMatrix(stageData(from.build, 'policy'), stageData(to.build, 'policy'));
  const policy = {
    changes: flips,
    compiledChanged: before['policy/compiled.json'] !== after['policy/compiled.json'],
    causes: groupByCause(flips),
  };
  const anchor = {
    changes: diffClaims(before, after),
    overlapsIntroduced: introduced.filter((d) => d.module === 'anchor' && OVERLAP.test(d.code)),
  };
  const changed =
    fleet.changes.length > 0 ||
    catalog.changes.length > 0 ||
    catalog.flows.length > 0 ||
    policy.changes.length > 0 ||
    policy.compiledChanged ||
    anchor.changes.length > 0 ||
    introduced.length > 0 ||
    resolved.length > 0;
  return {
    from: {
      revision: from.revision,
      ...(from.commit !== undefined ? { commit: from.commit } : {}),
    },
    to: { revision: to.revision, ...(to.commit !== undefined ? { commit: to.commit } : {}) },
    fleet,
    catalog,
    policy,
    anchor,
    introduced,
    resolved,
    // A change that cannot be applied fails the review as an error it introduces would.
    errors: countDiagnostics([...introduced, ...catalog.hazards]).errors,
    changed,
    checked: checkedParts(to.build),
  };
}
