/**
 * Resolution of one host (spec: Resolution of host H): labels plus `datum/host`, layer selection
 * through the selector index, the fold of every reference (`resolve-resource.ts`), graph checks,
 * dependency order and the digest. Pure: the same fleet and host give the same manifest, byte
 * for byte.
 *
 * HOT PATH for `validate` (once per host): references are handled by their fleet-wide rank so
 * that ordering, presence and edge lookups are integer operations; references only one layer
 * declares come straight from the memo. Measure with `npm run bench -- fleet` before changing.
 */
import { LabelwiseError } from '../../base/errors.js';
import type { Labels } from '../../selector/index.js';
import type { FleetProblem, HostDoc, HostManifest, ResourceDoc } from '../model.js';
import { digestOfCanonical } from './digest.js';
import { analyseIndexed } from './graph.js';
import { hostLabels, selectLayers } from './prepare.js';
import type { PreparedFleet, ResolvedEntry } from './prepare.js';
import { resolveResource } from './resolve-resource.js';
import { retainedEntry } from './retained.js';
import type { Contribution } from './resolve-resource.js';

/** Options for {@link resolveHost}. */
export interface ResolveOptions {
  /** Build per-leaf provenance and substitution records (explain needs them). Default: true. */
  readonly provenance?: boolean;
}

/**
 * Resolves one host. Throws `FLEET_UNKNOWN_HOST` when the fleet has no such Host; every other
 * problem is collected in {@link HostManifest.problems}.
 */
export function resolveHost(
  prepared: PreparedFleet,
  hostName: string,
  options: ResolveOptions = {},
): HostManifest {
  const host = hostOf(prepared, hostName);
  const labels = hostLabels(host);
  const selected = selectLayers(prepared, labels);
  const entries = entriesOf(prepared, host, labels, selected, options.provenance !== false);
  const problems: FleetProblem[] = [];
  const { successors, fragments } = linkEntries(prepared, entries, host.name, problems);
  const graph = analyseIndexed(entries.length, successors);
  for (const cycle of graph.cycles) {
    const first = entries[cycle[0] as number] as ResolvedEntry;
    const doc = lastDoc(prepared, first);
    problems.push({
      severity: 'error',
      code: 'FLEET_DEPENDENCY_CYCLE',
      message: `dependency cycle: ${cycle.map((i) => (entries[i] as ResolvedEntry).resource.ref).join(' -> ')}`,
      file: doc.file,
      line: doc.line,
      object: first.resource.ref,
      host: host.name,
    });
  }
  return {
    host: host.name,
    labels,
    layers: selected.map((position) => prepared.appliedAt(position)),
    resources: graph.order.map((i) => (entries[i] as ResolvedEntry).resource),
    // Entries are in reference order, so the fragments form the canonical text directly.
    digest: digestOfCanonical(`[${fragments.join(',')}]`),
    problems,
  };
}

/** The Host document, or the error that says why there is none to resolve. */
function hostOf(prepared: PreparedFleet, hostName: string): HostDoc {
  const host = prepared.hosts.get(hostName);
  if (host !== undefined) return host;
  const broken = prepared.fleet.invalidHosts.get(hostName);
  if (broken !== undefined)
    throw new LabelwiseError(
      'FLEET_INVALID_HOST',
      `Host ${JSON.stringify(hostName)} has errors and cannot be resolved`,
      {
        source: { file: broken.file, line: broken.line },
        hint: 'run `labelwise fleet validate` to see them',
      },
    );
  throw new LabelwiseError(
    'FLEET_UNKNOWN_HOST',
    `no Host document named ${JSON.stringify(hostName)} in this fleet`,
    { hint: 'run `labelwise fleet validate` to list the hosts' },
  );
}

/**
 * Every reference the selected layers give the host, folded, in reference order. Results that
 * do not depend on the host (no placeholder among the contributing documents) come from the
 * memo, with or without provenance.
 */
function entriesOf(
  prepared: PreparedFleet,
  host: HostDoc,
  labels: Labels,
  selected: readonly number[],
  withProvenance: boolean,
): ResolvedEntry[] {
  const memo = withProvenance ? prepared.provenanceMemo : prepared.memo;
  const entries: ResolvedEntry[] = [];
  const contributions = new Map<string, Contribution[]>();
  for (const position of selected) {
    const { layer, solo, shared } = prepared.layers.docsAt(position);
    for (const doc of solo)
      entries.push(
        // Looked up before the contribution is built: nearly every solo document is a hit.
        memo.get(doc) ??
          memoized(prepared, memo, [{ layer, doc }], doc, host, labels, withProvenance),
      );
    for (const doc of shared) {
      const list = contributions.get(doc.ref);
      if (list === undefined) contributions.set(doc.ref, [{ layer, doc }]);
      else list.push({ layer, doc });
    }
  }
  for (const contribs of contributions.values()) {
    if (contribs.every((c) => !c.doc.templated)) {
      const key =
        contribs.length === 1
          ? (contribs[0] as Contribution).doc
          : contribs.map((c) => prepared.docIds.get(c.doc)).join(',');
      entries.push(memoized(prepared, memo, contribs, key, host, labels, withProvenance));
    } else
      entries.push(
        resolveResource(
          contribs,
          host,
          labels,
          withProvenance,
          prepared.refRank.get((contribs[0] as Contribution).doc.ref) as number,
          prepared.fleet.files,
          prepared.fleet.contents,
        ),
      );
  }
  return entries.sort((a, b) => a.rank - b.rank);
}

/**
 * The host's problems from its entries (their own, duplicate targets, unresolved edges) and the
 * dependency graph between them, by local index; with each entry's digest fragment.
 */
function linkEntries(
  prepared: PreparedFleet,
  entries: readonly ResolvedEntry[],
  hostName: string,
  problems: FleetProblem[],
): { successors: (number[] | undefined)[]; fragments: string[] } {
  const n = entries.length;
  // scratch[rank] = local index + 1 for the references this host has; cleared before returning.
  const scratch = prepared.scratch;
  for (let i = 0; i < n; i++) scratch[(entries[i] as ResolvedEntry).rank] = i + 1;
  const owners = new Map<string, number>();
  const successors: (number[] | undefined)[] = new Array<number[] | undefined>(n);
  const fragments: string[] = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const entry = entries[i] as ResolvedEntry;
    fragments[i] = entry.fragment;
    for (const p of entry.problems) problems.push({ ...p, host: hostName });
    if (entry.targetKey !== undefined) {
      const owner = owners.get(entry.targetKey);
      if (owner === undefined) owners.set(entry.targetKey, i);
      else duplicateTarget(prepared, entries, owner, i, hostName, problems);
    }
    for (const edge of entry.edges) {
      const rank = prepared.refRank.get(edge.ref);
      const local = rank === undefined ? 0 : (scratch[rank] as number);
      if (local === 0) {
        if (prepared.fleet.invalidRefs.has(edge.ref) || prepared.inBrokenLayers.has(edge.ref))
          continue;
        problems.push({
          severity: 'error',
          code: 'FLEET_UNRESOLVED_REFERENCE',
          message: `${entry.resource.ref} ${edge.kind} ${edge.ref}, which no layer applying to the host declares`,
          file: edge.file,
          line: edge.line,
          object: entry.resource.ref,
          host: hostName,
        });
        continue;
      }
      const list = (successors[i] ??= []);
      if (!list.includes(local - 1)) list.push(local - 1);
    }
  }
  for (let i = 0; i < n; i++) scratch[(entries[i] as ResolvedEntry).rank] = 0;
  return { successors, fragments };
}

/** A host-independent result (no placeholder among `contribs`), folded once per fleet. */
function memoized(
  prepared: PreparedFleet,
  memo: Map<ResourceDoc | string, ResolvedEntry>,
  contribs: readonly Contribution[],
  key: ResourceDoc | string,
  host: HostDoc,
  labels: Labels,
  withProvenance: boolean,
): ResolvedEntry {
  const cached = memo.get(key);
  if (cached !== undefined) return cached;
  const rank = prepared.refRank.get((contribs[0] as Contribution).doc.ref) as number;
  const entry = resolveResource(
    contribs,
    host,
    labels,
    withProvenance,
    rank,
    prepared.fleet.files,
    prepared.fleet.contents,
  );
  // The memo keeps a copy, so the fold's allocation sites stay short-lived (see retained.ts).
  const kept = retainedEntry(entry);
  memo.set(key, kept);
  return kept;
}

/** The last document contributing to an entry, where its problems point. */
function lastDoc(prepared: PreparedFleet, entry: ResolvedEntry): ResourceDoc {
  const name = entry.resource.layers[entry.resource.layers.length - 1];
  const { layer } = prepared.layers.docsAt(prepared.positionOf.get(name as string) as number);
  return layer.resources.find((d) => d.ref === entry.resource.ref) as ResourceDoc;
}

function duplicateTarget(
  prepared: PreparedFleet,
  entries: readonly ResolvedEntry[],
  owner: number,
  i: number,
  host: string,
  problems: FleetProblem[],
): void {
  const a = (entries[owner] as ResolvedEntry).resource;
  const b = entries[i] as ResolvedEntry;
  const doc = lastDoc(prepared, b);
  problems.push({
    severity: 'error',
    code: 'FLEET_DUPLICATE_TARGET',
    message: `${a.ref} and ${b.resource.ref} both manage ${JSON.stringify(b.resource.target)}`,
    file: doc.file,
    line: doc.line,
    object: a.ref,
    host,
  });
}
