/**
 * A fleet made ready to resolve many hosts: the layer index, and per-fleet tables that turn the
 * per-host work into integer and array operations (reference ranks, documents that only one
 * layer declares, a memo of host-independent resource results).
 *
 * The tables need only the layers' headers and the references they declare; the documents
 * themselves are reached through a {@link LayerSource}, so a worker thread can hold only the
 * layers its hosts select (`io/shared-core.ts`) while the thread that loaded the fleet holds
 * them all.
 */
import { DATUM_HOST_LABEL, labelsFrom } from '../../selector/labels.js';
import { SelectorIndex } from '../../selector/selector-index.js';
import type { Labels } from '../../selector/index.js';
import type {
  AppliedLayer,
  Fleet,
  FleetProblem,
  HostDoc,
  LayerDoc,
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

/** What the layer index and a manifest's layer list read of a Layer. */
export type LayerHead = Pick<LayerDoc, 'name' | 'precedence' | 'selector'>;

/** A layer's documents, split as resolution reads them. */
export interface LayerDocs {
  readonly layer: LayerDoc;
  /** Documents no other layer declares and without placeholders. */
  readonly solo: readonly ResourceDoc[];
  /** Every other document. */
  readonly shared: readonly ResourceDoc[];
}

/** Where resolution gets a layer's documents, by position in {@link Fleet.layers}. */
export interface LayerSource {
  docsAt(position: number): LayerDocs;
}

/**
 * What preparing derives from the references every layer declares. It is small beside the
 * documents and the same in every thread, so the loading thread computes it once.
 */
export interface FleetTables {
  /** Every reference of the fleet in reference order: a reference's rank is its index. */
  readonly refs: readonly string[];
  /** References more than one document declares. */
  readonly sharedRefs: ReadonlySet<string>;
  /**
   * References declared only by Layers with errors (which apply to no host). Edges to them are
   * not reported as unresolved: the Layer's own error says what to fix.
   */
  readonly inBrokenLayers: ReadonlySet<string>;
  /** Per layer position: the id of its first document (ids number documents in layer order). */
  readonly firstDocId: readonly number[];
}

/** A fleet with its layer index built, ready to resolve many hosts. */
export interface PreparedFleet {
  /** The loaded fleet; in a worker thread without its layers' documents (see {@link layers}). */
  readonly fleet: Fleet;
  /** Layer positions in {@link Fleet.layers}, indexed by matcher. */
  readonly index: SelectorIndex<number>;
  readonly hosts: ReadonlyMap<string, HostDoc>;
  /** The layer at a position as a host's manifest lists it (with its reasons). */
  appliedAt(position: number): AppliedLayer;
  /** The layers' documents. */
  readonly layers: LayerSource;
  /** The first position of each layer name. */
  readonly positionOf: ReadonlyMap<string, number>;
  /** Rank of every reference in the fleet, in reference order. */
  readonly refRank: ReadonlyMap<string, number>;
  /** {@link FleetTables.inBrokenLayers}. */
  readonly inBrokenLayers: ReadonlySet<string>;
  /** Ids of the documents of every layer read so far (all of them in the loading thread). */
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
  const tables = fleetTables(fleet.layers);
  const docIds = new Map<ResourceDoc, number>();
  const split = fleet.layers.map((layer, i) => splitLayer(layer, i, tables, docIds));
  return preparedFrom(
    fleet,
    fleet.layers,
    tables,
    { docsAt: (i) => split[i] as LayerDocs },
    docIds,
  );
}

/** The tables of {@link FleetTables}, from every layer's documents. */
export function fleetTables(layers: readonly LayerDoc[]): FleetTables {
  const declaredBy = new Map<string, number>();
  const inValidLayers = new Set<string>();
  const firstDocId: number[] = [];
  let ids = 0;
  for (const layer of layers) {
    firstDocId.push(ids);
    ids += layer.resources.length;
    for (const doc of layer.resources) {
      declaredBy.set(doc.ref, (declaredBy.get(doc.ref) ?? 0) + 1);
      if (layer.invalid !== true) inValidLayers.add(doc.ref);
    }
  }
  const all = [...declaredBy.keys()];
  return {
    // References are ASCII (types are letters, names are Datum names), so the default sort is
    // code-point order, the order compareText gives.
    refs: all.sort(),
    sharedRefs: new Set(all.filter((ref) => (declaredBy.get(ref) as number) > 1)),
    inBrokenLayers: new Set(all.filter((ref) => !inValidLayers.has(ref))),
    firstDocId,
  };
}

/**
 * A layer's documents split into solo and shared, each given its id in `docIds`. Every thread
 * splits the same way, so a memo key (document ids) means the same documents in all of them.
 */
export function splitLayer(
  layer: LayerDoc,
  position: number,
  tables: FleetTables,
  docIds: Map<ResourceDoc, number>,
): LayerDocs {
  const first = tables.firstDocId[position] as number;
  layer.resources.forEach((doc, i) => docIds.set(doc, first + i));
  const isSolo = (d: ResourceDoc): boolean => !tables.sharedRefs.has(d.ref) && !d.templated;
  return {
    layer,
    solo: layer.resources.filter(isSolo),
    shared: layer.resources.filter((d) => !isSolo(d)),
  };
}

/**
 * A prepared fleet from its layers' headers, tables and documents: the loading thread passes
 * the layers themselves, a worker thread their headers and a source that reads documents on
 * demand.
 */
export function preparedFrom(
  fleet: Fleet,
  heads: readonly LayerHead[],
  tables: FleetTables,
  layers: LayerSource,
  docIds: ReadonlyMap<ResourceDoc, number>,
): PreparedFleet {
  const index = new SelectorIndex<number>();
  heads.forEach((layer, i) => index.add(i, layer.selector));
  // Built when a host first selects the layer: a worker never lists most of a fleet's layers.
  const applied: (AppliedLayer | undefined)[] = new Array<AppliedLayer | undefined>(heads.length);
  const appliedAt = (position: number): AppliedLayer => {
    const head = heads[position] as LayerHead;
    return (applied[position] ??= Object.freeze({
      name: head.name,
      precedence: head.precedence,
      reasons: matcherReasons(head.selector),
    }));
  };
  const positionOf = new Map<string, number>();
  heads.forEach((layer, i) => {
    if (!positionOf.has(layer.name)) positionOf.set(layer.name, i);
  });
  return {
    fleet,
    index,
    hosts: new Map(fleet.hosts.map((h) => [h.name, h])),
    appliedAt,
    layers,
    positionOf,
    refRank: new Map(tables.refs.map((ref, i) => [ref, i])),
    inBrokenLayers: tables.inBrokenLayers,
    docIds,
    memo: new Map(),
    provenanceMemo: new Map(),
    scratch: new Int32Array(tables.refs.length),
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
