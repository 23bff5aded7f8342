/**
 * `runAnchorDaemon` for the public API, loading the daemon and its I/O (dockerode, nft, HTTP)
 * only when called: importing the anchor module for the static check stays light.
 */
import type { RunOptions } from './run.js';

/** Runs the anchor daemon; see `run.ts`. Resolves to the process exit code. */
export async function runAnchorDaemon(options: RunOptions): Promise<number> {
  const { runAnchorDaemon: run } = await import('./run.js');
  return run(options);
}
