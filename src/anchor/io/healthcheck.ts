/**
 * The container health check of the anchor image (`node dist/anchor/io/healthcheck.js`):
 * asks `/readyz` on the address the daemon listens on, read from the same `ANCHORD_METRICS_ADDR`
 * the daemon uses, so changing that variable never makes a healthy anchor look unhealthy.
 * Exit 0 ready (or endpoints disabled: nothing to ask), 1 not ready or unreachable.
 */
import { pathToFileURL } from 'node:url';
import { LabelwiseError } from '../../base/errors.js';
import { parseListenAddress } from '../config.js';

/**
 * The URL of `/readyz` for an environment, or undefined when the endpoints are disabled (`""`)
 * or the address is invalid (the daemon itself would not start). A wildcard listen address is
 * asked on loopback. Pure; never throws.
 */
export function readyzUrl(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const text =
    env.ANCHORD_METRICS_ADDR === undefined ? '127.0.0.1:9090' : env.ANCHORD_METRICS_ADDR.trim();
  if (text === '') return undefined;
  let address: { host: string; port: number };
  try {
    address = parseListenAddress(text);
  } catch (error) {
    if (error instanceof LabelwiseError) return undefined;
    throw error;
  }
  const host =
    address.host === '' || address.host === '0.0.0.0'
      ? '127.0.0.1'
      : address.host === '::'
        ? '::1'
        : address.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/readyz`;
}

/** Exit code of the health check: 0 when `/readyz` answers 200 (or is disabled), else 1. */
export async function healthcheck(
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs = 4000,
): Promise<number> {
  const url = readyzUrl(env);
  if (url === undefined) return 0;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return response.status === 200 ? 0 : 1;
  } catch {
    return 1; // Not listening (yet), or no answer in time: unhealthy.
  }
}

// Run as a script (the image's HEALTHCHECK), not when imported.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await healthcheck(process.env);
}
