/**
 * The filesystem edge of `src/policy`: find the YAML files of a policy directory and parse them.
 * Files are found and read through the shared {@link RepoReader}: links inside the repository
 * are followed once, links that leave it are skipped with a warning, special files (devices,
 * FIFOs) are skipped, and files over the size limit are refused. Everything after this is pure.
 */
import { dirname, join, relative, resolve, sep } from 'node:path';
import { isWithin, LabelwiseError, pushAll, RepoReader } from '../../base/index.js';
import type { Diagnostic, RepoReaderOptions } from '../../base/index.js';
import { readResources } from '../resources/load.js';
import type { ReadOptions } from '../resources/load.js';
import type { YamlDoc } from '../resources/yaml-docs.js';
import { parseYamlDocs } from '../resources/yaml-docs.js';
import type { PolicyProblem, PolicyResources } from '../types.js';

/** Options for {@link loadPolicyDir}; the {@link ReadOptions} go to the loader. */
export interface LoadOptions extends ReadOptions {
  /**
   * The repository: paths in problems are relative to it, and links may not leave it. Default:
   * the policy directory (the directory holding the file, when a file is given).
   */
  root?: string;
  /** Largest file read, in bytes. Default: the reader's 16 MiB. */
  maxFileBytes?: RepoReaderOptions['maxFileBytes'];
}

/** The result of loading: resources, every problem (reading, YAML, admission) and the files read. */
export interface LoadedPolicy {
  resources: PolicyResources;
  problems: PolicyProblem[];
  files: string[];
}

const SKIP_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git']);

function unreadable(shown: string, message: string): LabelwiseError {
  return new LabelwiseError('POLICY_UNREADABLE', `cannot read ${shown}: ${message}`, {
    source: { file: shown },
    hint: 'pass a directory of Kubernetes YAML files',
    kind: 'unavailable',
  });
}

/** Opens the repository reader for `target`, or throws `POLICY_UNREADABLE` (exit 3). */
function openReader(target: string, root: string | undefined, options: LoadOptions): RepoReader {
  const readerOptions =
    options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes };
  try {
    return RepoReader.open(root ?? target, readerOptions);
  } catch (error) {
    if (!(error instanceof LabelwiseError)) throw error;
    if (error.code === 'READ_NOT_A_DIRECTORY' && root === undefined)
      return openReader(target, dirname(target), options);
    if (error.kind === 'unavailable') throw unreadable(target, error.message);
    throw error;
  }
}

/** True for a path with a segment starting with `.` below the listed directory. */
function hidden(path: string, base: string): boolean {
  const below = base === '' ? path : path.slice(base.length + 1);
  return below.split('/').some((segment) => segment.startsWith('.'));
}

/**
 * Reads every `*.yaml`/`*.yml` file under `dir` (recursively, in code-point order; dot-files
 * and dot-directories skipped) or the single file `dir` names, and loads the resources. Throws
 * a LabelwiseError (`POLICY_UNREADABLE`, kind `unavailable`) when `dir` does not exist or
 * cannot be read; every problem met while reading a file (a link out of the repository, a
 * special file, a file over the limit) and in the content is returned instead.
 */
export async function loadPolicyDir(dir: string, options: LoadOptions = {}): Promise<LoadedPolicy> {
  await Promise.resolve(); // the reader is synchronous; the signature stays async for callers
  const target = resolve(dir);
  const root = options.root === undefined ? undefined : resolve(options.root);
  // A policy directory outside the named root is a repository of its own.
  const reader = openReader(
    target,
    root !== undefined && isWithin(target, root) ? root : undefined,
    options,
  );
  const inside = reader.inside(target);
  if (inside === undefined) throw unreadable(dir, 'it lies outside the repository');
  const base = inside === '.' ? '' : inside;
  const kind = reader.kind(base === '' ? '.' : base);
  if (kind === undefined) throw unreadable(dir, 'no such file or directory');
  const files =
    kind === 'file'
      ? [base]
      : reader
          .list(base, { extensions: ['.yaml', '.yml'], skipDirs: SKIP_DIRS })
          .map((entry) => entry.path)
          .filter((path) => !hidden(path, base));
  // Names as the user sees them: relative to the root they named. Inside it the reader's paths
  // already are; a policy directory (or file) outside it is named from the root.
  const inRoot = root !== undefined && isWithin(target, root);
  const readerBase = kind === 'file' && !inRoot ? dirname(target) : target;
  const show = (path: string): string =>
    root === undefined || inRoot
      ? path
      : relative(root, join(readerBase, path)).split(sep).join('/');
  const docs: YamlDoc[] = [];
  const problems: PolicyProblem[] = [];
  for (const file of files) {
    const text = reader.readText(file);
    if (text === undefined) continue;
    const parsed = parseYamlDocs(text, show(file));
    pushAll(docs, parsed.docs);
    pushAll(problems, parsed.problems);
  }
  const readProblems: Diagnostic[] = reader.diagnostics.map((d) =>
    d.file === undefined ? d : { ...d, file: show(d.file) },
  );
  const read = readResources(docs, {
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    ...(options.folderNamespaces === undefined
      ? {}
      : { folderNamespaces: options.folderNamespaces }),
  });
  return {
    resources: read.resources,
    problems: [...readProblems, ...problems, ...read.problems],
    files: files.map(show),
  };
}
