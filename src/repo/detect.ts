/**
 * Finds the parts a repository holds (issue 7): a fleet (`fleet/`), a catalog
 * (`catalog/`, with rendered `apps/` beside it when checked in), policy YAML
 * (`policy/`), and Compose files with anchors (`compose/` or `compose*.yaml` at the top).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface RepoParts {
  readonly fleet?: string;
  readonly catalog?: { readonly dir: string; readonly apps?: string };
  readonly policy?: string;
  readonly compose?: string;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}


/** Looks at the top of `repo` only; each module's own discovery reads deeper. */
export async function detectParts(repo: string): Promise<RepoParts> {
  const parts: {
    fleet?: string;
    catalog?: { dir: string; apps?: string };
    policy?: string;
    compose?: string;
  } = {};
  if (await isDirectory(join(repo, 'fleet'))) parts.fleet = join(repo, 'fleet');
  // A catalog/ folder is the catalog part even without platform.yaml: its stage reports the
  // missing platform instead of the build skipping broken definitions in silence.
  if (await isDirectory(join(repo, 'catalog'))) {
    const apps = join(repo, 'apps');
    parts.catalog = (await isDirectory(apps))
      ? { dir: join(repo, 'catalog'), apps }
      : { dir: join(repo, 'catalog') };
  }
  if (await isDirectory(join(repo, 'policy'))) parts.policy = join(repo, 'policy');
  if (await isDirectory(join(repo, 'compose'))) parts.compose = join(repo, 'compose');
  else {
    const top = await readdir(repo);
    if (top.some((name) => /^(docker-)?compose.*\.ya?ml$/.test(name))) parts.compose = repo;
  }
  return parts;
}
