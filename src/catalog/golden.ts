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
    const patch = createTwoFilesPatch(
      `a/${path}`,
      `b/${path}`,
      have ?? '',
      want ?? '',
      'checked in',
      'rendered',
      {
        context: 3,
      },
    );
    diffs.push({ path, change, patch });
  }
  return diffs;
}
