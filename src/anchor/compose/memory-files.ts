/**
 * A {@link ComposeFileSystem} over files held in memory (for library users and tests), with
 * the shared reader's rules for paths: repository-relative with `/`, nothing outside the root.
 */
import { posix } from 'node:path';
import type { Diagnostic } from '../../base/index.js';
import type { ComposeFileSystem } from './compose-file.js';

/** Files keyed by repository-relative path. */
export function memoryFileSystem(files: Readonly<Record<string, string>>): ComposeFileSystem {
  const byPath = new Map<string, string>();
  for (const [path, text] of Object.entries(files)) byPath.set(posix.normalize(path), text);
  const diagnostics: Diagnostic[] = [];
  const outside = (path: string): boolean =>
    posix.isAbsolute(path) || posix.normalize(path).startsWith('../') || path === '..';
  return {
    diagnostics,
    exists: (path) => !outside(path) && byPath.has(posix.normalize(path)),
    readText(path) {
      if (outside(path)) {
        diagnostics.push({
          severity: 'warning',
          code: 'READ_OUTSIDE_REPOSITORY',
          file: path,
          message: 'path leaves the repository; skipped',
        });
        return undefined;
      }
      const text = byPath.get(posix.normalize(path));
      if (text === undefined)
        diagnostics.push({
          severity: 'error',
          code: 'READ_UNREADABLE',
          file: path,
          message: 'cannot read: no such file or directory',
        });
      return text;
    },
  };
}
