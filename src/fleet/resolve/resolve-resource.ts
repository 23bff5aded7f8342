/**
 * Resolution of one resource reference for one host: substitution, the precedence fold with
 * provenance (merge rules in `merge-rules.ts`), and the checks on the merged resource.
 */
import type { Labels } from '../../selector/index.js';
import { checkListKind, checkTextKind } from '../documents/read-field.js';
import { RESOURCE_SPECS } from '../documents/resource-fields.js';
import { EDGE_KINDS } from '../model.js';
import type {
  DesiredField,
  DesiredValue,
  EdgeKind,
  FleetProblem,
  HostDoc,
  LayerDoc,
  Leaf,
  Provenance,
  ResolvedResource,
  ResourceDoc,
  Substitution,
  Template,
} from '../model.js';
import { resourceFragment } from './digest.js';
import { mergeValue, plainValue, showValue } from './merge-rules.js';
import type { Conflict, MergeNode, MergeSource } from './merge-rules.js';
import { substitute } from './placeholders.js';
import type { ResolvedEntry } from './prepare.js';
import { protectedTargetProblem } from './protected-targets.js';
import { checkResource } from './resource-checks.js';
import { pushAll } from '../../base/arrays.js';

/** One layer's document for a reference. */
export interface Contribution {
  readonly layer: LayerDoc;
  readonly doc: ResourceDoc;
}
interface Accumulator {
  readonly fields: Map<string, MergeNode>;
  readonly edges: Record<EdgeKind, Map<string, string>>;
  readonly substitutions: Substitution[];
  /** Fields left out because their substitution failed (one error each, no follow-ons). */
  readonly failed: Set<string>;
}

/** `posix.join` for clean relative paths, without importing node:path into the core. */
function joinPath(dir: string, path: string): string {
  const parts = (dir === '' ? path : `${dir}/${path}`)
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  return parts.join('/');
}

/** Folds one reference's contributions (in layer order) into a resolved resource. */
export function resolveResource(
  contribs: readonly Contribution[],
  host: HostDoc,
  labels: Labels,
  withProvenance: boolean,
  rank: number,
  files?: ReadonlySet<string>,
  contents?: ReadonlyMap<string, string>,
): ResolvedEntry {
  const first = (contribs[0] as Contribution).doc;
  const ref = first.ref;
  const problems: FleetProblem[] = [];
  const acc: Accumulator = {
    fields: new Map(),
    edges: { requires: new Map(), restartOn: new Map(), reloadOn: new Map() },
    substitutions: [],
    failed: new Set(),
  };
  for (const c of contribs)
    foldDocument(acc, c.layer, c.doc, host, labels, withProvenance, problems);
  const { desired, provenance } = mergedFields(acc, withProvenance);
  const last = (contribs[contribs.length - 1] as Contribution).doc;
  const at = { file: last.file, line: last.line, object: ref };
  if (files !== undefined && first.type === 'File')
    missingSources(ref, acc, desired, files, problems);
  const target = checkedTarget(first, acc, desired, at, problems);
  const { lists, edgeLayers } = edgeLists(acc, withProvenance);
  if (lists.restartOn.length > 0 && lists.reloadOn.length > 0)
    problems.push({
      severity: 'error',
      code: 'FLEET_RESTART_AND_RELOAD',
      message: `${ref} gets restartOn and reloadOn from different layers; a resource may have one or the other`,
      ...at,
    });
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
  return {
    resource,
    rank,
    problems,
    fragment: resourceFragment(resource, contents),
    targetKey: target === undefined ? undefined : `${first.type}\u0000${target}`,
    edges: writtenEdges(contribs, ref, problems),
  };
}

/** The folded fields as plain values, in field order, and each leaf's provenance when asked. */
function mergedFields(
  acc: Accumulator,
  withProvenance: boolean,
): { desired: Record<string, DesiredValue>; provenance: Record<string, Provenance> } {
  const desired: Record<string, DesiredValue> = Object.create(null);
  const provenance: Record<string, Provenance> = Object.create(null);
  for (const field of [...acc.fields.keys()].sort()) {
    const node = acc.fields.get(field) as MergeNode;
    desired[field] = plainValue(node);
    if (withProvenance) collectProvenance(node, field, provenance);
  }
  return { desired, provenance };
}

/** `FLEET_MISSING_SOURCE` for a File's source or template that names no listed file. */
function missingSources(
  ref: string,
  acc: Accumulator,
  desired: Readonly<Record<string, DesiredValue>>,
  files: ReadonlySet<string>,
  problems: FleetProblem[],
): void {
  for (const field of ['source', 'template']) {
    const node = acc.fields.get(field);
    const path = desired[field];
    if (node === undefined || typeof path !== 'string' || files.has(path)) continue;
    problems.push({
      severity: 'error',
      code: 'FLEET_MISSING_SOURCE',
      message: `${ref}.${field} names ${path}, which does not exist (relative to layer ${node.source.layer}'s directory)`,
      file: node.source.file,
      line: node.source.line,
      object: ref,
    });
  }
}

/**
 * The merged resource's target identity, with the checks on the whole resource: a missing
 * identity, a protected target and the rules that span fields.
 */
function checkedTarget(
  first: ResourceDoc,
  acc: Accumulator,
  desired: Readonly<Record<string, DesiredValue>>,
  at: { readonly file: string; readonly line: number; readonly object: string },
  problems: FleetProblem[],
): string | undefined {
  const ref = first.ref;
  const identity = RESOURCE_SPECS[first.type].identity;
  const targetValue = identity === 'name' ? first.name : desired[identity];
  const target = typeof targetValue === 'string' ? targetValue : undefined;
  if (target === undefined && !acc.failed.has(identity))
    problems.push({
      severity: 'error',
      code: 'FLEET_MISSING_IDENTITY',
      message: `${ref} is missing desired.${identity}, which identifies what it manages`,
      ...at,
    });
  const refusal = protectedTargetProblem(first.type, ref, target, desired);
  if (refusal !== undefined) {
    const node = refusal.field === undefined ? undefined : acc.fields.get(refusal.field);
    problems.push({
      severity: 'error',
      code: 'FLEET_PROTECTED_TARGET',
      message: refusal.message,
      ...(node === undefined
        ? { file: first.file, line: first.line }
        : { file: node.source.file, line: node.source.line }),
      object: ref,
    });
  }
  for (const message of checkResource(first.type, ref, desired, acc.failed))
    problems.push({ severity: 'error', code: 'FLEET_INVALID_RESOURCE', message, ...at });
  return target;
}

/** Each edge kind's targets in first-seen order, and (with provenance) the layer of each. */
function edgeLists(
  acc: Accumulator,
  withProvenance: boolean,
): { lists: Record<EdgeKind, string[]>; edgeLayers: Record<string, string> } {
  const edgeLayers: Record<string, string> = Object.create(null);
  const lists: Record<EdgeKind, string[]> = { requires: [], restartOn: [], reloadOn: [] };
  for (const kind of EDGE_KINDS) {
    // First-seen order, as Datum keeps it (the digest sorts its own copy).
    const list = [...acc.edges[kind].keys()];
    lists[kind] = list;
    if (withProvenance)
      for (const t of list) edgeLayers[`${kind}:${t}`] = acc.edges[kind].get(t) as string;
  }
  return { lists, edgeLayers };
}

/** Edges with where they were first written; a self-dependency is known without the host. */
function writtenEdges(
  contribs: readonly Contribution[],
  ref: string,
  problems: FleetProblem[],
): ResolvedEntry['edges'] {
  const edges: { kind: string; ref: string; file: string; line: number }[] = [];
  const seen = new Set<string>();
  for (const c of contribs)
    for (const kind of EDGE_KINDS)
      for (const edge of c.doc.edges[kind]) {
        const key = `${kind}:${edge.ref}`;
        if (seen.has(key)) continue;
        seen.add(key);
        if (edge.ref === ref)
          problems.push({
            severity: 'error',
            code: 'FLEET_SELF_DEPENDENCY',
            message: `${ref} ${kind} itself`,
            file: c.doc.file,
            line: edge.line,
            object: ref,
          });
        else edges.push({ kind, ref: edge.ref, file: c.doc.file, line: edge.line });
      }
  return edges;
}

/** One layer's document folded into the accumulator: substitution, merge, conflicts, edges. */
function foldDocument(
  acc: Accumulator,
  layer: LayerDoc,
  doc: ResourceDoc,
  host: HostDoc,
  labels: Labels,
  withProvenance: boolean,
  problems: FleetProblem[],
): void {
  let conflicts: Conflict[] | undefined;
  const onConflict = (c: Conflict): void => {
    (conflicts ??= []).push(c);
  };
  for (const [field, written] of doc.desired) {
    let value: Leaf | Template | readonly (string | Template)[] | undefined = written.value;
    if (doc.templated) {
      value = substituted(acc, layer, doc, field, written, host, labels, withProvenance, problems);
      if (value === undefined) continue;
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

/**
 * A field's value with the host's placeholders filled in and checked against the field's kind;
 * undefined (the field marked failed) when the host lacks a label it names.
 */
function substituted(
  acc: Accumulator,
  layer: LayerDoc,
  doc: ResourceDoc,
  field: string,
  written: DesiredField,
  host: HostDoc,
  labels: Labels,
  withProvenance: boolean,
  problems: FleetProblem[],
): Leaf | undefined {
  const at = { file: doc.file, line: written.line, object: doc.ref };
  const filled = fill(written.value, host.name, labels);
  if (!filled.ok) {
    problems.push({
      severity: 'error',
      code: 'FLEET_UNDECLARED_LABEL',
      message: `${doc.ref}.${field} uses {{ labels.${filled.missingLabel} }}, but the host does not declare label ${JSON.stringify(filled.missingLabel)}`,
      ...at,
    });
    acc.failed.add(field);
    return undefined;
  }
  const value = filled.value;
  if (filled.used.length === 0) return value;
  const kind = RESOURCE_SPECS[doc.type].fields[field];
  const bad =
    kind === undefined
      ? undefined
      : typeof value === 'string'
        ? checkTextKind(kind, value)
        : Array.isArray(value)
          ? checkListKind(kind, value as readonly string[])
          : undefined;
  if (bad !== undefined)
    problems.push({
      severity: 'error',
      code: 'FLEET_INVALID_FIELD',
      message: `${doc.ref}.${field} ${bad} (after substitution)`,
      ...at,
    });
  if (withProvenance)
    for (const u of filled.used)
      acc.substitutions.push({
        field,
        placeholder: u.placeholder,
        value: u.value,
        layer: layer.name,
      });
  return value;
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
        pushAll(used, result.used);
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
