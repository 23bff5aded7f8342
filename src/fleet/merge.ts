/**
 * `fleet merge` as pure functions: the `--json` outputs of the N shards of one `fleet validate`
 * or `fleet resolve` run, joined into the output one unsharded run prints, byte for byte. Shards
 * of different revisions, counts or commands are refused, and so is a missing or doubled shard:
 * a join of the wrong pieces would read as a whole fleet that was never resolved.
 */
import { LabelwiseError, compareText, diagnosticsJson } from '../base/index.js';
import type { Diagnostic } from '../base/index.js';
import type { Shard } from './shard.js';
import { parseShard } from './shard.js';

/** Which command printed a shard: its report (`validate`) or its manifests (`resolve`). */
export type ShardKind = 'validate' | 'resolve';

/** One shard's `--json` output, as read back. */
export interface ShardOutput {
  /** Where it was read from, for messages. */
  readonly name: string;
  readonly kind: ShardKind;
  readonly shard: Shard;
  readonly revision: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** The joined output, and what decides the exit code. */
export interface MergedShards {
  readonly kind: ShardKind;
  readonly revision: string;
  readonly count: number;
  /** The output of one unsharded run (print it as `--json` prints). */
  readonly json: Readonly<Record<string, unknown>>;
  /** Whether the unsharded run would have exited 1. */
  readonly failed: boolean;
}

function notAShard(name: string, why: string): LabelwiseError {
  return new LabelwiseError(
    'FLEET_NOT_A_SHARD',
    `${name} is not the --json output of a sharded fleet validate or fleet resolve: ${why}`,
    {
      source: { file: name },
      hint: 'merge what `labelwise fleet validate REPO --shard I/N --json` (or `fleet resolve`) printed',
    },
  );
}

/** Reads one shard's output. Throws `FLEET_NOT_A_SHARD`. */
export function readShardOutput(name: string, text: string): ShardOutput {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw notAShard(name, 'it is not JSON');
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw notAShard(name, 'it is not a JSON object');
  const record = data as Record<string, unknown>;
  if (typeof record.shard !== 'string') throw notAShard(name, 'it names no shard');
  if (typeof record.revision !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(record.revision))
    throw notAShard(name, 'it names no revision');
  let shard: Shard;
  try {
    shard = parseShard(record.shard);
  } catch {
    throw notAShard(name, `its shard ${JSON.stringify(record.shard)} is not I/N`);
  }
  const isValidate =
    typeof record.digests === 'object' &&
    record.digests !== null &&
    Array.isArray(record.layerHosts);
  if (!isValidate && !Array.isArray(record.hosts))
    throw notAShard(name, 'it holds neither digests nor manifests');
  if (!Array.isArray(record.diagnostics)) throw notAShard(name, 'it holds no diagnostics');
  return {
    name,
    kind: isValidate ? 'validate' : 'resolve',
    shard,
    revision: record.revision,
    data: record,
  };
}

/** The shards in index order, each checked against the first. */
function checkedShards(outputs: readonly ShardOutput[]): ShardOutput[] {
  const first = outputs[0];
  if (first === undefined)
    throw new LabelwiseError('FLEET_SHARD_MISSING', 'fleet merge needs the output of every shard', {
      hint: 'labelwise fleet merge shard-1.json shard-2.json …',
    });
  const byIndex = new Map<number, ShardOutput>();
  for (const output of outputs) {
    if (output.kind !== first.kind)
      throw new LabelwiseError(
        'FLEET_SHARD_KIND_MISMATCH',
        `${output.name} is the output of fleet ${output.kind} but ${first.name} of fleet ${first.kind}`,
        { source: { file: output.name }, hint: 'merge the shards of one command at a time' },
      );
    if (output.shard.count !== first.shard.count)
      throw new LabelwiseError(
        'FLEET_SHARD_COUNT_MISMATCH',
        `${output.name} is shard ${output.shard.index}/${output.shard.count} but ${first.name} is shard ${first.shard.index}/${first.shard.count}: shards of different counts split the hosts differently`,
        { source: { file: output.name }, hint: 'rerun every shard with one count N' },
      );
    if (output.revision !== first.revision)
      throw new LabelwiseError(
        'FLEET_SHARD_REVISION_MISMATCH',
        `${output.name} was resolved from revision ${output.revision} but ${first.name} from ${first.revision}`,
        {
          source: { file: output.name },
          hint: 'rerun every shard on one checkout of the repository',
        },
      );
    const twin = byIndex.get(output.shard.index);
    if (twin !== undefined)
      throw new LabelwiseError(
        'FLEET_SHARD_DUPLICATE',
        `${output.name} and ${twin.name} are both shard ${output.shard.index}/${output.shard.count}`,
        { source: { file: output.name }, hint: 'give each shard once' },
      );
    byIndex.set(output.shard.index, output);
  }
  const missing: number[] = [];
  for (let i = 1; i <= first.shard.count; i++) if (!byIndex.has(i)) missing.push(i);
  if (missing.length > 0)
    throw new LabelwiseError(
      'FLEET_SHARD_MISSING',
      `shard${missing.length === 1 ? '' : 's'} ${missing
        .slice(0, 10)
        .map((i) => `${i}/${first.shard.count}`)
        .join(
          ', ',
        )}${missing.length > 10 ? ` and ${missing.length - 10} more` : ''} of ${first.shard.count} ${missing.length === 1 ? 'is' : 'are'} missing`,
      { hint: 'merge the output of every shard, 1/N to N/N' },
    );
  return [...byIndex.keys()].sort((a, b) => a - b).map((i) => byIndex.get(i) as ShardOutput);
}

/** The hosts a diagnostic was found on (none for a problem of the repository itself). */
function witnessHosts(d: Diagnostic): readonly string[] | undefined {
  const witness = d.witness as { hosts?: unknown } | undefined;
  return Array.isArray(witness?.hosts) ? (witness.hosts as string[]) : undefined;
}

function diagnosticsOf(output: ShardOutput): Diagnostic[] {
  return output.data.diagnostics as Diagnostic[];
}

/** A host problem without what its shard's hosts added: the witness and the object named after the first. */
function withoutHosts(d: Diagnostic, hosts: readonly string[]): Diagnostic {
  const { witness: _witness, object, ...rest } = d;
  return object === undefined || object === `host ${hosts[0]}` ? rest : { ...rest, object };
}

/**
 * validate's grouped problems: one problem found on hosts of several shards is one problem with
 * every host, its fields those of the host resolved first, as in one run.
 */
function mergeGroups(shards: readonly ShardOutput[]): Diagnostic[] {
  const repository = diagnosticsOf(shards[0] as ShardOutput).filter(
    (d) => witnessHosts(d) === undefined,
  );
  const groups = new Map<string, { problem: Diagnostic; hosts: string[] }>();
  for (const shard of shards)
    for (const d of diagnosticsOf(shard)) {
      const hosts = witnessHosts(d);
      if (hosts === undefined || hosts.length === 0) continue;
      const key = `${d.code}\u0000${d.file ?? ''}\u0000${d.line ?? 0}\u0000${d.message}`;
      const group = groups.get(key);
      const problem = withoutHosts(d, hosts);
      if (group === undefined) groups.set(key, { problem, hosts: [...hosts] });
      else {
        if (compareText(hosts[0] as string, group.hosts[0] as string) < 0) group.problem = problem;
        for (const host of hosts) group.hosts.push(host);
      }
    }
  const resolution = [...groups.values()].map(({ problem, hosts }) => {
    hosts.sort(compareText);
    return {
      ...problem,
      ...(problem.object === undefined ? { object: `host ${hosts[0]}` } : {}),
      witness: { hosts },
    };
  });
  return [...repository, ...resolution];
}

function mergeValidate(shards: readonly ShardOutput[]): Record<string, unknown> {
  const first = (shards[0] as ShardOutput).data;
  const digests: Record<string, string> = Object.create(null);
  const names: string[] = [];
  let hosts = 0;
  for (const shard of shards) {
    hosts += shard.data.hosts as number;
    for (const name of Object.keys(shard.data.digests as object)) names.push(name);
  }
  names.sort(compareText);
  const byHost = new Map<string, string>();
  for (const shard of shards)
    for (const [name, digest] of Object.entries(shard.data.digests as Record<string, string>))
      byHost.set(name, digest);
  for (const name of names) digests[name] = byHost.get(name) as string;
  return {
    fleet: first.fleet,
    schema: first.schema,
    hosts,
    layers: first.layers,
    resources: first.resources,
    layerHosts: first.layerHosts,
    ...diagnosticsJson(mergeGroups(shards)),
    digests,
  };
}

/**
 * resolve's manifests in host order, and its diagnostics: the repository's once, each host's as
 * its shard gave them, in the order one run lists them before sorting (ties keep that order).
 */
function mergeResolve(shards: readonly ShardOutput[]): Record<string, unknown> {
  const manifests = shards
    .flatMap((s) => s.data.hosts as { host: string }[])
    .sort((a, b) => compareText(a.host, b.host));
  const position = new Map(manifests.map((m, i) => [m.host, i]));
  const repository = diagnosticsOf(shards[0] as ShardOutput).filter(
    (d) => witnessHosts(d) === undefined,
  );
  const place = (d: Diagnostic): number => position.get(witnessHosts(d)?.[0] ?? '') ?? -1;
  const perHost = shards
    .flatMap((s) => diagnosticsOf(s).filter((d) => witnessHosts(d) !== undefined))
    .sort((a, b) => place(a) - place(b));
  // The sort is stable: the same input order gives the same ties, so the same bytes as one run.
  return { hosts: manifests, ...diagnosticsJson([...repository, ...perHost]) };
}

/** Joins the outputs of every shard of one run. Throws the `FLEET_SHARD_*` codes. */
export function mergeShards(outputs: readonly ShardOutput[]): MergedShards {
  const shards = checkedShards(outputs);
  const first = shards[0] as ShardOutput;
  const json = first.kind === 'validate' ? mergeValidate(shards) : mergeResolve(shards);
  const diagnostics = json.diagnostics as Diagnostic[];
  const failed =
    first.kind === 'validate'
      ? (json.errors as number) > 0
      : diagnostics.some((d) => d.severity === 'error' || witnessHosts(d) !== undefined);
  return { kind: first.kind, revision: first.revision, count: first.shard.count, json, failed };
}
