/**
 * The manifest digest (spec: Resolution step 7): sha256 over a canonical form that holds what
 * the host gets and nothing about how it was written. References sorted, `desired` with sorted
 * keys and text values (so quoting and `"1"` vs `1` do not count), edge lists sorted; no
 * provenance, so moving a resource between layers or reordering `requires` keeps the digest.
 */
import { compareText } from '../../base/text.js';
import { createHash } from 'node:crypto';

import type { DesiredMap, DesiredValue } from '../model.js';

/** What the digest covers of one resource. */
export interface DigestInput {
  readonly ref: string;
  readonly desired: DesiredMap;
  readonly requires: readonly string[];
  readonly restartOn: readonly string[];
  readonly reloadOn: readonly string[];
}

/**
 * The canonical form of a desired value: a map as `[key, value]` pairs in code-point order of
 * the keys, a list as its items' text, a leaf as its text. It runs for every resolved resource,
 * so nothing is copied or sorted that is already in form (a test holds it to the plain form).
 */
function canonical(value: DesiredValue): unknown {
  if (Array.isArray(value))
    return value.every((item) => typeof item === 'string') ? value : value.map(String);
  if (typeof value === 'object' && value !== null) {
    const map = value as DesiredMap;
    const keys = sortedKeys(map);
    const pairs: unknown[] = new Array<unknown>(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      pairs[i] = [key, canonical(map[key] as DesiredValue)];
    }
    return pairs;
  }
  return String(value);
}

/** The keys of `map` in code-point order; resolution usually builds maps in that order already. */
function sortedKeys(map: DesiredMap): string[] {
  const keys = Object.keys(map);
  for (let i = 1; i < keys.length; i++)
    if (compareText(keys[i - 1] as string, keys[i] as string) > 0) return keys.sort(compareText);
  return keys;
}

/** A list of text in code-point order (itself when it has nothing to sort). */
function sorted(list: readonly string[]): readonly string[] {
  return list.length < 2 ? list : [...list].sort(compareText);
}

/**
 * What a resource means rather than where it was written: a File's `source` or `template` is
 * replaced by the digest of the file it names (when the loader saw that file), so moving the
 * resource to another layer with an identical file keeps the digest, and editing the file
 * changes it.
 */
function meaning(r: DigestInput, contents: ReadonlyMap<string, string> | undefined): DesiredMap {
  if (contents === undefined || !r.ref.startsWith('File[')) return r.desired;
  let out: Record<string, DesiredValue> | undefined;
  for (const field of ['source', 'template']) {
    const path = r.desired[field];
    const hash = typeof path === 'string' ? contents.get(path) : undefined;
    if (hash === undefined) continue;
    out ??= { ...r.desired };
    out[field] = `content ${hash}`;
  }
  return out ?? r.desired;
}

/** One resource's part of the canonical text; resolution caches it with the resource. */
export function resourceFragment(r: DigestInput, contents?: ReadonlyMap<string, string>): string {
  // JSON.stringify writes one flat string, which joining a host's fragments reads fastest.
  return JSON.stringify([
    r.ref,
    canonical(meaning(r, contents)),
    sorted(r.requires),
    sorted(r.restartOn),
    sorted(r.reloadOn),
  ]);
}

/** The canonical text the digest hashes: fragments in reference order. */
export function canonicalManifest(
  resources: readonly DigestInput[],
  contents?: ReadonlyMap<string, string>,
): string {
  const sorted = [...resources].sort((a, b) => compareText(a.ref, b.ref));
  return `[${sorted.map((r) => resourceFragment(r, contents)).join(',')}]`;
}

/** `sha256:<64 hex>` of {@link canonicalManifest}. Deterministic. */
export function manifestDigest(
  resources: readonly DigestInput[],
  contents?: ReadonlyMap<string, string>,
): string {
  return digestOfCanonical(canonicalManifest(resources, contents));
}

/** `sha256:<64 hex>` of canonical text already assembled from fragments. */
export function digestOfCanonical(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** The short form: the first 8 hex digits. */
export function shortDigest(digest: string): string {
  return digest.replace(/^sha256:/, '').slice(0, 8);
}
