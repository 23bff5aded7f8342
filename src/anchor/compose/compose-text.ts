/**
 * The text rules of Compose the anchor check needs: project-name normalisation, command
 * splitting, `.env` files and variable interpolation. Pure.
 */

/** Compose's project-name normalisation: lower case, only `a-z0-9_-`, starting alphanumeric. */
export function normalizeProjectName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '')
    .replace(/^[^a-z0-9]+/, '');
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

/** Parses a `.env` file: `KEY=VALUE` lines, `#` comments, optional `export `, quotes stripped. */
export function parseDotEnv(text: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$/.exec(line);
    if (match === null) continue;
    let value = match[2] as string;
    if (/^"(.*)"$/.test(value) || /^'(.*)'$/.test(value)) value = value.slice(1, -1);
    else value = value.replace(/\s+#.*$/, '');
    out[match[1] as string] = value;
  }
  return out;
}

/**
 * Interpolates Compose variables. Returns the text and the problems: a missing variable becomes
 * the empty string (a warning, as Compose does), `${VAR:?msg}` on a missing one is an error.
 */
export function interpolate(
  text: string,
  variables: Readonly<Record<string, string | undefined>>,
): { text: string; problems: { severity: 'error' | 'warning'; message: string }[] } {
  const problems: { severity: 'error' | 'warning'; message: string }[] = [];
  const lookup = (name: string): string | undefined => {
    const value = Object.prototype.hasOwnProperty.call(variables, name)
      ? variables[name]
      : undefined;
    return typeof value === 'string' ? value : undefined;
  };
  const out = text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (
      whole,
      braced: string | undefined,
      op: string | undefined,
      arg: string | undefined,
      bare: string | undefined,
    ) => {
      if (whole === '$$') return '$';
      const name = (braced ?? bare) as string;
      const value = lookup(name);
      if (op === undefined) {
        if (value === undefined)
          problems.push({
            severity: 'warning',
            message: `variable ${name} is not set; using an empty string`,
          });
        return value ?? '';
      }
      const unsetOrEmpty = op.startsWith(':')
        ? value === undefined || value === ''
        : value === undefined;
      if (op.endsWith('-')) return unsetOrEmpty ? (arg ?? '') : (value as string);
      if (unsetOrEmpty)
        problems.push({
          severity: 'error',
          message: `required variable ${name} is missing: ${arg ?? ''}`,
        });
      return value ?? '';
    },
  );
  return { text: out, problems };
}
