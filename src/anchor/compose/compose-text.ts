/**
 * The text rules of Compose the anchor check needs: project names and command splitting. Pure.
 * (Interpolation is in `interpolate.ts`, `.env` files in `dotenv.ts`.)
 */

/**
 * Compose's project-name normalisation (compose-go `NormalizeProjectName`): lower case, only
 * `a-z0-9_-` kept, leading `_` and `-` dropped. Used for names from `name:` and the directory.
 */
export function normalizeProjectName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '')
    .replace(/^[_-]+/, '');
}

/**
 * Whether a name given explicitly (`--project`, `COMPOSE_PROJECT_NAME`) is valid as it stands:
 * Compose refuses, rather than normalises, those.
 */
export function isValidProjectName(name: string): boolean {
  return name !== '' && normalizeProjectName(name) === name;
}

/** Splits a command string like a simple shell would (whitespace, single and double quotes). */
export function splitCommand(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoteChar: string | undefined;
  let has = false;
  for (const char of text) {
    if (quoteChar !== undefined) {
      if (char === quoteChar) quoteChar = undefined;
      else current += char;
    } else if (char === '"' || char === "'") {
      quoteChar = char;
      has = true;
    } else if (/\s/.test(char)) {
      if (has || current !== '') out.push(current);
      current = '';
      has = false;
    } else {
      current += char;
    }
  }
  if (has || current !== '') out.push(current);
  return out;
}

/** Whether a path is a remote reference Compose would fetch (git, OCI, a URL). */
export function isRemoteReference(path: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(path) || path.startsWith('git@');
}
