/**
 * Resolving many hosts on every core: worker threads each load the fleet once, then take
 * batches of hosts from a shared queue. Results are put back in host order, so the output is the
 * same bytes whatever the number of threads and however the batches were scheduled.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { FleetFile, LoadOptions } from '../documents/load-fleet.js';
import type { Fleet, FleetProblem } from '../model.js';
import { validateFleet } from '../validate.js';
import type { ValidateOptions, ValidationReport } from '../validate.js';

/** One host's resolution, as validate needs it. */
export interface HostResult {
  readonly host: string;
  readonly digest: string;
  readonly problems: readonly FleetProblem[];
}

export interface ParallelOptions {
  /** Worker threads (default: every core the process may use). 1 resolves in this thread. */
  readonly threads?: number;
  /** Hosts per batch handed to a worker. Default 256. */
  readonly batch?: number;
  /** Called once every worker has loaded the fleet (benchmarks time resolution from here). */
  readonly onReady?: () => void;
}

/** The number of threads `threads: undefined` means. */
export function defaultThreads(): number {
  return Math.max(1, availableParallelism());
}

/**
 * Starts a resolve worker. From a build the worker is the compiled `.js`; from the sources (run
 * through tsx) it is a `.ts` file, and the worker first registers tsx's loader in its own thread.
 */
function startWorker(workerData: unknown): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./resolve-worker.js', import.meta.url), { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./resolve-worker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, workerData });
}

/**
 * Resolves `hosts` of the fleet loaded from `files` (with `options`, as {@link loadFleet} was
 * called) in worker threads. Returns results in the order of `hosts`.
 */
export async function resolveInParallel(
  files: readonly FleetFile[],
  options: LoadOptions,
  contents: ReadonlyMap<string, string> | undefined,
  hosts: readonly string[],
  parallel: ParallelOptions = {},
): Promise<HostResult[]> {
  const threads = Math.max(1, Math.min(parallel.threads ?? defaultThreads(), hosts.length));
  const size = parallel.batch ?? 256;
  const batches: string[][] = [];
  for (let i = 0; i < hosts.length; i += size) batches.push(hosts.slice(i, i + size));
  const out: HostResult[][] = new Array(batches.length);
  const workerData = {
    files: files.map((f) => ({ path: f.path, bytes: f.bytes })),
    options: {
      ...(options.label === undefined ? {} : { label: options.label }),
      ...(options.paths === undefined ? {} : { paths: [...options.paths] }),
      ...(options.links === undefined ? {} : { links: [...options.links] }),
      ...(options.oversized === undefined ? {} : { oversized: [...options.oversized] }),
      ...(options.diagnostics === undefined ? {} : { diagnostics: [...options.diagnostics] }),
    },
    ...(contents === undefined ? {} : { contents: [...contents] }),
  };
  const workers = Array.from({ length: threads }, () => startWorker(workerData));
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            w.once('message', () => resolve());
            w.once('error', reject);
            // A worker that stops without an error event (killed, out of memory) must not hang us.
            w.once('exit', (code) => reject(new Error(`resolve worker exited with code ${code}`)));
          }),
      ),
    );
    parallel.onReady?.();
    let next = 0;
    let received = 0;
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            const send = (): void => {
              if (next >= batches.length) {
                resolve();
                return;
              }
              const id = next++;
              w.postMessage({ id, hosts: batches[id] });
            };
            w.on('message', (msg: { id: number; results: HostResult[] }) => {
              out[msg.id] = msg.results;
              received++;
              send();
            });
            w.once('error', reject);
            w.once('exit', (code) => {
              if (received < batches.length)
                reject(
                  new Error(`resolve worker exited with code ${code} before its work was done`),
                );
            });
            send();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return out.flat();
}

/**
 * {@link validateFleet} with host resolution spread over worker threads. The report is identical
 * to the single-threaded one (a test checks it).
 */
export async function validateInParallel(
  fleet: Fleet,
  files: readonly FleetFile[],
  options: LoadOptions,
  validate: ValidateOptions = {},
  parallel: ParallelOptions = {},
): Promise<ValidationReport> {
  const names = validate.hosts ?? fleet.hosts.map((h) => h.name);
  const threads = parallel.threads ?? defaultThreads();
  if (threads <= 1 || names.length < 2) {
    parallel.onReady?.();
    return validateFleet(fleet, validate);
  }
  const results = await resolveInParallel(files, options, fleet.contents, names, parallel);
  const byHost = new Map(results.map((r) => [r.host, r]));
  return validateFleet(fleet, { ...validate, hosts: names, resolved: byHost });
}
