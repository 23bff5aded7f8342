/**
 * The one way labelwise reads a user's repository. Every module lists and reads its files through
 * a {@link RepoReader}, which:
 * - never follows a symbolic link whose target leaves the repository root (it warns and skips),
 *   and never loops on links;
 * - never opens special files (devices, FIFOs, sockets) nor anything under `/proc`, `/sys` or
 *   `/dev`, whose "regular" files hold process secrets;
 * - applies one size limit to every file;
 * - never reads labelwise's own output directory;
 * - names files relative to the repository root, with `/`.
 * Problems come back as diagnostics (a skipped link is a warning, an unreadable file an error);
 * only a repository root that cannot be read at all throws.
 */
import type { Code } from '../codes.js';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  readdirSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Diagnostic } from '../diagnostic.js';
import { LabelwiseError } from '../errors.js';
import { compareText, escapeBytes, escapeControl } from '../text.js';

export const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024;

/** Where the kernel exposes process state and devices as files: never read, never written. */
export const SYSTEM_TREES = ['/proc', '/sys', '/dev'] as const;

export interface RepoReaderOptions {
  /** Largest file read, in bytes. Default 16 MiB. */
  readonly maxFileBytes?: number;
  /** Absolute paths never read (labelwise's own output directory). */
  readonly excluded?: readonly string[];
}

/** A regular file found by {@link RepoReader.list}. */
export interface RepoEntry {
  /** Relative to the repository root, with `/`. */
  readonly path: string;
  readonly size: number;
}

export interface ListOptions {
  /** Keep only files whose name ends with one of these (`.yaml`). Default: every file. */
  readonly extensions?: readonly string[];
  /** Directory names not descended into (`.git`, `node_modules`). */
  readonly skipDirs?: ReadonlySet<string>;
  /** Descend into subdirectories. Default true. */
  readonly recursive?: boolean;
  /**
   * Paths (repository-relative, with `/`) neither listed nor descended into, decided before
   * anything at the path is looked at: a fleet's excluded folders are never walked.
   */
  readonly prune?: (path: string) => boolean;
}

/** True when `path` is `tree` or lies below it (both absolute and normalised). */
export function isWithin(path: string, tree: string): boolean {
  if (path === tree) return true;
  const base = tree.endsWith(sep) ? tree : tree + sep;
  return path.startsWith(base);
}

export function isSystemPath(real: string): boolean {
  return SYSTEM_TREES.some((tree) => isWithin(real, tree));
}

function errnoText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR') return 'not a directory';
  if (code === 'ELOOP') return 'too many levels of symbolic links';
  return code ?? String(error);
}

export class RepoReader {
  /** The repository root, as a real path (links resolved). */
  readonly root: string;
  /** Warnings and errors met while listing and reading, in the order met. */
  readonly diagnostics: Diagnostic[] = [];
  private readonly maxFileBytes: number;
  private readonly excluded: readonly string[];
  private readonly reported = new Set<string>();
  /** How many directories were listed and files opened: proves what a walk did not touch. */
  readonly counts = { directories: 0, files: 0 };

  private constructor(root: string, options: RepoReaderOptions) {
    this.root = root;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.excluded = (options.excluded ?? []).map((p) => {
      const abs = resolve(p);
      try {
        return realpathSync(abs);
      } catch {
        return abs;
      }
    });
  }

  /**
   * Opens the repository at `root` (which may itself be a symbolic link). Throws an
   * `unavailable` error (exit 3) when it does not exist or cannot be read, and an input error
   * when it is not a directory or lies in a system tree.
   */
  static open(root: string, options: RepoReaderOptions = {}): RepoReader {
    let real: string;
    try {
      real = realpathSync(resolve(root));
    } catch (error) {
      throw new LabelwiseError(
        'READ_UNREADABLE',
        `cannot read ${escapeControl(root, true)}: ${errnoText(error)}`,
        { source: { file: root }, kind: 'unavailable' },
      );
    }
    if (isSystemPath(real))
      throw new LabelwiseError(
        'READ_SYSTEM_PATH',
        `refusing to read ${escapeControl(root, true)}: it lies in ${real.split('/').slice(0, 2).join('/')}, which holds kernel and process state, not a repository`,
        { source: { file: root } },
      );
    if (!statSync(real).isDirectory())
      throw new LabelwiseError(
        'READ_NOT_A_DIRECTORY',
        `${escapeControl(root, true)} is not a directory`,
        { source: { file: root }, hint: 'name the repository directory, not a file in it' },
      );
    return new RepoReader(real, options);
  }

  private note(
    severity: Diagnostic['severity'],
    code: Code,
    path: string,
    message: string,
    hint?: string,
  ): void {
    const key = `${code}\u0000${path}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.diagnostics.push({ severity, code, file: path, message, hint });
  }

  /** The absolute path of a repository-relative one; undefined when it would leave the root. */
  private absolute(path: string): string | undefined {
    const abs = resolve(this.root, path);
    return isWithin(abs, this.root) ? abs : undefined;
  }

  /** `path` as shown to the user: relative to the root with `/`. */
  relative(abs: string): string {
    const rel = relative(this.root, abs);
    return rel === '' ? '.' : rel.split(sep).join('/');
  }

  /**
   * Where a repository path really leads, when reading it is allowed: inside the root, outside
   * the excluded trees and system trees. Records why when it is not.
   */
  private realTarget(path: string): string | undefined {
    const abs = this.absolute(path);
    if (abs === undefined) {
      this.note('warning', 'READ_OUTSIDE_REPOSITORY', path, 'path leaves the repository; skipped');
      return undefined;
    }
    let real: string;
    try {
      real = realpathSync(abs);
    } catch (error) {
      const link = (() => {
        try {
          return lstatSync(abs).isSymbolicLink();
        } catch {
          return false;
        }
      })();
      if (link)
        this.note(
          'warning',
          'READ_BROKEN_SYMLINK',
          path,
          `symbolic link cannot be followed (${errnoText(error)}); skipped`,
        );
      return undefined;
    }
    if (!isWithin(real, this.root) || isSystemPath(real)) {
      this.note(
        'warning',
        'READ_SYMLINK_OUTSIDE',
        path,
        'symbolic link leads outside the repository; skipped',
        'copy the file into the repository, or link to a file inside it',
      );
      return undefined;
    }
    if (this.excluded.some((tree) => isWithin(real, tree))) return undefined;
    return real;
  }

  /** What `path` is, following links inside the repository: 'file', 'dir', or undefined. */
  kind(path: string): 'file' | 'dir' | undefined {
    const real = this.realTarget(path);
    if (real === undefined) return undefined;
    try {
      const info = statSync(real);
      return info.isFile() ? 'file' : info.isDirectory() ? 'dir' : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Regular files under the repository directory `dir` ('' or '.' for the root), sorted by code
   * point. Links inside the repository are followed (each real directory once); links that leave
   * it, special files and excluded trees are skipped, with a warning for the first two.
   */
  list(dir: string, options: ListOptions = {}): RepoEntry[] {
    const found: RepoEntry[] = [];
    const visited = new Set<string>();
    const start = dir === '' || dir === '.' ? '' : dir.replace(/\/+$/, '');
    const walk = (rel: string): void => {
      const real = this.realTarget(rel === '' ? '.' : rel);
      if (real === undefined || visited.has(real)) return;
      visited.add(real);
      let raw: Buffer[];
      try {
        this.counts.directories++;
        // Names as bytes: a name that is not UTF-8 would otherwise decode to U+FFFD and vanish.
        raw = readdirSync(real, { encoding: 'buffer' });
      } catch (error) {
        this.note(
          'error',
          'READ_UNREADABLE',
          rel || '.',
          `cannot read directory: ${errnoText(error)}`,
        );
        return;
      }
      const names = this.decodeNames(raw, real, rel, options);
      for (const name of names) {
        const path = rel === '' ? name : `${rel}/${name}`;
        if (options.prune?.(path) === true) continue;
        const target = this.realTarget(path);
        if (target === undefined) continue;
        let info;
        try {
          info = statSync(target);
        } catch (error) {
          this.note('error', 'READ_UNREADABLE', path, `cannot read: ${errnoText(error)}`);
          continue;
        }
        if (info.isDirectory()) {
          if (options.recursive !== false && !options.skipDirs?.has(name)) walk(path);
        } else if (!info.isFile()) {
          if (matches(name, options.extensions))
            this.note(
              'warning',
              'READ_SPECIAL_FILE',
              path,
              'not a regular file (device, FIFO or socket); skipped',
            );
        } else if (matches(name, options.extensions)) found.push({ path, size: info.size });
      }
    };
    walk(start);
    return found;
  }

  /**
   * The names of one directory that are UTF-8, sorted. Every other name is an error naming it
   * escaped (`kubectl apply -f` would still apply such a file, so it is never skipped in
   * silence); a folder is reported whatever it holds, a file when it would have been listed.
   * Names stay strings everywhere else, so such a file cannot be opened by name afterwards.
   */
  private decodeNames(
    raw: readonly Buffer[],
    real: string,
    rel: string,
    options: ListOptions,
  ): string[] {
    const names: string[] = [];
    for (const bytes of raw) {
      const name = bytes.toString('utf8');
      if (Buffer.from(name, 'utf8').equals(bytes)) {
        names.push(name);
        continue;
      }
      const shown = `${rel === '' ? '' : `${rel}/`}${escapeBytes(bytes)}`;
      let folder = false;
      try {
        folder = statSync(Buffer.concat([Buffer.from(`${real}/`), bytes])).isDirectory();
      } catch {
        // A dangling link or a vanished file: reported as a file.
      }
      if (folder || matches(name, options.extensions))
        this.note(
          // A manifest (what `kubectl apply -f` would apply) or a folder fails the build.
          folder || /\.(ya?ml|json)$/i.test(name) ? 'error' : 'warning',
          'READ_NAME_NOT_UTF8',
          shown,
          `${folder ? 'folder' : 'file'} name is not valid UTF-8; ${folder ? 'nothing in it is' : 'it is not'} read`,
          'rename it (git mv) to a UTF-8 name',
        );
    }
    return names.sort(compareText);
  }

  /**
   * The bytes of the repository file `path`, or undefined (with a diagnostic) when it may not or
   * cannot be read: a link out of the repository, a special file, a file over the size limit.
   */
  readBytes(path: string): Buffer | undefined {
    const real = this.realTarget(path);
    if (real === undefined) {
      if (this.absolute(path) !== undefined && !this.exists(path))
        this.note('error', 'READ_UNREADABLE', path, 'cannot read: no such file or directory');
      return undefined;
    }
    let fd: number;
    try {
      this.counts.files++;
      // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: the real path is final.
      fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    } catch (error) {
      this.note('error', 'READ_UNREADABLE', path, `cannot read: ${errnoText(error)}`);
      return undefined;
    }
    try {
      const info = fstatSync(fd);
      if (info.isDirectory()) {
        this.note('error', 'READ_IS_A_DIRECTORY', path, 'is a directory, not a file');
        return undefined;
      }
      if (!info.isFile()) {
        this.note(
          'warning',
          'READ_SPECIAL_FILE',
          path,
          'not a regular file (device, FIFO or socket); skipped',
        );
        return undefined;
      }
      if (info.size > this.maxFileBytes) {
        this.note(
          'error',
          'READ_TOO_LARGE',
          path,
          `file is ${info.size} bytes, over the limit of ${this.maxFileBytes}`,
          'split the file, or move it out of the folders labelwise reads',
        );
        return undefined;
      }
      // Read up to one byte past the limit: a file that grows while we read is still bounded.
      const buffer = Buffer.alloc(Math.min(info.size, this.maxFileBytes) + 1);
      let total = 0;
      for (;;) {
        const n = readSync(fd, buffer, total, buffer.length - total, null);
        if (n === 0) break;
        total += n;
        if (total === buffer.length) break;
      }
      if (total > this.maxFileBytes) {
        this.note(
          'error',
          'READ_TOO_LARGE',
          path,
          `file is over the limit of ${this.maxFileBytes} bytes`,
        );
        return undefined;
      }
      return buffer.subarray(0, total);
    } catch (error) {
      this.note('error', 'READ_UNREADABLE', path, `cannot read: ${errnoText(error)}`);
      return undefined;
    } finally {
      closeSync(fd);
    }
  }

  /** The file's text as UTF-8 (a byte-order mark dropped), or undefined as for {@link readBytes}. */
  readText(path: string): string | undefined {
    const bytes = this.readBytes(path);
    if (bytes === undefined) return undefined;
    const text = bytes.toString('utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  /** True when something (a file, directory or link) is at `path`, without following links. */
  exists(path: string): boolean {
    const abs = this.absolute(path);
    if (abs === undefined) return false;
    try {
      lstatSync(abs);
      return true;
    } catch {
      return false;
    }
  }

  /** A repository path for a path the user gave (absolute or relative to `cwd`), if inside. */
  inside(path: string, cwd = process.cwd()): string | undefined {
    const abs = isAbsolute(path) ? path : join(cwd, path);
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      real = resolve(abs);
    }
    return isWithin(real, this.root) ? this.relative(real) : undefined;
  }
}

function matches(name: string, extensions: readonly string[] | undefined): boolean {
  return extensions === undefined || extensions.some((ext) => name.endsWith(ext));
}
