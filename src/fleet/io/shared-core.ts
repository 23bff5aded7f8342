/**
 * A loaded fleet as worker threads read it. What every host's resolution needs whatever layers
 * it selects (layer headers, reference tables, the files that exist) is a small header each
 * worker is given; the layers' documents, the bulk of a fleet, are serialized once into shared
 * memory, one slice per layer. A worker deserializes a layer the first time one of its hosts
 * selects it and keeps it, so it holds only the layers its hosts select: with hosts scheduled by
 * affinity (`resolve/affinity.ts`), all workers together hold about one copy of the layers, not
 * one copy each.
 */
import { deserialize, serialize } from 'node:v8';
import type { Fleet, LayerDoc, ResourceDoc } from '../model.js';
import { fleetTables, preparedFrom, splitLayer } from '../resolve/prepare.js';
import type { FleetTables, LayerDocs, LayerHead, PreparedFleet } from '../resolve/prepare.js';

/** Structured-clone data: Maps, Sets, arrays and plain objects only. */
export interface CoreHeader {
  readonly root: string;
  readonly invalidRefs: ReadonlySet<string>;
  readonly files?: ReadonlySet<string>;
  readonly contents?: ReadonlyMap<string, string>;
  readonly heads: readonly LayerHead[];
  readonly tables: FleetTables;
  /** Layer `i`'s slice of the buffer is `offsets[i]` up to `offsets[i + 1]`. */
  readonly offsets: readonly number[];
}

export interface SharedCore {
  readonly header: CoreHeader;
  /** Every layer, serialized, one after the other. */
  readonly buffer: SharedArrayBuffer;
}

export function sharedCore(fleet: Fleet): SharedCore {
  const slices = fleet.layers.map((layer) => serialize(layer));
  const offsets = [0];
  for (const slice of slices) offsets.push((offsets[offsets.length - 1] as number) + slice.length);
  const buffer = new SharedArrayBuffer(offsets[offsets.length - 1] as number);
  const bytes = new Uint8Array(buffer);
  slices.forEach((slice, i) => bytes.set(slice, offsets[i]));
  return {
    header: {
      root: fleet.root,
      invalidRefs: fleet.invalidRefs,
      ...(fleet.files === undefined ? {} : { files: fleet.files }),
      ...(fleet.contents === undefined ? {} : { contents: fleet.contents }),
      heads: fleet.layers.map(headOf),
      tables: fleetTables(fleet.layers),
      offsets,
    },
    buffer,
  };
}

/** Only what every worker needs of every layer; the rest comes with the layer's slice. */
function headOf(layer: LayerDoc): LayerHead {
  return { name: layer.name, precedence: layer.precedence, selector: layer.selector };
}

/** Serialized bytes of each layer: what holding it costs a worker, near enough. */
export function layerBytes(core: SharedCore): number[] {
  const { offsets } = core.header;
  return offsets.slice(1).map((end, i) => end - (offsets[i] as number));
}

/** A worker's prepared fleet, and how much of the shared core it has read so far. */
export interface WorkerFleet {
  readonly prepared: PreparedFleet;
  /** Serialized bytes of the layers this worker has deserialized. */
  heldBytes(): number;
}

/**
 * The prepared fleet a worker resolves with: no Host documents (they come with each batch),
 * none of the loading problems (the loading thread reports those), and layers read from the
 * shared buffer on first use.
 */
export function workerFleet(core: SharedCore): WorkerFleet {
  const { header, buffer } = core;
  const docIds = new Map<ResourceDoc, number>();
  const read: (LayerDocs | undefined)[] = new Array<LayerDocs | undefined>(header.heads.length);
  let held = 0;
  const docsAt = (position: number): LayerDocs => {
    const cached = read[position];
    if (cached !== undefined) return cached;
    const start = header.offsets[position] as number;
    const length = (header.offsets[position + 1] as number) - start;
    const layer = deserialize(Buffer.from(buffer, start, length)) as LayerDoc;
    const docs = splitLayer(layer, position, header.tables, docIds);
    read[position] = docs;
    held += length;
    return docs;
  };
  const fleet: Fleet = {
    root: header.root,
    fleet: undefined,
    hosts: [],
    // Resolution reads documents through the layer source, never through this list.
    layers: [],
    problems: [],
    invalidRefs: header.invalidRefs,
    invalidHosts: new Map(),
    ...(header.files === undefined ? {} : { files: header.files }),
    ...(header.contents === undefined ? {} : { contents: header.contents }),
  };
  return {
    prepared: preparedFrom(fleet, header.heads, header.tables, { docsAt }, docIds),
    heldBytes: () => held,
  };
}
