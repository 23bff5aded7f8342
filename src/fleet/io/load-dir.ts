/** Loading a fleet from disk or from a git revision: the io edge in front of {@link loadFleet}. */
import { loadFleet } from '../documents/load-fleet.js';
import type { Fleet } from '../model.js';
import { readFleetFilesAt } from './git-tree.js';
import { readFleetFiles } from './read-tree.js';

/** Reads and loads the fleet under `dir` (the working tree); `label` names it in messages. */
export async function loadFleetDir(dir: string, label: string = dir): Promise<Fleet> {
  const tree = await readFleetFiles(dir);
  return loadFleet(tree.files, {
    label,
    paths: tree.paths,
    links: tree.links,
    oversized: tree.oversized,
  });
}

/** Reads and loads the fleet under `dir` as it was at a git `revision`. */
export async function loadFleetAt(dir: string, revision: string): Promise<Fleet> {
  const tree = await readFleetFilesAt(dir, revision);
  return loadFleet(tree.files, {
    label: `${dir} at ${revision}`,
    paths: tree.paths,
    links: tree.links,
    oversized: tree.oversized,
  });
}
