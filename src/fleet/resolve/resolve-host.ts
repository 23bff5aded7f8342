/**
 * Resolution of one host (spec: Resolution of host H): labels plus `datum/host`, layer selection
 * through the selector index, substitution, the precedence fold with provenance, merged-resource
 * checks, the dependency graph and the digest. Pure: the same fleet and host give the same
 * manifest, byte for byte.
 */
import { LabelwiseError } from '../../errors.js';
import {
  DATUM_HOST_LABEL,
  SelectorIndex,
  compareStrings,
  labelsFrom,
} from '../../selector/index.js';
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
  ResourceType,
  Substitution,
  Template,
} from '../model.js';
import { manifestDigest } from './digest.js';
import { analyseGraph } from './graph.js';
import { mergeValue, plainValue, showValue } from './merge-rules.js';
import type { Conflict, MergeNode, MergeSource } from './merge-rules.js';
import { substitute } from './placeholders.js';
import { matcherReasons } from './reasons.js';
import { checkResource } from './resource-checks.js';

/** A fleet with its layer index built, ready to resolve many hosts. */
export interface PreparedFleet {
  readonly fleet: Fleet;
  /** Layer positions in {@link Fleet.layers}, indexed by matcher. */
  readonly index: SelectorIndex<number>;
  readonly hosts: ReadonlyMap<string, HostDoc>;
  /** Matcher reasons per layer position. */
  readonly reasons: readonly (readonly string[])[];
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
  return {
    fleet,
    index,
    hosts: new Map(fleet.hosts.map((h) => [h.name, h])),
    reasons: fleet.layers.map((layer) => matcherReasons(layer.selector)),
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

interface Accumulator {
  readonly ref: string;
  readonly type: ResourceType;
  readonly name: string;
  readonly fields: Map<string, MergeNode>;
  readonly layers: string[];
  readonly edges: Record<EdgeKind, Map<string, { layer: string; file: string; line: number }>>;
  readonly substitutions: Substitution[];
  lastDoc: ResourceDoc;
}

/** `posix.join` for clean relative paths, without importing node:path into the core. */
function joinPath(dir: string, path: string): string {
  const parts = (dir === '' ? path : `${dir}/${path}`)
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  return parts.join('/');
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
  const selected = selectLayers(prepared, labels);
  const layers = prepared.fleet.layers;
  const problems: FleetProblem[] = [];
  const problem = (
    code: string,
    message: string,
    at: { file: string; line: number },
    object?: string,
  ): void => {
    problems.push({
      severity: 'error',
      code,
      message,
      file: at.file,
      line: at.line,
      host: host.name,
      ...(object === undefined ? {} : { object }),
    });
  };

  const accs = new Map<string, Accumulator>();
  const applied: AppliedLayer[] = [];
  for (const position of selected) {
    const layer = layers[position] as LayerDoc;
    applied.push({
      name: layer.name,
      precedence: layer.precedence,
      reasons: prepared.reasons[position] as string[],
    });
    for (const doc of layer.resources)
      foldDocument(accs, layer, doc, host, labels, withProvenance, problem);
  }

  const refs = [...accs.keys()].sort(compareStrings);
  const built = new Map<string, ResolvedResource>();
  const byTarget = new Map<string, string[]>();
  for (const ref of refs) {
    const acc = accs.get(ref) as Accumulator;
    const desired: Record<string, DesiredValue> = Object.create(null);
    const provenance: Record<string, Provenance> = Object.create(null);
    for (const field of [...acc.fields.keys()].sort(compareStrings)) {
      const node = acc.fields.get(field) as MergeNode;
      desired[field] = plainValue(node);
      if (withProvenance) collectProvenance(node, field, provenance);
    }
    const identity = RESOURCE_SPECS[acc.type].identity;
    const targetValue = identity === 'name' ? acc.name : desired[identity];
    const target = typeof targetValue === 'string' ? targetValue : undefined;
    const at = { file: acc.lastDoc.file, line: acc.lastDoc.line };
    if (target === undefined)
      problem(
        'FLEET_MISSING_IDENTITY',
        `${ref} is missing desired.${identity}, which identifies what it manages`,
        at,
        ref,
      );
    else {
      const key = `${acc.type}\u0000${target}`;
      const list = byTarget.get(key);
      if (list === undefined) byTarget.set(key, [ref]);
      else list.push(ref);
    }
    for (const message of checkResource(acc.type, ref, desired))
      problem('FLEET_INVALID_RESOURCE', message, at, ref);
    const edgeLayers: Record<string, string> = Object.create(null);
    const edgeList = (kind: EdgeKind): string[] => {
      const list = [...acc.edges[kind].keys()].sort(compareStrings);
      if (withProvenance)
        for (const target of list)
          edgeLayers[`${kind}:${target}`] = (
            acc.edges[kind].get(target) as { layer: string }
          ).layer;
      return list;
    };
    built.set(ref, {
      ref,
      type: acc.type,
      name: acc.name,
      target,
      layers: acc.layers,
      desired,
      provenance,
      requires: edgeList('requires'),
      restartOn: edgeList('restartOn'),
      reloadOn: edgeList('reloadOn'),
      edgeLayers,
      substitutions: acc.substitutions,
    });
  }
  for (const [key, list] of byTarget) {
    if (list.length < 2) continue;
    const target = key.slice(key.indexOf('\u0000') + 1);
    const last = accs.get(list[list.length - 1] as string) as Accumulator;
    problem(
      'FLEET_DUPLICATE_TARGET',
      `${list.join(' and ')} both manage ${JSON.stringify(target)}`,
      { file: last.lastDoc.file, line: last.lastDoc.line },
      list[0],
    );
  }

  // Graph: unresolved references first (they name the host), then self-loops and cycles.
  for (const ref of refs) {
    const acc = accs.get(ref) as Accumulator;
    for (const kind of EDGE_KINDS) {
      for (const [target, from] of acc.edges[kind]) {
        if (target === ref) problem('FLEET_SELF_DEPENDENCY', `${ref} ${kind} itself`, from, ref);
        else if (!accs.has(target))
          problem(
            'FLEET_UNRESOLVED_REFERENCE',
            `${ref} ${kind} ${target}, which no layer applying to the host declares`,
            from,
            ref,
          );
      }
    }
  }
  const graph = analyseGraph(
    refs.map((ref) => {
      const r = built.get(ref) as ResolvedResource;
      return { ref, targets: [...r.requires, ...r.restartOn, ...r.reloadOn] };
    }),
  );
  for (const cycle of graph.cycles) {
    const first = accs.get(cycle[0] as string) as Accumulator;
    problem(
      'FLEET_DEPENDENCY_CYCLE',
      `dependency cycle: ${cycle.join(' -> ')}`,
      { file: first.lastDoc.file, line: first.lastDoc.line },
      cycle[0],
    );
  }
  const resources = graph.order.map((ref) => built.get(ref) as ResolvedResource);
  return {
    host: host.name,
    labels,
    layers: applied,
    resources,
    digest: manifestDigest(resources),
    problems,
  };
}

function foldDocument(
  accs: Map<string, Accumulator>,
  layer: LayerDoc,
  doc: ResourceDoc,
  host: HostDoc,
  labels: Labels,
  withProvenance: boolean,
  problem: (
    code: string,
    message: string,
    at: { file: string; line: number },
    object?: string,
  ) => void,
): void {
  let acc = accs.get(doc.ref);
  if (acc === undefined) {
    acc = {
      ref: doc.ref,
      type: doc.type,
      name: doc.name,
      fields: new Map(),
      layers: [],
      edges: { requires: new Map(), restartOn: new Map(), reloadOn: new Map() },
      substitutions: [],
      lastDoc: doc,
    };
    accs.set(doc.ref, acc);
  }
  acc.layers.push(layer.name);
  acc.lastDoc = doc;
  const spec = RESOURCE_SPECS[doc.type];
  const onConflict = (c: Conflict): void =>
    problem(
      'FLEET_CONFLICT',
      `conflicting values for ${doc.ref}.${c.path}: ${showValue(c.existing.value)} from ${c.existing.layer} and ${showValue(c.incoming.value)} from ${c.incoming.layer} (both precedence ${c.precedence})`,
      { file: c.incoming.file, line: c.incoming.line },
      doc.ref,
    );
  for (const [field, written] of doc.desired) {
    let value: Leaf | Template | readonly (string | Template)[] = written.value;
    const at = { file: doc.file, line: written.line };
    if (doc.templated) {
      const filled = fill(value, host.name, labels);
      if (!filled.ok) {
        problem(
          'FLEET_UNDECLARED_LABEL',
          `${doc.ref}.${field} uses {{ labels.${filled.missingLabel} }}, but the host does not declare label ${JSON.stringify(filled.missingLabel)}`,
          at,
          doc.ref,
        );
        continue;
      }
      value = filled.value;
      if (filled.used.length > 0) {
        const kind = spec.fields[field];
        const texts = typeof value === 'string' ? [value] : [];
        for (const text of texts) {
          const bad = kind === undefined ? undefined : checkTextKind(kind, text);
          if (bad !== undefined)
            problem(
              'FLEET_INVALID_FIELD',
              `${doc.ref}.${field} ${bad} (after substitution)`,
              at,
              doc.ref,
            );
        }
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
  for (const kind of EDGE_KINDS) {
    const edges = acc.edges[kind];
    for (const edge of doc.edges[kind])
      if (!edges.has(edge.ref))
        edges.set(edge.ref, { layer: layer.name, file: doc.file, line: edge.line });
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
