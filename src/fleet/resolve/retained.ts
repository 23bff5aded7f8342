/**
 * Copies of memo entries, made for keeping.
 *
 * Why copy at all: V8 learns, per allocation site, whether the objects made there tend to live
 * long, and once a site is marked so it allocates straight into the old generation. A memo entry
 * lives as long as the fleet, while the entries `resolveResource` builds for templated
 * references, at the very same sites, die with their host. Kept as they are, the memo entries
 * teach V8 to pretenure those sites, and then every host's garbage lands in old space and is
 * found only by full collections (measured on 20,000 hosts in one thread: scavenges of ~5 ms
 * promoting ~1.4 MB each instead of ~1 ms and ~5 KB, resolution about 1.5 times slower and
 * 60 MB more at its peak). A copy made here keeps the long-lived objects at sites of their own.
 * It builds each object with the original's properties in the original's order, so readers see
 * objects of the same shape whether an entry came from the memo or not.
 */
import type { DesiredMap, DesiredValue, Provenance, ResolvedResource } from '../model.js';
import { isMap } from './merge-rules.js';
import type { ResolvedEntry } from './prepare.js';

/** A deep copy of `entry` for the memo, equal to it field by field. */
export function retainedEntry(entry: ResolvedEntry): ResolvedEntry {
  return {
    resource: retainedResource(entry.resource),
    rank: entry.rank,
    problems: entry.problems.map((p) => ({ ...p })),
    fragment: entry.fragment,
    targetKey: entry.targetKey,
    edges: entry.edges.map((e) => ({ kind: e.kind, ref: e.ref, file: e.file, line: e.line })),
  };
}

function retainedResource(r: ResolvedResource): ResolvedResource {
  return {
    ref: r.ref,
    type: r.type,
    name: r.name,
    target: r.target,
    layers: r.layers.slice(),
    desired: retainedMap(r.desired),
    provenance: retainedProvenance(r.provenance),
    requires: r.requires.slice(),
    restartOn: r.restartOn.slice(),
    reloadOn: r.reloadOn.slice(),
    edgeLayers: retainedRecord(r.edgeLayers),
    substitutions: r.substitutions.map((s) => ({
      field: s.field,
      placeholder: s.placeholder,
      value: s.value,
      layer: s.layer,
    })),
  };
}

function retainedValue(value: DesiredValue): DesiredValue {
  if (Array.isArray(value)) return value.slice();
  return isMap(value) ? retainedMap(value) : value;
}

/** Desired maps are prototype-free, as `plainValue` builds them. */
function retainedMap(map: DesiredMap): DesiredMap {
  const out: Record<string, DesiredValue> = Object.create(null);
  for (const key of Object.keys(map)) out[key] = retainedValue(map[key] as DesiredValue);
  return out;
}

function retainedRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const key of Object.keys(record)) out[key] = record[key] as string;
  return out;
}

function retainedProvenance(
  record: Readonly<Record<string, Provenance>>,
): Record<string, Provenance> {
  const out: Record<string, Provenance> = Object.create(null);
  for (const key of Object.keys(record)) {
    const p = record[key] as Provenance;
    out[key] = {
      layer: p.layer,
      value: retainedValue(p.value),
      displaced: p.displaced.map((d) => ({ layer: d.layer, value: retainedValue(d.value) })),
    };
  }
  return out;
}
