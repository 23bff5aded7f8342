// What the policy CLI tests share: the example's directory, its web identity, and an in-process run.
import { fileURLToPath } from 'node:url';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DIR = 'examples/homelab/policy';
export const WEB = 'web.booksapp.serviceaccount.identity.linkerd.cluster.local';

/** `labelwise policy …argv` through the real dispatcher, from the repository root. */
export async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO({ cwd: ROOT });
  const code = await run(['policy', ...argv], io);
  return { code, out: io.out, err: io.err };
}
