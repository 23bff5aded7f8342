// In-process CLI runs and temporary trees for the fleet CLI tests.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';
import { tempDirSync } from '../support/temp.js';

export const EXAMPLE = 'examples/homelab/fleet';

/** Runs `labelwise fleet …` in-process. */
export async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO();
  const code = await run(['fleet', ...argv], io);
  return { code, out: io.out, err: io.err };
}

/** Writes files (paths relative, `/`) into a new temporary directory and returns it. */
export function tempTree(files: Record<string, string>): string {
  const dir = tempDirSync('labelwise-fleet');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Runs git in `dir` as a throwaway committer (no global config, no signing), output ignored. */
export function gitIn(dir: string, ...args: string[]): void {
  execFileSync(
    'git',
    [
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@example.invalid',
      '-c',
      'commit.gpgsign=false',
      ...args,
    ],
    { cwd: dir, stdio: 'ignore' },
  );
}

/** Makes `dir` a git repository whose one commit holds every file in it. */
export function commitAllIn(dir: string, message = 'one'): void {
  gitIn(dir, 'init', '-q');
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-q', '-m', message);
}

/** `validate`'s text output without its header (fleet name, schema, counts, layers' reach). */
export function body(out: string): string {
  if (!out.startsWith('fleet ')) return out;
  const end = out.indexOf('\n\n');
  return end < 0 ? out : out.slice(end + 2);
}
