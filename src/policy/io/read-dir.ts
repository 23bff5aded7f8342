/**
 * The filesystem edge of `src/policy`: find the YAML files of a policy directory and parse them.
 * Everything after this is pure.
 */
import { open, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { LabelwiseError } from '../../base/errors.js';
import { compareStrings } from '../../selector/index.js';
import { readResources } from '../resources/load.js';
import type { YamlDoc } from '../resources/yaml-docs.js';
import { parseYamlDocs } from '../resources/yaml-docs.js';
import type { PolicyProblem, PolicyResources } from '../types.js';

/** Files larger than this are refused rather than parsed (hostile or generated input). */
const MAX_FILE_BYTES = 16 * 1024 * 1024;

async function listYaml(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => compareStrings(a.name, b.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listYaml(path)));
    else if (/\.ya?ml$/.test(entry.name)) {
      // Symlinked files are read; symlinked directories are not followed (no loops).
      const isFile =
        entry.isFile() ||
        (entry.isSymbolicLink() &&
          (await stat(path).then(
            (s) => s.isFile(),
            () => false,
          )));
      if (isFile) out.push(path);
    }
  }
  return out;
}

/**
 * Reads a file as UTF-8, or undefined when it holds more than {@link MAX_FILE_BYTES}. Reads in
 * chunks and stops past the limit, so a device or pipe given as the file (`/dev/zero`, whose
 * size says 0) cannot exhaust memory.
 */
async function readBounded(file: string): Promise<string | undefined> {
  const handle = await open(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > MAX_FILE_BYTES) return undefined;
      chunks.push(Buffer.from(buffer.subarray(0, bytesRead)));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Options for {@link loadPolicyDir}. */
export interface LoadOptions {
  /** Paths in problems are relative to this directory. Default: the policy directory. */
  root?: string;
}

/**
 * Reads every `*.yaml`/`*.yml` file under `dir` (recursively, in sorted order; dot-files
 * skipped) or the single file `dir` names, and loads the resources. Throws a LabelwiseError
 * (`POLICY_UNREADABLE`, kind `unavailable`) when the directory or a file cannot be read; every
 * problem in the content is returned instead.
 */
export async function loadPolicyDir(
  dir: string,
  options: LoadOptions = {},
): Promise<{ resources: PolicyResources; problems: PolicyProblem[]; files: string[] }> {
  const root = options.root ?? dir;
  let files: string[];
  try {
    files = (await stat(dir)).isDirectory() ? await listYaml(dir) : [dir];
  } catch (error) {
    throw new LabelwiseError(
      'POLICY_UNREADABLE',
      `cannot read ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { file: dir },
      'pass a directory of Kubernetes YAML files',
      'unavailable',
    );
  }
  const docs: YamlDoc[] = [];
  const problems: PolicyProblem[] = [];
  const names: string[] = [];
  for (const file of files) {
    const name = relative(root, file).split(sep).join('/') || file;
    names.push(name);
    let text: string | undefined;
    try {
      const info = await stat(file);
      const size = info.size > MAX_FILE_BYTES ? info.size : undefined;
      text = size === undefined ? await readBounded(file) : undefined;
      if (text === undefined) {
        problems.push({
          severity: 'error',
          code: 'POLICY_FILE_TOO_LARGE',
          file: name,
          line: 1,
          message:
            size === undefined
              ? `file is larger than the limit of ${MAX_FILE_BYTES} bytes`
              : `file is ${size} bytes; the limit is ${MAX_FILE_BYTES}`,
        });
        continue;
      }
    } catch (error) {
      throw new LabelwiseError(
        'POLICY_UNREADABLE',
        `cannot read ${name}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        { file: name },
        undefined,
        'unavailable',
      );
    }
    const parsed = parseYamlDocs(text, name);
    docs.push(...parsed.docs);
    problems.push(...parsed.problems);
  }
  const read = readResources(docs);
  return { resources: read.resources, problems: [...problems, ...read.problems], files: names };
}
