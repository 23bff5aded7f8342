/**
 * What a diff looked at, for a review that finds no change: "No change" alone cannot tell a
 * repository that was checked from one whose files were never found.
 */
import type { AnchorClaims } from '../../anchor/index.js';
import type { BuildRun } from '../build-run.js';
import type { CheckedParts } from './model.js';

/** The parts the build of the revision after the change read, with their counts. */
export function checkedParts(build: BuildRun | undefined): CheckedParts {
  const modules = (build?.report.modules ?? []).map((m) => ({
    module: m.module,
    counts: m.counts,
  }));
  const claims = build?.runs.find((r) => r.module === 'anchor')?.result.data as
    AnchorClaims | undefined;
  return { modules, composeNotRead: claims?.notRead ?? [] };
}

const plural = (n: number, one: string, many = `${one}s`): string =>
  `${n === 0 ? 'no' : String(n)} ${n === 1 ? one : many}`;

/** One phrase per part: `3 Compose projects, no anchors`, `12 hosts`, … (no input text). */
export function checkedPhrases(checked: CheckedParts): string[] {
  return checked.modules.map(({ module, counts }) => {
    const n = (key: string): number => counts[key] ?? 0;
    if (module === 'anchor')
      return `${plural(n('projects'), 'Compose project')}, ${plural(n('anchors'), 'anchor')}`;
    if (module === 'policy')
      return `policy: ${plural(n('files'), 'file')}, ${plural(n('servers'), 'Server')}, ${plural(n('authorizations'), 'authorization')}`;
    if (module === 'fleet') return `fleet: ${plural(n('hosts'), 'host')}`;
    if (module === 'catalog') return `catalog: ${plural(n('services'), 'service')}`;
    return module;
  });
}

/** `Checked: 3 Compose projects, no anchors; policy: 4 files, …` or undefined when nothing was. */
export function checkedSentence(checked: CheckedParts): string | undefined {
  const phrases = checkedPhrases(checked);
  return phrases.length === 0 ? undefined : `Checked: ${phrases.join('; ')}.`;
}
