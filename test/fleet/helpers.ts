// Builders for in-memory fleets: tests write documents as YAML text and load them through the
// real loader, so every rule is checked the way a user meets it.
import { loadFleet, prepareFleet, resolveHost } from '../../src/fleet/index.js';
import type { Fleet, FleetProblem, HostManifest } from '../../src/fleet/index.js';

export const FLEET = 'datum: v1alpha1\ntype: Fleet\nname: test\n';

/** A YAML document with the header filled in. `body` is the rest, already indented. */
export function doc(type: string, name: string, body = ''): string {
  return `datum: v1alpha1\ntype: ${type}\nname: ${name}\n${body}`;
}

/** A Host document with labels. */
export function host(name: string, labels: Record<string, string> = {}): string {
  const lines = Object.entries(labels).map(([k, v]) => `  ${k}: ${v}`);
  return doc('Host', name, lines.length === 0 ? '' : `labels:\n${lines.join('\n')}\n`);
}

/** A Layer document; `match` is YAML text indented by two. */
export function layer(name: string, precedence: number | undefined, match?: string): string {
  return doc(
    'Layer',
    name,
    `${precedence === undefined ? '' : `precedence: ${precedence}\n`}${match === undefined ? '' : `match:\n${match}`}`,
  );
}

/** Loads files given as `{path: text}` (documents joined with `---`). */
export function fleetOf(files: Record<string, string | string[]>): Fleet {
  return loadFleet(
    Object.entries(files).map(([path, text]) => ({
      path,
      bytes: Array.isArray(text) ? text.join('---\n') : text,
    })),
  );
}

/** Loads and resolves one host. */
export function resolveIn(
  files: Record<string, string | string[]>,
  hostName: string,
): HostManifest {
  return resolveHost(prepareFleet(fleetOf(files)), hostName);
}

/** Only errors, as `file:line code`, for compact assertions. */
export function errorsOf(problems: readonly FleetProblem[]): string[] {
  return problems
    .filter((p) => p.severity === 'error')
    .map((p) => `${p.file ?? ''}:${p.line ?? ''} ${p.code}`);
}
