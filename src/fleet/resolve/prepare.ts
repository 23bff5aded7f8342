/**
 * A fleet made ready to resolve many hosts: the layer index, and per-fleet tables that turn the
 * per-host work into integer and array operations (reference ranks, documents that only one
 * layer declares, a memo of host-independent resource results).
 */
import { DATUM_HOST_LABEL, SelectorIndex, labelsFrom } from '../../selector/index.js';
import type { Labels } from '../../selector/index.js';
import type {
  AppliedLayer,
  Fleet,
  FleetProblem,
  HostDoc,
  ResolvedResource,
  ResourceDoc,
} from '../model.js';
import { matcherReasons } from './reasons.js';

/** A resolved resource with what resolution derives from it, host-independent when memoized. */
export interface ResolvedEntry {
  readonly resource: ResolvedResource;
  /** Rank of the reference among every reference of the fleet (reference order). */
  readonly rank: number;
  /** Problems of the merge and of the merged resource, without the host. */
  readonly problems: readonly FleetProblem[];
  /** The resource's part of the digest's canonical text. */
  readonly fragment: string;
  /** `Type\0target`, for duplicate-target checks; undefined when the identity is missing. */
  readonly targetKey: string | undefined;
  /** Every edge (deduplicated by kind and target), with where it was written. */
  readonly edges: readonly {
    readonly kind: string;
    readonly ref: string;
    readonly file: string;
    readonly line: number;
  }[];
}

/** A fleet with its layer index built, ready to resolve many hosts. */
export interface PreparedFleet {
  readonly fleet: Fleet;
  /** Layer positions in {@link Fleet.layers}, indexed by matcher. */
  readonly index: SelectorIndex<number>;
  readonly hosts: ReadonlyMap<string, HostDoc>;
  /** Per layer position: the layer as a host's manifest lists it (with its reasons). */
  readonly applied: readonly AppliedLayer[];
  /** Per layer position: documents no other layer declares and without placeholders. */
  readonly solo: readonly (readonly ResourceDoc[])[];
  /** Per layer position: every other document. */
  readonly shared: readonly (readonly ResourceDoc[])[];
  /** Rank of every reference in the fleet, in reference order. */
  readonly refRank: ReadonlyMap<string, number>;
  /**
   * References declared only by Layers with errors (which apply to no host). Edges to them are
   * not reported as unresolved: the Layer's own error says what to fix.
   */
  readonly inBrokenLayers: ReadonlySet<string>;
  readonly docIds: ReadonlyMap<ResourceDoc, number>;
  /**
   * Memo of host-independent resource results, keyed by the document (one contributor) or the
   * ids of the documents contributing. Resolution is pure, so hosts whose layers contribute the
   * same documents to a resource share its result.
   */
  readonly memo: Map<ResourceDoc | string, ResolvedEntry>;
  /**
   * The same memo for results built with provenance (explain, `fleet resolve`): the records of
   * a fold of host-independent documents are host-independent too.
   */
  readonly provenanceMemo: Map<ResourceDoc | string, ResolvedEntry>;
  /** Scratch space for {@link resolveHost}: per reference rank, the host's local index + 1. */
  readonly scratch: Int32Array;
}

/** Builds the layer index and tables once; resolving then costs one index query per host. */
export function prepareFleet(fleet: Fleet): PreparedFleet {
  const index = new SelectorIndex<number>();
  fleet.layers.forEach((layer, i) => index.add(i, layer.selector));
  const docIds = new Map<ResourceDoc, number>();
  const declaredBy = new Map<string, number>();
  const inValidLayers = new Set<string>();
  for (const layer of fleet.layers)
    for (const doc of layer.resources) {
      docIds.set(doc, docIds.size);
      declaredBy.set(doc.ref, (declaredBy.get(doc.ref) ?? 0) + 1);
      if (layer.invalid !== true) inValidLayers.add(doc.ref);
    }
  const inBrokenLayers = new Set([...declaredBy.keys()].filter((ref) => !inValidLayers.has(ref)));
  // References are ASCII (types are letters, names are Datum names), so the default sort is
  // code-point order, the order compareText gives.
  const refRank = new Map([...declaredBy.keys()].sort().map((ref, i) => [ref, i]));
  const solo = fleet.layers.map((layer) =>
    layer.resources.filter((d) => declaredBy.get(d.ref) === 1 && !d.templated),
  );
  const shared = fleet.layers.map((layer) =>
    layer.resources.filter((d) => declaredBy.get(d.ref) !== 1 || d.templated),
  );
  return {
    fleet,
    index,
    hosts: new Map(fleet.hosts.map((h) => [h.name, h])),
    applied: fleet.layers.map((layer) =>
      Object.freeze({
        name: layer.name,
        precedence: layer.precedence,
        reasons: matcherReasons(layer.selector),
      }),
    ),
    solo,
    shared,
    refRank,
    inBrokenLayers,
    docIds,
    memo: new Map(),
    provenanceMemo: new Map(),
    scratch: new Int32Array(refRank.size),
  };
}

/** A host's labels as resolution sees them: declared labels plus `datum/host`. */
export function hostLabels(host: HostDoc): Labels {
  return labelsFrom([...Object.entries(host.labels), [DATUM_HOST_LABEL, host.name]]);
}

/** The layers that apply to a host, as positions in {@link Fleet.layers}, in discovery order. */
export function selectLayers(prepared: PreparedFleet, labels: Labels): number[] {
  return prepared.index.match(labels);
}
