/** Loading a fleet from disk or from a git revision: the io edge in front of {@link loadFleet}. */
import { createHash } from 'node:crypto';
import type { RepoReader } from '../../base/index.js';
import { loadFleet } from '../documents/load-fleet.js';
import type { FleetFile, LoadOptions } from '../documents/load-fleet.js';
import type { Fleet } from '../model.js';
import { readFleetFilesAt } from './git-tree.js';
import { openFleetReader, readFleetTree } from './read-tree.js';
import type { FleetTree } from './read-tree.js';

/**
 * The files File resources name in `source`/`template` (relative to the directory read), as
 * written (placeholders left out: they name a different file per host and are not hashed).
 */
function referencedFiles(fleet: Fleet): string[] {
  const out = new Set<string>();
  const prefix = fleet.root === '' ? '' : `${fleet.root}/`;
  for (const layer of fleet.layers)
    for (const resource of layer.resources) {
      if (resource.type !== 'File') continue;
      for (const field of ['source', 'template']) {
        const value = resource.desired.get(field)?.value;
        if (typeof value !== 'string') continue;
        const joined = (layer.dir === '' ? value : `${layer.dir}/${value}`)
          .split('/')
          .filter((p) => p !== '' && p !== '.')
          .join('/');
        out.add(`${prefix}${joined}`);
      }
    }
  return [...out];
}

/** A loaded fleet with the files and options it was loaded from (for worker threads). */
export interface FleetSource {
  readonly fleet: Fleet;
  readonly files: readonly FleetFile[];
  readonly options: LoadOptions;
}

/** Loads a tree, then hashes the files its File resources name, for the digest. */
async function loadTree(tree: FleetTree, label: string): Promise<Fleet> {
  return (await loadSource(tree, label)).fleet;
}

async function loadSource(tree: FleetTree, label: string): Promise<FleetSource> {
  const options: LoadOptions = {
    label,
    paths: tree.paths,
    links: tree.links,
    oversized: tree.oversized,
    diagnostics: tree.diagnostics ?? [],
  };
  return {
    fleet: await hashSources(loadFleet(tree.files, options), tree),
    files: tree.files,
    options,
  };
}

async function hashSources(fleet: Fleet, tree: FleetTree): Promise<Fleet> {
  if (tree.read === undefined) return fleet;
  const bytes = await tree.read(referencedFiles(fleet));
  if (bytes.size === 0) return fleet;
  const prefix = fleet.root === '' ? '' : `${fleet.root}/`;
  const contents = new Map<string, string>();
  for (const [path, data] of bytes)
    contents.set(
      path.slice(prefix.length),
      `sha256:${createHash('sha256').update(data).digest('hex')}`,
    );
  return { ...fleet, contents };
}

/**
 * Reads and loads the fleet under `dir` (the working tree); `label` names it in messages. With
 * a `reader`, `dir` is a directory of that reader's repository (`''` its root) and the reader's
 * rules (links, size limit, excluded output) apply; otherwise a reader is opened at `dir`.
 */
export async function loadFleetDir(
  dir: string,
  label: string = dir,
  reader?: RepoReader,
): Promise<Fleet> {
  const tree =
    reader === undefined ? readFleetTree(openFleetReader(dir)) : readFleetTree(reader, dir);
  return loadTree(tree, label);
}

/** As {@link loadFleetDir}, keeping the files read (resolution in worker threads loads them). */
export async function loadFleetSource(
  dir: string,
  label: string = dir,
  reader?: RepoReader,
): Promise<FleetSource> {
  const tree =
    reader === undefined ? readFleetTree(openFleetReader(dir)) : readFleetTree(reader, dir);
  return loadSource(tree, label);
}

/** Reads and loads the fleet under `dir` as it was at a git `revision`. */
export async function loadFleetAt(dir: string, revision: string): Promise<Fleet> {
  return loadTree(await readFleetFilesAt(dir, revision), `${dir} at ${revision}`);
}
