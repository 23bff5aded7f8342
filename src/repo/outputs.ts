/**
 * Writes the build's output directory all at once: everything goes to a fresh sibling
 * directory first, which then replaces `--out` by rename, so a failure never leaves a half
 * written tree. A directory is only replaced when it is empty or was written by labelwise
 * (it holds the marker file), so `--out .` cannot wipe a user's work.
 */
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize, resolve } from 'node:path';
import { LabelwiseError } from '../base/errors.js';

export const MARKER = '.labelwise-build';

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Checks that `relative` stays inside the output directory (stage outputs are data too). */
function safeRelative(relative: string): string {
  const clean = normalize(relative);
  if (
    isAbsolute(clean) ||
    clean === '..' ||
    clean.startsWith('../') ||
    clean.startsWith('..\\') ||
    clean === '.'
  ) {
    throw new Error(`build output path escapes the output directory: ${relative}`);
  }
  return clean;
}

/** Replaces `outDir` with exactly `files` (path → content). */
export async function writeOutputDirectory(
  outDir: string,
  files: Readonly<Record<string, string>>,
): Promise<void> {
  const target = resolve(outDir);
  if (await exists(target)) {
    const info = await stat(target);
    if (!info.isDirectory()) {
      throw new LabelwiseError(
        'BUILD_OUT_NOT_DIRECTORY',
        `${outDir} exists and is not a directory`,
        {},
        'choose another --out',
      );
    }
    const entries = await readdir(target);
    if (entries.length > 0 && !entries.includes(MARKER)) {
      throw new LabelwiseError(
        'BUILD_OUT_NOT_OURS',
        `refusing to replace ${outDir}: it is not empty and was not written by labelwise build`,
        {},
        'choose an empty or new directory for --out',
      );
    }
  }
  const staging = join(dirname(target), `.${basename(target)}.tmp-${process.pid}`);
  await rm(staging, { recursive: true, force: true });
  try {
    await mkdir(staging, { recursive: true });
    await writeFile(join(staging, MARKER), 'written by labelwise build; safe to delete\n');
    for (const relative of Object.keys(files).sort()) {
      const path = join(staging, safeRelative(relative));
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, files[relative] as string);
    }
    const previous = `${staging}.old`;
    const hadTarget = await exists(target);
    if (hadTarget) await rename(target, previous);
    await rename(staging, target);
    if (hadTarget) await rm(previous, { recursive: true, force: true });
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}
