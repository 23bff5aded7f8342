/**
 * The part of a loaded fleet that resolving a host reads, apart from the host itself: the layers
 * with their resource documents, the references and files that exist. It does not grow with the
 * number of hosts, so worker threads are given this, once, and each batch's Host documents,
 * instead of the repository to load again.
 */
import type { Fleet, LayerDoc } from '../model.js';

/** Structured-clone data: Maps, Sets, arrays and plain objects only. */
export interface ResolutionCore {
  readonly root: string;
  readonly layers: readonly LayerDoc[];
  readonly invalidRefs: ReadonlySet<string>;
  readonly files?: ReadonlySet<string>;
  readonly contents?: ReadonlyMap<string, string>;
}

export function resolutionCore(fleet: Fleet): ResolutionCore {
  return {
    root: fleet.root,
    layers: fleet.layers,
    invalidRefs: fleet.invalidRefs,
    ...(fleet.files === undefined ? {} : { files: fleet.files }),
    ...(fleet.contents === undefined ? {} : { contents: fleet.contents }),
  };
}

/**
 * A fleet holding only the core: no Host documents (they come with each batch) and none of the
 * loading problems (the thread that loaded the fleet reports those).
 */
export function fleetOfCore(core: ResolutionCore): Fleet {
  return {
    root: core.root,
    fleet: undefined,
    hosts: [],
    layers: core.layers,
    problems: [],
    invalidRefs: core.invalidRefs,
    invalidHosts: new Map(),
    ...(core.files === undefined ? {} : { files: core.files }),
    ...(core.contents === undefined ? {} : { contents: core.contents }),
  };
}
