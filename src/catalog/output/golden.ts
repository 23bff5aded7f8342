/**
 * The golden comparison: does the checked-in apps directory reproduce from the catalog, byte
 * for byte? Pure: both sides are `<service>/<file>` → text maps.
 */
import { createTwoFilesPatch } from 'diff';

/** One difference. `patch` is a unified diff readable by people (and by `git apply`). */
export interface GoldenDiff {
  readonly path: string;
  readonly change: 'added' | 'removed' | 'changed';
  readonly patch: string;
}

/**
 * The line diff gives up beyond this many inserted plus deleted lines. Diffing costs about
 * (lines × edit length): measured, two unrelated 20,000-line files took 45 s to diff in full and
 * under 0.1 s with this cap. A bound on edits, not a timeout, so the output stays deterministic.
 * A rendered object is a few hundred lines, so any real change diffs in full.
 */
const MAX_EDIT_LENGTH = 1000;

/** The lines of a text, and whether its last line ends with a newline. */
function linesOf(text: string): { lines: string[]; newlineAtEnd: boolean } {
  if (text === '') return { lines: [], newlineAtEnd: true };
  const newlineAtEnd = text.endsWith('\n');
  return { lines: (newlineAtEnd ? text.slice(0, -1) : text).split('\n'), newlineAtEnd };
}

/** A unified diff that replaces every line of `have` by every line of `want`: the fallback. */
function replacementPatch(path: string, have: string, want: string): string {
  const range = (n: number) => (n === 0 ? '0,0' : `1,${n}`);
  const before = linesOf(have);
  const after = linesOf(want);
  const side = (sign: string, text: { lines: string[]; newlineAtEnd: boolean }) =>
    text.lines.map((line) => `${sign}${line}\n`).join('') +
    (text.newlineAtEnd ? '' : '\\ No newline at end of file\n');
  return (
    `${'='.repeat(67)}\n--- a/${path}\tchecked in\n+++ b/${path}\trendered\n` +
    `@@ -${range(before.lines.length)} +${range(after.lines.length)} @@\n` +
    side('-', before) +
    side('+', after)
  );
}

/**
 * Compares what the catalog renders (`expected`) with what the apps directory holds (`actual`).
 * Paths are compared as given; results are sorted by path.
 */
export function compareGolden(
  expected: Readonly<Record<string, string>>,
  actual: Readonly<Record<string, string>>,
): GoldenDiff[] {
  const diffs: GoldenDiff[] = [];
  const paths = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
  for (const path of paths) {
    const want = expected[path];
    const have = actual[path];
    if (want === have) continue;
    const change = have === undefined ? 'added' : want === undefined ? 'removed' : 'changed';
    const patch =
      createTwoFilesPatch(
        `a/${path}`,
        `b/${path}`,
        have ?? '',
        want ?? '',
        'checked in',
        'rendered',
        {
          context: 3,
          maxEditLength: MAX_EDIT_LENGTH,
        },
      ) ?? replacementPatch(path, have ?? '', want ?? '');
    diffs.push({ path, change, patch });
  }
  return diffs;
}
