/**
 * Finds the parts a repository holds: a fleet (`fleet/`), a catalog (`catalog/`, with rendered
 * `apps/` beside it when checked in), policy YAML (`policy/`), and Compose files with anchors
 * (`compose/`, or Compose files at the top; anchor/io/compose-files.ts says which are read). A
 * `labelwise.yaml` at the root may name other places and list Compose projects (see config.ts). Looks through the repository reader, so a part that is a link leaving
 * the repository is skipped with a warning, never read.
 */
import { join } from 'node:path';
import type { RepoReader } from '../base/index.js';
import type { PartPaths } from './config.js';

export interface RepoParts {
  readonly fleet?: string;
  readonly catalog?: { readonly dir: string; readonly apps?: string };
  readonly policy?: string;
  readonly compose?: string;
}

const COMPOSE_FILE = /^(docker-)?compose.*\.ya?ml$/;

/**
 * The parts present, as absolute directories. `paths` are repository-relative overrides;
 * `listedCompose` says labelwise.yaml lists Compose projects, which makes the root the Compose
 * part when no folder is named.
 */
export function detectParts(
  reader: RepoReader,
  paths: PartPaths = {},
  listedCompose = false,
): RepoParts {
  const parts: {
    fleet?: string;
    catalog?: { dir: string; apps?: string };
    policy?: string;
    compose?: string;
  } = {};
  const dirAt = (path: string): string | undefined =>
    reader.kind(path) === 'dir' ? join(reader.root, path) : undefined;
  parts.fleet = dirAt(paths.fleet ?? 'fleet');
  // A catalog/ folder is the catalog part even without platform.yaml: its stage reports the
  // missing platform instead of the build skipping broken definitions in silence.
  const catalog = dirAt(paths.catalog ?? 'catalog');
  if (catalog !== undefined) {
    const apps = dirAt(paths.apps ?? 'apps');
    parts.catalog = apps === undefined ? { dir: catalog } : { dir: catalog, apps };
  }
  // A named YAML file is a policy part too: `kubectl apply -f booksapp.yml` applies that file,
  // not the alternatives beside it.
  const policyFile =
    paths.policy !== undefined &&
    /\.ya?ml$/.test(paths.policy) &&
    reader.kind(paths.policy) === 'file'
      ? join(reader.root, paths.policy)
      : undefined;
  parts.policy = dirAt(paths.policy ?? 'policy') ?? policyFile;
  parts.compose = dirAt(paths.compose ?? 'compose');
  if (parts.compose === undefined && paths.compose === undefined) {
    const top = reader.list('', { recursive: false });
    if (listedCompose || top.some((entry) => COMPOSE_FILE.test(entry.path)))
      parts.compose = reader.root;
  }
  for (const key of Object.keys(parts) as (keyof RepoParts)[])
    if (parts[key] === undefined) delete parts[key];
  return parts;
}
