/**
 * Resolution of one host (spec: Resolution of host H): labels plus `datum/host`, layer selection
 * through the selector index, substitution, the precedence fold with provenance, merged-resource
 * checks, the dependency graph and the digest. Pure: the same fleet and host give the same
 * manifest, byte for byte.
 */
import { LabelwiseError } from '../../errors.js';
import { DATUM_HOST_LABEL, SelectorIndex, labelsFrom } from '../../selector/index.js';
import type { Labels } from '../../selector/index.js';
import { RESOURCE_SPECS } from '../documents/resource-fields.js';
import { checkTextKind } from '../documents/parse-document.js';
import { EDGE_KINDS } from '../model.js';
import type {
  AppliedLayer,
  DesiredValue,
  EdgeKind,
  Fleet,
  FleetProblem,
  HostDoc,
  HostManifest,
  LayerDoc,
  Leaf,
  Provenance,
  ResolvedResource,
  ResourceDoc,
  Substitution,
  Template,
} from '../model.js';
import { digestOfCanonical, resourceFragment } from './digest.js';
import { analyseGraph } from './graph.js';
import { mergeValue, plainValue, showValue } from './merge-rules.js';
import type { Conflict, MergeNode, MergeSource } from './merge-rules.js';
import { substitute } from './placeholders.js';
import { matcherReasons } from './reasons.js';
import { checkResource } from './resource-checks.js';

/** One resource's resolution that does not depend on the host (no placeholders involved). */
interface ResolvedEntry {
  readonly resource: ResolvedResource;
  /** Problems of the merge and of the merged resource, without the host. */
  readonly problems: readonly FleetProblem[];
  /** The resource's part of the digest's canonical text. */
  readonly fragment: string;
}

/** A fleet with its layer index built, ready to resolve many hosts. */
export interface PreparedFleet {
  readonly fleet: Fleet;
  /** Layer positions in {@link Fleet.layers}, indexed by matcher. */
  readonly index: SelectorIndex<number>;
  readonly hosts: ReadonlyMap<string, HostDoc>;
  /** Matcher reasons per layer position. */
  readonly reasons: readonly (readonly string[])[];
  /**
   * Memo of host-independent resource resolutions, keyed by the documents that contribute to
   * them. Resolution is pure, so hosts whose layers contribute the same documents to a resource
   * share its result; this is what keeps `validate` of a large fleet fast.
   */
  readonly memo: Map<ResourceDoc | string, ResolvedEntry>;
  readonly docIds: ReadonlyMap<ResourceDoc, number>;
}

/** Options for {@link resolveHost}. */
export interface ResolveOptions {
  /** Build per-leaf provenance and substitution records (explain needs them). Default: true. */
  readonly provenance?: boolean;
}

/** Builds the layer index once; resolving then costs one index query per host. */
export function prepareFleet(fleet: Fleet): PreparedFleet {
  const index = new SelectorIndex<number>();
  fleet.layers.forEach((layer, i) => index.add(i, layer.selector));
  const docIds = new Map<ResourceDoc, number>();
  for (const layer of fleet.layers) for (const doc of layer.resources) docIds.set(doc, docIds.size);
  return {
    fleet,
    index,
    hosts: new Map(fleet.hosts.map((h) => [h.name, h])),
    reasons: fleet.layers.map((layer) => matcherReasons(layer.selector)),
    memo: new Map(),
    docIds,
  };
}

/** A host's labels as resolution sees them: declared labels plus `datum/host`. */
export function hostLabels(host: HostDoc): Labels {
  return labelsFrom([...Object.entries(host.labels), [DATUM_HOST_LABEL, host.name]]);
}

/** The layers that apply to a host, in discovery order. */
export function selectLayers(prepared: PreparedFleet, labels: Labels): number[] {
  return prepared.index.match(labels);
}

interface Contribution {
  readonly layer: LayerDoc;
  readonly doc: ResourceDoc;
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
  const host = prepared.hosts.get(hostName);
  if (host === undefined) {
    throw new LabelwiseError(
      'FLEET_UNKNOWN_HOST',
      `no Host document named ${JSON.stringify(hostName)} in this fleet`,
      {},
      'run `labelwise fleet validate` to list the hosts',
    );
  }
  const withProvenance = options.provenance !== false;
  const labels = hostLabels(host);
  const layers = prepared.fleet.layers;
  const applied: AppliedLayer[] = [];
  const contributions = new Map<string, Contribution[]>();
  for (const position of selectLayers(prepared, labels)) {
    const layer = layers[position] as LayerDoc;
    applied.push({
      name: layer.name,
      precedence: layer.precedence,
      reasons: prepared.reasons[position] as string[],
    });
    for (const doc of layer.resources) {
      const list = contributions.get(doc.ref);
      if (list === undefined) contributions.set(doc.ref, [{ layer, doc }]);
      else list.push({ layer, doc });
    }
  }

  // References are ASCII (types are letters, names are Datum names), so the default sort is
  // code-point order, the order of compareStrings, without its cost.
  const refs = [...contributions.keys()].sort();
  const problems: FleetProblem[] = [];
  const built = new Map<string, ResolvedResource>();
  const fragments: string[] = [];
  const byTarget = new Map<string, string[]>();
  const lastDoc = new Map<string, ResourceDoc>();
  for (const ref of refs) {
    const contribs = contributions.get(ref) as Contribution[];
    let entry: ResolvedEntry;
    if (!withProvenance && contribs.every((c) => !c.doc.templated)) {
      const key: ResourceDoc | string =
        contribs.length === 1
          ? (contribs[0] as Contribution).doc
          : contribs.map((c) => prepared.docIds.get(c.doc)).join(',');
      const cached = prepared.memo.get(key);
      if (cached === undefined) {
        entry = resolveResource(contribs, host, labels, false);
        prepared.memo.set(key, entry);
      } else entry = cached;
    } else entry = resolveResource(contribs, host, labels, withProvenance);
    for (const p of entry.problems) problems.push({ ...p, host: host.name });
    const resource = entry.resource;
    built.set(ref, resource);
    fragments.push(entry.fragment);
    const last = (contribs[contribs.length - 1] as Contribution).doc;
    lastDoc.set(ref, last);
    if (resource.target !== undefined) {
      const key = `${resource.type}\u0000${resource.target}`;
      const list = byTarget.get(key);
      if (list === undefined) byTarget.set(key, [ref]);
      else list.push(ref);
    }
  }
  const at = (ref: string): { file: string; line: number } => {
    const doc = lastDoc.get(ref) as ResourceDoc;
    return { file: doc.file, line: doc.line };
  };
  for (const [key, list] of byTarget) {
    if (list.length < 2) continue;
    const target = key.slice(key.indexOf('\u0000') + 1);
    const where = at(list[list.length - 1] as string);
    problems.push({
      severity: 'error',
      code: 'FLEET_DUPLICATE_TARGET',
      message: `${list.join(' and ')} both manage ${JSON.stringify(target)}`,
      ...where,
      object: list[0] as string,
      host: host.name,
    });
  }

  // Graph: unresolved references first (they name the host), then self-loops and cycles.
  for (const ref of refs) {
    const seen = new Set<string>();
    for (const c of contributions.get(ref) as Contribution[]) {
      for (const kind of EDGE_KINDS) {
        for (const edge of c.doc.edges[kind]) {
          if (seen.has(`${kind}:${edge.ref}`)) continue;
          seen.add(`${kind}:${edge.ref}`);
          const where = { file: c.doc.file, line: edge.line };
          if (edge.ref === ref)
            problems.push({
              severity: 'error',
              code: 'FLEET_SELF_DEPENDENCY',
              message: `${ref} ${kind} itself`,
              ...where,
              object: ref,
              host: host.name,
            });
          else if (!contributions.has(edge.ref))
            problems.push({
              severity: 'error',
              code: 'FLEET_UNRESOLVED_REFERENCE',
              message: `${ref} ${kind} ${edge.ref}, which no layer applying to the host declares`,
              ...where,
              object: ref,
              host: host.name,
            });
        }
      }
    }
  }
  const graph = analyseGraph(
    refs.map((ref) => {
      const r = built.get(ref) as ResolvedResource;
      return {
        ref,
        targets:
          r.requires.length + r.restartOn.length + r.reloadOn.length === 0
            ? []
            : [...r.requires, ...r.restartOn, ...r.reloadOn],
      };
    }),
  );
  for (const cycle of graph.cycles) {
    const first = cycle[0] as string;
    problems.push({
      severity: 'error',
      code: 'FLEET_DEPENDENCY_CYCLE',
      message: `dependency cycle: ${cycle.join(' -> ')}`,
      ...at(first),
      object: first,
      host: host.name,
    });
  }
  return {
    host: host.name,
    labels,
    layers: applied,
    resources: graph.order.map((ref) => built.get(ref) as ResolvedResource),
    digest: digestOfCanonical(`[${fragments.join(',')}]`),
    problems,
  };
}

interface Accumulator {
  readonly fields: Map<string, MergeNode>;
  readonly edges: Record<EdgeKind, Map<string, string>>;
  readonly substitutions: Substitution[];
}

/** `posix.join` for clean relative paths, without importing node:path into the core. */
function joinPath(dir: string, path: string): string {
  const parts = (dir === '' ? path : `${dir}/${path}`)
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  return parts.join('/');
}

/** Folds one reference's contributions (in layer order) into a resolved resource. */
function resolveResource(
  contribs: readonly Contribution[],
  host: HostDoc,
  labels: Labels,
  withProvenance: boolean,
): ResolvedEntry {
  const first = (contribs[0] as Contribution).doc;
  const ref = first.ref;
  const problems: FleetProblem[] = [];
  const acc: Accumulator = {
    fields: new Map(),
    edges: { requires: new Map(), restartOn: new Map(), reloadOn: new Map() },
    substitutions: [],
  };
  for (const c of contribs)
    foldDocument(acc, c.layer, c.doc, host, labels, withProvenance, problems);
  const desired: Record<string, DesiredValue> = Object.create(null);
  const provenance: Record<string, Provenance> = Object.create(null);
  for (const field of [...acc.fields.keys()].sort()) {
    const node = acc.fields.get(field) as MergeNode;
    desired[field] = plainValue(node);
    if (withProvenance) collectProvenance(node, field, provenance);
  }
  const last = (contribs[contribs.length - 1] as Contribution).doc;
  const at = { file: last.file, line: last.line };
  const identity = RESOURCE_SPECS[first.type].identity;
  const targetValue = identity === 'name' ? first.name : desired[identity];
  const target = typeof targetValue === 'string' ? targetValue : undefined;
  if (target === undefined)
    problems.push({
      severity: 'error',
      code: 'FLEET_MISSING_IDENTITY',
      message: `${ref} is missing desired.${identity}, which identifies what it manages`,
      ...at,
      object: ref,
    });
  for (const message of checkResource(first.type, ref, desired))
    problems.push({
      severity: 'error',
      code: 'FLEET_INVALID_RESOURCE',
      message,
      ...at,
      object: ref,
    });
  const edgeLayers: Record<string, string> = Object.create(null);
  const lists: Record<EdgeKind, string[]> = { requires: [], restartOn: [], reloadOn: [] };
  for (const kind of EDGE_KINDS) {
    const list = [...acc.edges[kind].keys()].sort();
    lists[kind] = list;
    if (withProvenance)
      for (const t of list) edgeLayers[`${kind}:${t}`] = acc.edges[kind].get(t) as string;
  }
  const resource: ResolvedResource = {
    ref,
    type: first.type,
    name: first.name,
    target,
    layers: contribs.map((c) => c.layer.name),
    desired,
    provenance,
    requires: lists.requires,
    restartOn: lists.restartOn,
    reloadOn: lists.reloadOn,
    edgeLayers,
    substitutions: acc.substitutions,
  };
  return { resource, problems, fragment: resourceFragment(resource) };
}

function foldDocument(
  acc: Accumulator,
  layer: LayerDoc,
  doc: ResourceDoc,
  host: HostDoc,
  labels: Labels,
  withProvenance: boolean,
  problems: FleetProblem[],
): void {
  const spec = RESOURCE_SPECS[doc.type];
  let conflicts: Conflict[] | undefined;
  const onConflict = (c: Conflict): void => {
    (conflicts ??= []).push(c);
  };
  for (const [field, written] of doc.desired) {
    let value: Leaf | Template | readonly (string | Template)[] = written.value;
    const at = { file: doc.file, line: written.line };
    if (doc.templated) {
      const filled = fill(value, host.name, labels);
      if (!filled.ok) {
        problems.push({
          severity: 'error',
          code: 'FLEET_UNDECLARED_LABEL',
          message: `${doc.ref}.${field} uses {{ labels.${filled.missingLabel} }}, but the host does not declare label ${JSON.stringify(filled.missingLabel)}`,
          ...at,
          object: doc.ref,
        });
        continue;
      }
      value = filled.value;
      if (filled.used.length > 0) {
        const kind = spec.fields[field];
        const bad =
          kind === undefined || typeof value !== 'string' ? undefined : checkTextKind(kind, value);
        if (bad !== undefined)
          problems.push({
            severity: 'error',
            code: 'FLEET_INVALID_FIELD',
            message: `${doc.ref}.${field} ${bad} (after substitution)`,
            ...at,
            object: doc.ref,
          });
        if (withProvenance)
          for (const u of filled.used)
            acc.substitutions.push({
              field,
              placeholder: u.placeholder,
              value: u.value,
              layer: layer.name,
            });
      }
    }
    if ((field === 'source' || field === 'template') && typeof value === 'string')
      value = joinPath(layer.dir, value);
    const source: MergeSource = {
      layer: layer.name,
      precedence: layer.precedence,
      file: doc.file,
      line: written.line,
    };
    acc.fields.set(
      field,
      mergeValue(acc.fields.get(field), value as Leaf, source, field, onConflict),
    );
  }
  for (const c of conflicts ?? [])
    problems.push({
      severity: 'error',
      code: 'FLEET_CONFLICT',
      message: `conflicting values for ${doc.ref}.${c.path}: ${showValue(c.existing.value)} from ${c.existing.layer} and ${showValue(c.incoming.value)} from ${c.incoming.layer} (both precedence ${c.precedence})`,
      file: c.incoming.file,
      line: c.incoming.line,
      object: doc.ref,
    });
  for (const kind of EDGE_KINDS) {
    const edges = acc.edges[kind];
    for (const edge of doc.edges[kind]) if (!edges.has(edge.ref)) edges.set(edge.ref, layer.name);
  }
}

type Filled =
  | { ok: true; value: Leaf; used: { placeholder: string; value: string }[] }
  | { ok: false; missingLabel: string };

function isTemplate(value: unknown): value is Template {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    (value as Template).kind === 'template'
  );
}

function fill(
  value: Leaf | Template | readonly (string | Template)[],
  host: string,
  labels: Labels,
): Filled {
  if (isTemplate(value)) {
    const result = substitute(value, host, labels);
    return result.ok ? { ok: true, value: result.value, used: [...result.used] } : result;
  }
  if (Array.isArray(value)) {
    const out: string[] = [];
    const used: { placeholder: string; value: string }[] = [];
    for (const item of value as readonly (string | Template)[]) {
      if (typeof item === 'string') out.push(item);
      else {
        const result = substitute(item, host, labels);
        if (!result.ok) return result;
        out.push(result.value);
        used.push(...result.used);
      }
    }
    return { ok: true, value: out, used };
  }
  return { ok: true, value: value as Leaf, used: [] };
}

function collectProvenance(node: MergeNode, path: string, out: Record<string, Provenance>): void {
  if (node.kind === 'map') {
    for (const [key, child] of node.children) collectProvenance(child, `${path}.${key}`, out);
    return;
  }
  out[path] = { layer: node.source.layer, value: node.value, displaced: node.displaced ?? [] };
}
