/**
 * Catalog: the rendered manifests added, removed and changed (a unified diff per object), and
 * the allowed flows between services that the change opens or closes, as the catalog stage's
 * reachability proof reports them.
 */
import { createTwoFilesPatch } from 'diff';
import { compareText, parseYamlDocument } from '../../base/index.js';
import type { Diagnostic } from '../../base/index.js';
import { compareObject, immutableFieldDiagnostic } from '../../catalog/index.js';
import type { KubeObject, ServiceGraph } from '../../catalog/index.js';
import type { FlowChange, ManifestChange } from './model.js';

const MANIFEST_FILE = /^apps\/.+\.ya?ml$/;

/** Past this many lines a patch is cut: a reviewer reads the first part, the file has the rest. */
const PATCH_LINE_LIMIT = 400;

function cut(patch: string): string {
  const lines = patch.split('\n');
  if (lines.length <= PATCH_LINE_LIMIT) return patch;
  return `${lines.slice(0, PATCH_LINE_LIMIT).join('\n')}\n… ${lines.length - PATCH_LINE_LIMIT} more lines\n`;
}

export function diffManifests(
  from: Readonly<Record<string, string>>,
  to: Readonly<Record<string, string>>,
): ManifestChange[] {
  const files = new Set(
    [...Object.keys(from), ...Object.keys(to)].filter((f) => MANIFEST_FILE.test(f)),
  );
  const changes: ManifestChange[] = [];
  for (const file of [...files].sort(compareText)) {
    const a = from[file];
    const b = to[file];
    if (a === b) continue;
    if (a === undefined) changes.push({ file, change: 'added' });
    else if (b === undefined) changes.push({ file, change: 'removed' });
    else
      changes.push({
        file,
        change: 'changed',
        patch: cut(createTwoFilesPatch(`a/${file}`, `b/${file}`, a, b, '', '', { context: 3 })),
      });
  }
  return changes;
}

/** The allowed flows in a catalog stage's service graph, as `from -> to ports` strings. */
export function catalogFlows(data: unknown): Set<string> | undefined {
  const graph = (data as { serviceGraph?: ServiceGraph } | undefined)?.serviceGraph;
  if (graph === undefined || !Array.isArray(graph.edges)) return undefined;
  return new Set(graph.edges.map((e) => `${e.from} -> ${e.to} ${e.ports}`));
}

export function diffFlows(from: unknown, to: unknown): FlowChange[] {
  const a = catalogFlows(from) ?? new Set<string>();
  const b = catalogFlows(to) ?? new Set<string>();
  const changes: FlowChange[] = [];
  for (const flow of [...new Set([...a, ...b])].sort(compareText)) {
    if (a.has(flow) && !b.has(flow)) changes.push({ flow, change: 'denied' });
    if (!a.has(flow) && b.has(flow)) changes.push({ flow, change: 'allowed' });
  }
  return changes;
}

/** The recreate switches the catalog renders when a service acknowledges a storage migration. */
const RECREATE = 'kustomize.toolkit.fluxcd.io/force';

/**
 * Apply-time hazards of the change: each rendered object whose new version changes a field the
 * API server will not let change on an existing object (as `catalog check` reports them against
 * the checked-in apps/). An error, or a warning when the object carries the recreate switches
 * of an acknowledged migration.
 */
export function applyHazards(
  from: Readonly<Record<string, string>>,
  to: Readonly<Record<string, string>>,
): Diagnostic[] {
  const hazards: Diagnostic[] = [];
  for (const file of Object.keys(to)
    .filter((f) => MANIFEST_FILE.test(f))
    .sort(compareText)) {
    const before = from[file];
    const after = to[file];
    if (before === undefined || after === undefined || before === after) continue;
    const a = parseYamlDocument(before, { file }).document?.value;
    const b = parseYamlDocument(after, { file }).document?.value as KubeObject | undefined;
    if (a === undefined || b === undefined || typeof b !== 'object' || b === null) continue;
    if (typeof b.kind !== 'string' || typeof b.metadata?.name !== 'string') continue;
    const annotations = (b.metadata as { annotations?: Record<string, string> }).annotations;
    const acknowledged = annotations?.[RECREATE] === 'enabled';
    for (const change of compareObject(a, b, file))
      hazards.push(immutableFieldDiagnostic(change, { file, acknowledged }));
  }
  return hazards;
}
