/**
 * What the fleet commands take from the command line and say about it: `--threads`,
 * `--selector` in any syntax, the layer-name hint and `affected`'s notes. Pure; the CLI prints.
 */
import { LabelwiseError } from '../base/index.js';
import { SYNTAXES, parseSyntax } from '../selector/index.js';
import type { Selector, SyntaxName } from '../selector/index.js';
import type { Fleet } from './model.js';

/** The layers a user could have meant, kept short for fleets with thousands of layers. */
export function layerHint(fleet: Fleet): string {
  const names = fleet.layers.map((l) => l.name);
  if (names.length === 0) return 'this fleet has no Layer documents';
  const shown = names.slice(0, 10).join(', ');
  return names.length <= 10
    ? `layers: ${shown}`
    : `layers: ${shown} and ${names.length - 10} more (labelwise fleet resolve --host H lists a host's layers)`;
}

/** `--threads N`: a positive integer, or undefined for the default. */
export function threadsOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]{0,3}$/.test(text))
    throw new LabelwiseError(
      'FLEET_INVALID_SHARD',
      `--threads must be a positive integer, got ${JSON.stringify(text)}`,
    );
  return Number(text);
}

/** Parses `--selector` in the syntax named, or the first syntax that reads it. */
export function selectorOf(text: string, syntax: string | undefined): Selector {
  if (syntax !== undefined) {
    if (!(SYNTAXES as readonly string[]).includes(syntax))
      throw new LabelwiseError(
        'FLEET_INVALID_SELECTOR',
        `unknown --syntax ${JSON.stringify(syntax)}`,
        { hint: `use one of ${SYNTAXES.join(', ')}` },
      );
    return parseSyntax(syntax as SyntaxName, text, { profile: 'datum' });
  }
  // k8s reads every equality list too; Docker filter text only when it names label filters,
  // since it accepts almost any text as some other filter.
  const order: SyntaxName[] = [
    ...(/^\s*[{]|\n|^\s*(labels|oneOf|notIn|exists|notExists)\s*:/.test(text)
      ? (['match', 'k8s'] as const)
      : (['k8s', 'match'] as const)),
    ...(/(^|[\s,])label[=!]/.test(text) ? (['docker'] as const) : []),
  ];
  let first: unknown;
  for (const name of order) {
    try {
      return parseSyntax(name, text, { profile: 'datum' });
    } catch (error) {
      first ??= error;
    }
  }
  const reason = first instanceof LabelwiseError ? `: ${first.message}` : '';
  throw new LabelwiseError(
    'FLEET_INVALID_SELECTOR',
    `--selector ${JSON.stringify(text)} is not a selector in any syntax${reason}`,
    {
      hint: "for example --selector 'role=web,site in (london)' or --syntax match with a match block",
    },
  );
}

/** Notes (for stderr) about what `affected` could not compare at each revision. */
export function affectedNotes(
  repo: string,
  flags: { from: string; to?: string },
  before: Fleet,
  after: Fleet,
): string[] {
  const out: string[] = [];
  for (const [label, fleet, isRevision] of [
    [flags.from, before, true],
    [flags.to ?? 'the working tree', after, flags.to !== undefined],
  ] as const) {
    const errors = fleet.problems.filter((p) => p.severity === 'error').length;
    const rootless = fleet.problems.find(
      (p) => p.code === 'FLEET_NO_FLEET' || p.code === 'FLEET_SEVERAL_FLEETS',
    );
    if (rootless !== undefined)
      out.push(
        `note: at ${label}, ${rootless.code === 'FLEET_NO_FLEET' ? `${repo} holds no Fleet document` : `${repo} holds more than one Fleet document`}, so no host is resolved there\n`,
      );
    else if (errors > 0)
      out.push(
        `note: ${label} has ${errors} repository error${errors === 1 ? '' : 's'}; run labelwise fleet validate${isRevision ? ` on a checkout of ${label}` : ''}\n`,
      );
    // A Host whose document has errors is not resolved, so it would read as removed or added.
    const broken = [...fleet.invalidHosts.keys()].sort();
    if (broken.length > 0)
      out.push(
        `note: at ${label}, ${broken.join(', ')} ${broken.length === 1 ? 'has' : 'have'} Host document errors and ${broken.length === 1 ? 'is' : 'are'} left out of the comparison\n`,
      );
  }
  return out;
}
