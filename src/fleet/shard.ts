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

/** How a command was told its shard: `--shard I/N`, or `--shards N` with the index from the engine. */
export interface ShardFlags {
  readonly shard?: string;
  readonly shards?: string;
}

/**
 * The shard a command runs: `--shard I/N` as given; `--shards N` takes I from
 * `JOB_COMPLETION_INDEX` (0-based, set by a Kubernetes Indexed Job on each pod), so one
 * manifest serves every pod. Undefined when neither flag is given. Throws `FLEET_INVALID_SHARD`
 * for a malformed count or both flags, `FLEET_INVALID_SHARD_INDEX` when the index is missing or
 * out of range.
 */
export function shardOfRun(
  flags: ShardFlags,
  env: Readonly<Record<string, string | undefined>>,
): Shard | undefined {
  if (flags.shard !== undefined && flags.shards !== undefined)
    throw new LabelwiseError(
      'FLEET_INVALID_SHARD',
      '--shard I/N names the shard and --shards N reads it from JOB_COMPLETION_INDEX; give one',
    );
  if (flags.shard !== undefined) return parseShard(flags.shard);
  if (flags.shards === undefined) return undefined;
  const count = /^[1-9][0-9]{0,5}$/.test(flags.shards) ? Number(flags.shards) : NaN;
  if (!(count <= 65536))
    throw new LabelwiseError(
      'FLEET_INVALID_SHARD',
      `--shards must be a count N with 1 <= N <= 65536, got ${JSON.stringify(flags.shards)}`,
      { hint: "in an Indexed Job, --shards is the Job's completions, e.g. --shards 4" },
    );
  const text = env.JOB_COMPLETION_INDEX;
  const index = text !== undefined && /^(0|[1-9][0-9]{0,5})$/.test(text) ? Number(text) : NaN;
  if (!(index < count))
    throw new LabelwiseError(
      'FLEET_INVALID_SHARD_INDEX',
      text === undefined
        ? `--shards ${count} reads the shard from JOB_COMPLETION_INDEX, which is not set`
        : `JOB_COMPLETION_INDEX must be an index from 0 to ${count - 1} for --shards ${count}, got ${JSON.stringify(text)}`,
      {
        source: { env: 'JOB_COMPLETION_INDEX' },
        hint:
          text === undefined
            ? 'run it as a Kubernetes Indexed Job (completionMode: Indexed), or name the shard with --shard I/N'
            : "--shards must equal the Job's completions",
      },
    );
  return { index: index + 1, count };
}
