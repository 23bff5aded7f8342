/**
 * The project name, by Compose's rules (compose-go `projectName` and the CLI's
 * `withNamePrecedenceLoad`): `--project`, else `COMPOSE_PROJECT_NAME` from the shell or `.env`
 * (both refused when invalid, never normalised), else the last `name:` (interpolated and
 * normalised), else the directory name (normalised). Pure.
 */
import type { Report } from './compose-model.js';
import { isValidProjectName, normalizeProjectName } from './compose-text.js';
import { scalarString } from './compose-tree.js';
import type { Where } from './compose-tree.js';
import type { PreparedTree } from './compose-file.js';
import { interpolate } from './interpolate.js';

/** Line of each key in a dotenv text (for pointing at `COMPOSE_PROJECT_NAME`). */
export function keyLines(text: string): Map<string, number> {
  const out = new Map<string, number>();
  text.split('\n').forEach((line, i) => {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]/.exec(line);
    if (match !== null) out.set(match[1] as string, i + 1);
  });
  return out;
}

export function projectName(
  options: {
    readonly files: readonly string[];
    readonly project?: string | undefined;
    readonly environment?: Readonly<Record<string, string | undefined>>;
    readonly directoryName: string;
  },
  trees: readonly PreparedTree[],
  variables: ReadonlyMap<string, string>,
  dotEnvLines: ReadonlyMap<string, number>,
  dotEnvPath: string,
  report: Report,
): string {
  const first = options.files[0] ?? 'compose.yaml';
  const refuse = (value: string, source: string, where: Where): string => {
    report(
      'error',
      'ANCHOR_INVALID_PROJECT_NAME',
      `invalid project name ${JSON.stringify(value)} (from ${source}): use lower-case letters, digits, "_" and "-", starting with a letter or digit`,
      where,
    );
    return normalizeProjectName(value) || 'default';
  };
  if (options.project !== undefined) {
    return isValidProjectName(options.project)
      ? options.project
      : refuse(options.project, '--project', { file: first, line: 1, column: 1 });
  }
  const fromEnv = variables.get('COMPOSE_PROJECT_NAME');
  if (fromEnv !== undefined && fromEnv !== '') {
    if (isValidProjectName(fromEnv)) return fromEnv;
    const line = dotEnvLines.get('COMPOSE_PROJECT_NAME');
    const fromShell = options.environment?.COMPOSE_PROJECT_NAME === fromEnv;
    return refuse(
      fromEnv,
      'COMPOSE_PROJECT_NAME',
      fromShell || line === undefined
        ? { file: first, line: 1, column: 1 }
        : { file: dotEnvPath, line, column: 1 },
    );
  }
  let declared: { text: string; where: Where } | undefined;
  for (const { tree } of trees) {
    const node = tree.entries.get('name')?.value;
    const text = scalarString(node);
    if (node !== undefined && text !== undefined && text !== '')
      declared = { text, where: node.where };
  }
  if (declared !== undefined) {
    const result = interpolate(declared.text, (n) => variables.get(n));
    for (const p of result.problems)
      report(p.severity, 'ANCHOR_COMPOSE_VARIABLE', p.message, declared.where);
    const normal = normalizeProjectName(result.text);
    if (normal !== '') return normal;
  }
  const fromDirectory = normalizeProjectName(options.directoryName);
  if (fromDirectory !== '') return fromDirectory;
  report(
    'error',
    'ANCHOR_INVALID_PROJECT_NAME',
    'project name must not be empty: the directory name has no letter or digit',
    { file: first, line: 1, column: 1 },
  );
  return 'default';
}
