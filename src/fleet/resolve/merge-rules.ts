/**
 * Datum's merge rules (spec: Resolution step 4), over any tree of desired state:
 *
 * - maps merge key by key;
 * - scalars and lists are replaced whole (lists never append);
 * - equal values are not a conflict (`"1"` equals `1`: values compare by their text);
 * - two layers of equal precedence setting one field to different values is a conflict,
 *   judged against the layer that set the field (so it is found even if a higher layer later
 *   overrides the field), and a shape mismatch (scalar vs map) at equal precedence conflicts in
 *   either order;
 * - every leaf remembers the layer that set it and the values it displaced, newest first.
 *
 * Layers must be folded in ascending precedence; a later layer of higher precedence wins.
 * Edge lists (`requires`, …) are set unions and are handled by the caller.
 */
import type { DesiredMap, DesiredValue, Leaf } from '../model.js';

/** The layer a value comes from. */
export interface MergeSource {
  readonly layer: string;
  readonly precedence: number;
  readonly file: string;
  readonly line: number;
}

export interface LeafNode {
  readonly kind: 'leaf';
  value: Leaf;
  source: MergeSource;
  /** Displaced values, newest first; undefined until something is displaced. */
  displaced: { layer: string; value: DesiredValue }[] | undefined;
}

export interface MapNode {
  readonly kind: 'map';
  readonly children: Map<string, MergeNode>;
  /** The last layer that set anything inside the map (the highest precedence so far). */
  source: MergeSource;
  displaced: { layer: string; value: DesiredValue }[] | undefined;
}

export type MergeNode = LeafNode | MapNode;

/** Two equal-precedence layers disagree about one field. */
export interface Conflict {
  /** Dotted path inside `desired`, e.g. `mode`. */
  readonly path: string;
  readonly existing: { readonly layer: string; readonly value: DesiredValue };
  readonly incoming: {
    readonly layer: string;
    readonly value: DesiredValue;
    readonly file: string;
    readonly line: number;
  };
  readonly precedence: number;
}

/** Whether a desired value is a map (not a leaf or a list). */
export function isMap(value: DesiredValue): value is DesiredMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text a leaf compares by: `"1"` and `1` are equal, lists compare item by item. */
export function leafText(value: Leaf): string {
  return Array.isArray(value) ? JSON.stringify(value.map(String)) : String(value);
}

function create(value: DesiredValue, source: MergeSource): MergeNode {
  if (!isMap(value)) return { kind: 'leaf', value: value as Leaf, source, displaced: undefined };
  const children = new Map<string, MergeNode>();
  for (const key of Object.keys(value))
    children.set(key, create(value[key] as DesiredValue, source));
  return { kind: 'map', children, source, displaced: undefined };
}

/** The plain value of a node (without provenance). */
export function plainValue(node: MergeNode): DesiredValue {
  if (node.kind === 'leaf') return node.value;
  const out: Record<string, DesiredValue> = Object.create(null);
  for (const [key, child] of node.children) out[key] = plainValue(child);
  return out;
}

/**
 * Merges `value` from `source` into `node` (undefined: nothing yet) and returns the new node.
 * Conflicts are reported through `conflict`; the incoming value still wins, so folding goes on
 * and every conflict in a fleet is found in one run.
 */
export function mergeValue(
  node: MergeNode | undefined,
  value: DesiredValue,
  source: MergeSource,
  path: string,
  conflict: (c: Conflict) => void,
): MergeNode {
  if (node === undefined) return create(value, source);
  const incomingIsMap = isMap(value);
  if (node.kind === 'map' && incomingIsMap) {
    for (const key of Object.keys(value)) {
      const child = node.children.get(key);
      node.children.set(
        key,
        mergeValue(child, value[key] as DesiredValue, source, `${path}.${key}`, conflict),
      );
    }
    node.source = source;
    return node;
  }
  if (node.kind === 'leaf' && !incomingIsMap) {
    // Restating the value a lower layer set displaces nothing: the field keeps its first
    // source, so explain never says "0644 overrides 0644".
    const same = leafText(node.value) === leafText(value as Leaf);
    if (same) return node;
    if (!same && node.source.precedence === source.precedence) {
      conflict({
        path,
        existing: { layer: node.source.layer, value: node.value },
        incoming: { layer: source.layer, value, file: source.file, line: source.line },
        precedence: source.precedence,
      });
    }
    const displaced = node.displaced ?? [];
    displaced.unshift({ layer: node.source.layer, value: node.value });
    node.value = value as Leaf;
    node.source = source;
    node.displaced = displaced;
    return node;
  }
  // Shape mismatch: a scalar replaces a map or the other way round.
  if (node.source.precedence === source.precedence) {
    conflict({
      path,
      existing: { layer: node.source.layer, value: plainValue(node) },
      incoming: { layer: source.layer, value, file: source.file, line: source.line },
      precedence: source.precedence,
    });
  }
  const replaced = create(value, source);
  replaced.displaced = [
    { layer: node.source.layer, value: plainValue(node) },
    ...(node.displaced ?? []),
  ];
  return replaced;
}

/** Prints a value for messages: text quoted, numbers and booleans bare, lists and maps as JSON. */
export function showValue(value: DesiredValue): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
