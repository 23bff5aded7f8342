/**
 * Step 3 of loading, for the project's files or an included project's: each file interpolated,
 * put in its long forms, its `include:` imported, its `extends:` followed, then merged over the
 * files before it after dropping what its `!reset`/`!override` name. Pure.
 */
import { applyResets, mergeNodes } from './compose-merge.js';
import type { MergeProblem } from './compose-merge.js';
import { normaliseServices } from './compose-normalise.js';
import type { MapNode, TreeNode } from './compose-tree.js';
import { interpolateTree } from './compose-file.js';
import type { LoadContext, PreparedTree } from './compose-file.js';
import { followExtends } from './extends.js';
import { applyInclude } from './include.js';

/**
 * Merges `trees` in order into one tree. `included` lists the files being included on the way
 * here (a cycle is an error). Merge problems are reported as `ANCHOR_COMPOSE_SHAPE`.
 */
export function mergeFiles(
  trees: readonly PreparedTree[],
  context: LoadContext,
  included: readonly string[] = [],
): MapNode {
  const problems: MergeProblem[] = [];
  let merged: TreeNode = {
    kind: 'map',
    where: { file: trees[0]?.file ?? 'compose.yaml', line: 1, column: 1 },
    entries: new Map(),
  };
  for (const prepared of trees) {
    interpolateTree(prepared.tree, context);
    normaliseServices(prepared.tree);
    // Included resources first, so that `extends` sees them (compose-go's order).
    applyInclude(prepared, context, [...included, prepared.file], mergeFiles);
    followExtends(prepared, context);
    applyResets(merged, prepared.resets);
    merged = mergeNodes(merged, prepared.tree, [], problems);
  }
  for (const p of problems) context.report('error', 'ANCHOR_COMPOSE_SHAPE', p.message, p.where);
  return merged as MapNode;
}
