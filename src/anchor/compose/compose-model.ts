/**
 * The little of a loaded Compose project the anchor check needs: the project name and, per
 * enabled service, environment, labels, command and networks, each value with the file, line
 * and column it came from. Built from the merged tree by {@link serviceModel}. Pure.
 */
import type { Code } from '../../base/codes.js';
import { compareText } from '../../base/index.js';
import type { Diagnostic } from '../../base/index.js';
import { splitCommand } from './compose-text.js';
import type { MapNode, TreeNode, Where } from './compose-tree.js';
import { scalarString } from './compose-tree.js';
import { keyedMapping } from './compose-merge.js';

/** A value and where it was written. */
export interface Located<T> {
  readonly value: T;
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

export interface ComposeService {
  readonly name: string;
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /**
   * `undefined` value: listed without a value (passed through from the shell or `.env`) and not
   * set there.
   */
  readonly environment: ReadonlyMap<string, Located<string | undefined>>;
  readonly labels: ReadonlyMap<string, Located<string>>;
  /** The command as an argument list. */
  readonly command: Located<readonly string[]> | undefined;
  readonly networks: readonly string[];
  readonly networkMode: string | undefined;
  readonly profiles: readonly string[];
}

export interface ComposeProject {
  readonly name: string;
  /** Enabled services (profiles applied), sorted by name. */
  readonly services: readonly ComposeService[];
  /** Services left out because none of their profiles is active, sorted. */
  readonly disabled: readonly string[];
  /** Top-level networks that enable IPv6. */
  readonly ipv6Networks: ReadonlySet<string>;
}

/** A problem reporter bound to a file position. */
export type Report = (
  severity: Diagnostic['severity'],
  code: Code,
  message: string,
  where: Where,
  service?: string,
) => void;

function located<T>(value: T, where: Where): Located<T> {
  return { value, file: where.file, line: where.line, column: where.column };
}

/** Per-key pairs (environment or labels) of a service node, in file order. */
function keyedPairs(
  node: TreeNode | undefined,
  field: string,
  service: string,
  report: Report,
): { key: string; value: string | undefined; where: Where }[] {
  if (node === undefined || (node.kind === 'scalar' && node.value === null)) return [];
  const map = keyedMapping(node);
  if (map === undefined) {
    report(
      'error',
      'ANCHOR_COMPOSE_SHAPE',
      `${field} must be a mapping or a list of "KEY=VALUE" strings`,
      node.where,
      service,
    );
    return [];
  }
  const out: { key: string; value: string | undefined; where: Where }[] = [];
  for (const [key, entry] of map.entries) {
    const value = entry.value;
    if (value.kind !== 'scalar') {
      report(
        'error',
        'ANCHOR_COMPOSE_SHAPE',
        `${field}.${key} must be a string, number or boolean`,
        entry.key,
        service,
      );
      continue;
    }
    out.push({ key, value: scalarString(value), where: entry.key });
  }
  return out;
}

export interface ServiceInputs {
  /** Variables from the service's `env_file:` files, in order, with where each was set. */
  readonly envFile: ReadonlyMap<string, Located<string>>;
  /** Looks up a variable for `KEY` without a value (the shell over `.env`). */
  readonly lookup: (name: string) => string | undefined;
}

/** The anchor check's view of one merged service node. */
export function serviceModel(
  name: string,
  node: MapNode,
  where: Where,
  inputs: ServiceInputs,
  report: Report,
): ComposeService {
  const field = (key: string): TreeNode | undefined => node.entries.get(key)?.value;
  const environment = new Map<string, Located<string | undefined>>(inputs.envFile);
  for (const pair of keyedPairs(field('environment'), 'environment', name, report)) {
    // `KEY` without a value passes the variable through from where Compose runs (the shell,
    // then the project's .env); unset there, it is unset in the container too.
    const value = pair.value ?? inputs.lookup(pair.key);
    environment.set(pair.key, located(value, pair.where));
  }
  const labels = new Map<string, Located<string>>();
  for (const pair of keyedPairs(field('labels'), 'labels', name, report))
    labels.set(pair.key, located(pair.value ?? '', pair.where));

  let command: Located<readonly string[]> | undefined;
  const commandNode = field('command');
  if (commandNode !== undefined) {
    const text = scalarString(commandNode);
    if (text !== undefined) command = located(splitCommand(text), commandNode.where);
    else if (commandNode.kind === 'seq')
      command = located(
        commandNode.items.map((item) => scalarString(item) ?? ''),
        commandNode.where,
      );
  }
  const networkMode = scalarString(field('network_mode'));
  const networks = new Set<string>();
  const netNode = field('networks');
  if (netNode?.kind === 'seq')
    for (const item of netNode.items) {
      const n = scalarString(item);
      if (n !== undefined) networks.add(n);
    }
  else if (netNode?.kind === 'map') for (const n of netNode.entries.keys()) networks.add(n);
  const profiles: string[] = [];
  const profileNode = field('profiles');
  if (profileNode?.kind === 'seq')
    for (const item of profileNode.items) {
      const p = scalarString(item);
      if (p !== undefined) profiles.push(p);
    }
  return {
    name,
    file: where.file,
    line: where.line,
    column: where.column,
    environment,
    labels,
    command,
    networks: (netNode === undefined && networkMode === undefined
      ? ['default']
      : [...networks]
    ).sort(compareText),
    networkMode,
    profiles,
  };
}

/**
 * A plain-data view of a project, for comparing with what a Compose implementation prints:
 * per service its environment (unset pass-through variables left out, as `docker compose
 * config` does), labels, command, networks and network mode; the IPv6 networks.
 */
export function projectSnapshot(project: ComposeProject): {
  name: string;
  services: Record<string, unknown>;
  ipv6Networks: string[];
} {
  // Object.fromEntries defines own properties: a service or key named `__proto__` is data.
  const services = Object.fromEntries(
    project.services.map((service) => {
      const environment = Object.fromEntries(
        [...service.environment.keys()].sort(compareText).flatMap((key) => {
          const value = service.environment.get(key)?.value;
          return value === undefined ? [] : [[key, value]];
        }),
      );
      const labels = Object.fromEntries(
        [...service.labels.keys()]
          .sort(compareText)
          .map((key) => [key, service.labels.get(key)?.value ?? '']),
      );
      return [
        service.name,
        {
          environment,
          labels,
          ...(service.command !== undefined ? { command: service.command.value } : {}),
          networks: service.networks,
          ...(service.networkMode !== undefined ? { network_mode: service.networkMode } : {}),
        },
      ];
    }),
  ) as Record<string, unknown>;
  return {
    name: project.name,
    services,
    ipv6Networks: [...project.ipv6Networks].sort(compareText),
  };
}
