/**
 * Splitting a fleet's hosts into N shards by a stable hash of the host name, so a CI matrix or a
 * Kubernetes Indexed Job resolves a large fleet in parallel and the union of the shards is the
 * whole run. The hash is the first 32 bits of sha256 of the name's UTF-8 bytes, modulo N: it
 * depends on nothing but the name and N, on every machine and in every version.
 */
import { createHash } from 'node:crypto';
import { LabelwiseError } from '../base/index.js';

/** Shard `index` (1-based) of `count`. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** Reads `I/N` (1 ≤ I ≤ N ≤ 65536). Throws `FLEET_INVALID_SHARD`. */
export function parseShard(text: string): Shard {
  const match = /^([1-9][0-9]{0,5})\/([1-9][0-9]{0,5})$/.exec(text);
  const index = match === null ? NaN : Number(match[1]);
  const count = match === null ? NaN : Number(match[2]);
  if (!(index >= 1 && count <= 65536 && index <= count))
    throw new LabelwiseError(
      'FLEET_INVALID_SHARD',
      `--shard must be I/N with 1 <= I <= N <= 65536, got ${JSON.stringify(text)}`,
      { hint: 'for a 4-way split run --shard 1/4, --shard 2/4, --shard 3/4 and --shard 4/4' },
    );
  return { index, count };
}

/** The 1-based shard a host falls in. */
export function shardOf(host: string, count: number): number {
  const hash = createHash('sha256').update(host, 'utf8').digest();
  return (hash.readUInt32BE(0) % count) + 1;
}

/** The hosts of `names` in `shard`, order kept. */
export function shardHosts(names: readonly string[], shard: Shard | undefined): string[] {
  if (shard === undefined || shard.count === 1) return [...names];
  return names.filter((name) => shardOf(name, shard.count) === shard.index);
}
