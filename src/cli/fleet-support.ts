/**
 * What the `labelwise fleet` subcommands share: loading the repository, printing values and
 * problems, the validate header and the examples.
 */
import { resolve as resolvePath } from 'node:path';
import { LabelwiseError, escapeControl } from '../base/index.js';
import { SCHEMA_VERSION, fleetDiagnostic, loadFleetSource } from '../fleet/index.js';
import type { FleetSource, Shard } from '../fleet/index.js';
import type { DesiredValue, Fleet, FleetProblem } from '../fleet/index.js';
import type { CliIO } from './io.js';
import { paintDiagnostic, renderTable } from './output.js';

export interface JsonFlag {
  json?: boolean;
}

/** Text for a value in tables: bare when unambiguous, JSON otherwise. */
export function show(value: DesiredValue): string {
  if (typeof value === 'string')
    return /^[^\s"'{}[\],:#]+$/.test(value) ? value : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => show(v as string)).join(', ')}]`;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** One row a resolved host: its name, manifest digest and resource count. */
export function hostsTable(
  manifests: readonly { host: string; digest: string; resources: readonly unknown[] }[],
): string {
  return renderTable(
    manifests.map((m) => [
      escapeControl(m.host, true),
      m.digest,
      `${m.resources.length} resource${m.resources.length === 1 ? '' : 's'}`,
    ]),
  );
}

export function colourProblem(io: CliIO, p: FleetProblem & { hosts?: readonly string[] }): string {
  return paintDiagnostic(fleetDiagnostic(p), io);
}

/** Loads a fleet; a repository without exactly one Fleet document is an input error. */
export async function load(io: CliIO, repo: string): Promise<Fleet> {
  return (await loadSource(io, repo)).fleet;
}

/** {@link load}, keeping the files read for worker threads. */
export async function loadSource(io: CliIO, repo: string): Promise<FleetSource> {
  const source = await loadFleetSource(resolvePath(io.cwd, repo), repo);
  const fleet = source.fleet;
  const fatal = fleet.problems.filter(
    (p) => p.code === 'FLEET_NO_FLEET' || p.code === 'FLEET_SEVERAL_FLEETS',
  );
  const first = fatal[0];
  if (first !== undefined) {
    const where = first.file === undefined ? {} : { file: first.file, line: first.line ?? 1 };
    const others = fatal.slice(1).map((p) => `${p.file}:${p.line}`);
    throw new LabelwiseError(
      first.code,
      others.length === 0 ? first.message : `${first.message} (also at ${others.join(', ')})`,
      {
        source: where,
        hint: 'a fleet repository has exactly one `type: Fleet` document, at its root',
      },
    );
  }
  return source;
}

/** Prints repository errors to stderr (text mode); returns whether there were any. */
export function reportLoadErrors(io: CliIO, fleet: Fleet, json: boolean): boolean {
  const errors = fleet.problems.filter((p) => p.severity === 'error');
  if (!json) for (const p of errors) io.stderr(`${colourProblem(io, p)}\n`);
  return errors.length > 0;
}

/** `validate`'s header, as Datum prints it: fleet name, schema version, counts, layers' reach. */
export function validateHeader(
  fleet: Fleet,
  resolved: number,
  shard: Shard | undefined,
  layers: readonly { name: string; precedence: number; hosts: number }[],
): string {
  const total = fleet.hosts.length;
  const hosts =
    shard === undefined
      ? `${total}`
      : `${resolved} of ${total} (shard ${shard.index}/${shard.count})`;
  const shown = layers.slice(0, 50);
  const rows = shown.map((l) => [
    `  ${l.name}`,
    `precedence ${l.precedence}`,
    `${l.hosts} host${l.hosts === 1 ? '' : 's'}`,
  ]);
  const more =
    layers.length > shown.length
      ? `  and ${layers.length - shown.length} more (--json lists all)\n`
      : '';
  return `${renderTable([
    ['fleet', escapeControl(fleet.fleet?.name ?? '', true)],
    ['schema', SCHEMA_VERSION],
    ['hosts', hosts],
    ['layers', String(layers.length)],
  ])}${rows.length === 0 ? '' : renderTable(rows.map((r) => r.map((c) => escapeControl(c, true))))}${more}\n`;
}

export const EXAMPLES = {
  validate: 'labelwise fleet validate examples/homelab/fleet',
  resolve: 'labelwise fleet resolve examples/homelab/fleet --host web-001 --json',
  explain: "labelwise fleet explain examples/homelab/fleet --host web-001 'File[nginx-config]'",
  hosts: 'labelwise fleet hosts examples/homelab/fleet --layer role-web',
  affected: 'labelwise fleet affected examples/homelab/fleet --from HEAD~1 --to HEAD',
  merge: 'labelwise fleet merge shard-1.json shard-2.json --json',
};

/** `labelwise fleet …`. */
