/**
 * Reads a fleet directory as it was at a git revision, without touching the working tree: `git
 * ls-tree` lists the blobs under the directory, `git cat-file --batch` streams their contents.
 * git runs as a child process with argument arrays (no shell), so revision text cannot inject
 * commands; a revision starting with `-` is refused outright.
 */
import { execFile, spawn } from 'node:child_process';
import { LabelwiseError } from '../../base/errors.js';
import { isCandidate } from '../documents/load-fleet.js';
import { MAX_FILE_BYTES, assertDirectory } from './read-tree.js';
import type { FleetTree } from './read-tree.js';

function git(cwd: string, args: readonly string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // The callback gets spawn failures too (ENOENT: no git); the directory was checked first.
    execFile(
      'git',
      [...args],
      { cwd, encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'ENOENT')
            reject(
              new LabelwiseError('FLEET_GIT_UNAVAILABLE', 'git is not installed or not on PATH', {
                kind: 'unavailable',
              }),
            );
          else
            reject(
              new LabelwiseError(
                'FLEET_GIT_FAILED',
                `git ${args[0]} failed: ${stderr.toString('utf8').trim() || error.message}`,
              ),
            );
          return;
        }
        resolve(stdout);
      },
    );
  });
}

/** The repository top level and `dir`'s path inside it (`''` or ending in `/`). */
async function locate(dir: string): Promise<{ top: string; prefix: string }> {
  // Checked first: git run in a missing directory fails as if git itself were missing.
  await assertDirectory(dir);
  const out = (
    await git(dir, ['rev-parse', '--show-toplevel', '--show-prefix']).catch((error: unknown) => {
      if (error instanceof LabelwiseError && /not a git repository/.test(error.message))
        throw new LabelwiseError('FLEET_GIT_FAILED', `${dir} is not inside a git repository`, {
          source: { file: dir },
          hint: '`fleet affected` compares git revisions of a fleet kept in git',
        });
      throw error;
    })
  )
    .toString('utf8')
    .split('\n');
  return { top: out[0] ?? dir, prefix: out[1] ?? '' };
}

/**
 * The YAML files under `dir` at `revision`, paths relative to `dir`. Throws `FLEET_GIT_FAILED`
 * for an unknown revision or a directory outside a git repository.
 */
export async function readFleetFilesAt(dir: string, revision: string): Promise<FleetTree> {
  if (
    revision === '' ||
    revision.startsWith('-') ||
    /\s/.test(revision) ||
    revision.includes('\u0000')
  )
    throw new LabelwiseError('FLEET_BAD_REVISION', `invalid revision ${JSON.stringify(revision)}`);
  const { top, prefix } = await locate(dir);
  const commit = (
    await git(top, [
      'rev-parse',
      '--verify',
      '--quiet',
      '--end-of-options',
      `${revision}^{commit}`,
    ]).catch(() => {
      throw new LabelwiseError(
        'FLEET_BAD_REVISION',
        `unknown revision ${JSON.stringify(revision)}`,
        { hint: 'use a commit, branch or tag name, such as HEAD~1' },
      );
    })
  )
    .toString('utf8')
    .trim();
  const listing = (
    await git(top, [
      'ls-tree',
      '-r',
      '-z',
      '--full-tree',
      '-l',
      commit,
      '--',
      ...(prefix === '' ? [] : [prefix]),
    ])
  ).toString('utf8');
  const blobs: { path: string; sha: string }[] = [];
  const paths: string[] = [];
  const links: string[] = [];
  const oversized: { path: string; size: number }[] = [];
  const others = new Map<string, string>();
  for (const line of listing.split('\u0000')) {
    // `<mode> SP <type> SP <object> SP+ <size> TAB <path>`
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, sha, size] = line.slice(0, tab).split(/ +/);
    const path = line.slice(tab + 1);
    if (type !== 'blob' || sha === undefined || !path.startsWith(prefix)) continue;
    const rel = path.slice(prefix.length);
    paths.push(rel);
    if (!isCandidate(rel)) {
      if (mode !== '120000' && Number(size) <= MAX_FILE_BYTES) others.set(rel, sha);
      continue;
    }
    // A symbolic link is a blob holding the target's name: never read, as on disk.
    if (mode === '120000') {
      links.push(rel);
      continue;
    }
    if (Number(size) > MAX_FILE_BYTES) {
      oversized.push({ path: rel, size: Number(size) });
      continue;
    }
    blobs.push({ path: rel, sha });
  }
  const contents = await catBlobs(
    top,
    blobs.map((b) => b.sha),
  );
  return {
    files: blobs.map((b, i) => ({ path: b.path, bytes: contents[i] as Buffer })),
    paths,
    links,
    oversized,
    read: async (wanted) => {
      const found = wanted.filter((path) => others.has(path));
      const data = await catBlobs(
        top,
        found.map((path) => others.get(path) as string),
      );
      return new Map(found.map((path, i) => [path, data[i] as Buffer]));
    },
  };
}

/** Reads blobs through one `git cat-file --batch` process, in order. */
function catBlobs(cwd: string, shas: readonly string[]): Promise<Buffer[]> {
  if (shas.length === 0) return Promise.resolve([]);
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['cat-file', '--batch'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', () =>
      reject(
        new LabelwiseError('FLEET_GIT_UNAVAILABLE', 'git is not installed or not on PATH', {
          kind: 'unavailable',
        }),
      ),
    );
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new LabelwiseError('FLEET_GIT_FAILED', `git cat-file failed: ${stderr.trim()}`));
        return;
      }
      const all = Buffer.concat(chunks);
      const out: Buffer[] = [];
      let at = 0;
      for (let i = 0; i < shas.length; i++) {
        const eol = all.indexOf(10, at);
        const header = all.subarray(at, eol).toString('utf8').split(' ');
        const size = Number(header[2]);
        if (header[1] !== 'blob' || !Number.isFinite(size)) {
          reject(
            new LabelwiseError('FLEET_GIT_FAILED', `git cat-file returned ${header.join(' ')}`),
          );
          return;
        }
        out.push(all.subarray(eol + 1, eol + 1 + size));
        at = eol + 1 + size + 1;
      }
      resolve(out);
    });
    child.stdin.end(shas.join('\n') + '\n');
  });
}
