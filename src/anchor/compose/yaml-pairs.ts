/**
 * Reading YAML mappings the way Compose does: merge keys (`<<: *base`) resolved with own keys
 * winning, and scalars as the text Compose would see. Pure helpers over the yaml package's nodes.
 */
import { isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { Document, Pair, YAMLMap } from 'yaml';

/** Whether a mapping key is the YAML merge key `<<`. */
export function isMergeKey(key: unknown): boolean {
  // With `merge: true` the yaml package marks the key with a symbol whose description is `<<`.
  if (!isScalar(key)) return false;
  const value: unknown = key.value;
  return value === '<<' || (typeof value === 'symbol' && value.description === '<<');
}

/**
 * A mapping's pairs with YAML merge keys (`<<: *base`, `<<: [*a, *b]`) resolved as Compose does:
 * own keys win, then earlier merge sources. The returned pairs keep their source positions.
 * Each mapping is merged at most once per call, so alias bombs stay linear.
 */
export function effectivePairs(
  map: YAMLMap,
  doc: Document,
  visited: Set<YAMLMap> = new Set(),
  depth = 0,
): Pair[] {
  visited.add(map);
  const own = map.items.filter((pair) => !isMergeKey(pair.key));
  const seen = new Set(own.map((pair) => scalarText(pair.key)));
  const out = [...own];
  if (depth > 16) return out;
  for (const pair of map.items) {
    if (!isMergeKey(pair.key)) continue;
    const sources = isSeq(pair.value) ? pair.value.items : [pair.value];
    for (const source of sources) {
      const resolved = isAlias(source) ? source.resolve(doc) : source;
      // Each mapping is merged once per lookup: repeated or cyclic aliases (a "billion laughs"
      // built from merge keys) cannot multiply the work.
      if (!isMap(resolved) || visited.has(resolved)) continue;
      for (const inherited of effectivePairs(resolved, doc, visited, depth + 1)) {
        const key = scalarText(inherited.key);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(inherited);
      }
    }
  }
  return out;
}

/** The key node of `key` among the pairs (for its position), or undefined. */
export function pairKeyOf(pairs: readonly Pair[], key: string): unknown {
  return pairs.find((pair) => scalarText(pair.key) === key)?.key;
}

/** The value node of `key` among the pairs, or undefined. */
export function pairValue(pairs: readonly Pair[], key: string): unknown {
  return pairs.find((pair) => scalarText(pair.key) === key)?.value;
}

/** A scalar as text (`null` → `""`, numbers and booleans as written in JS), else undefined. */
export function scalarText(node: unknown): string | undefined {
  if (!isScalar(node)) return undefined;
  const value = node.value;
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}
