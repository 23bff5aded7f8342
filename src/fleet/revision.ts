/**
 * What a fleet run was computed from, as one digest: the YAML files read (path and bytes), every
 * path the reader listed (a File source that exists is not one that is missing) and the content
 * hash of each file a resource names. Shards of one run carry it, so `fleet merge` can refuse to
 * join shards computed from different checkouts, whatever their commit says.
 */
import { createHash } from 'node:crypto';
import { compareText } from '../base/index.js';
import type { FleetFile, LoadOptions } from './documents/load-fleet.js';
import type { FleetSource } from './io/load-dir.js';
import type { Shard } from './shard.js';

/** `sha256:<64 hex>` over everything the run read. Independent of the order it was read in. */
export function fleetRevision(
  files: readonly FleetFile[],
  options: LoadOptions,
  contents: ReadonlyMap<string, string> | undefined,
): string {
  const lines: string[] = [];
  for (const file of files)
    lines.push(
      `file\u0000${file.path}\u0000${createHash('sha256').update(file.bytes).digest('hex')}`,
    );
  for (const path of options.paths ?? []) lines.push(`path\u0000${path}`);
  for (const [path, digest] of contents ?? []) lines.push(`content\u0000${path}\u0000${digest}`);
  lines.sort(compareText);
  const hash = createHash('sha256');
  for (const line of lines) hash.update(`${line}\n`, 'utf8');
  return `sha256:${hash.digest('hex')}`;
}

/** What a sharded `--json` adds after its first keys: which shard, and the run's revision. */
export interface ShardJson {
  readonly shard?: string;
  readonly revision?: string;
}

/**
 * The shard fields of `fleet validate` and `fleet resolve` (`fleet merge` compares them), empty
 * for an unsharded run: the revision is only worth hashing every file for when shards are joined.
 */
export function shardJson(source: FleetSource, shard: Shard | undefined): ShardJson {
  if (shard === undefined) return {};
  return {
    shard: `${shard.index}/${shard.count}`,
    revision: fleetRevision(source.files, source.options, source.fleet.contents),
  };
}
