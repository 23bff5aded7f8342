/**
 * Resolving many hosts on every core. The main thread has loaded the fleet; it serializes the
 * resolution core (layers and what exists, not the hosts) once into shared memory, and each
 * worker reads it from there: no worker parses YAML or holds the fleet's hosts. Workers then take
 * batches of Host documents from a shared queue. Results are put back in host order, so the
 * output is the same bytes whatever the number of threads and however the batches were scheduled.
 */
import { availableParallelism, freemem } from 'node:os';
import { serialize } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { Fleet, FleetProblem, HostDoc } from '../model.js';
import { resolutionCore } from '../resolve/resolution-core.js';
import { validateFleet } from '../validate.js';
import type { ValidateOptions, ValidationReport } from '../validate.js';

/** One host's resolution, as validate needs it. */
export interface HostResult {
  readonly host: string;
  readonly digest: string;
  readonly problems: readonly FleetProblem[];
}

export interface ParallelOptions {
  /**
   * Worker threads. Default: {@link defaultThreads} for the fleet's core (every core the process
   * may use, as far as free memory allows). 1 resolves in this thread for validate.
   */
  readonly threads?: number;
  /** Hosts per batch handed to a worker. Default 256. */
  readonly batch?: number;
  /** Called once every worker has read the core (benchmarks time resolution from here). */
  readonly onReady?: () => void;
}

/**
 * What one worker costs beyond the core's serialized bytes: its isolate and heap baseline, and
 * the memo of resource results it builds. Measured on the benchmark fleet (npm run bench --
 * fleet), rounded up.
 */
const WORKER_BASE = 48 * 1024 * 1024;
const CORE_EXPANSION = 6;

/**
 * The number of threads `threads: undefined` means: every core the process may use, but no more
 * workers than half the free memory holds, each costing about `coreBytes` (the serialized core)
 * expanded into its heap. Never less than 1.
 */
export function defaultThreads(coreBytes = 0): number {
  const perWorker = WORKER_BASE + CORE_EXPANSION * coreBytes;
  const byMemory = Math.floor(freemem() / 2 / perWorker);
  return Math.max(1, Math.min(availableParallelism(), byMemory));
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

/** The core in shared memory: serialized once, read by every worker without a copy per worker. */
function sharedCore(fleet: Fleet): SharedArrayBuffer {
  const bytes = serialize(resolutionCore(fleet));
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  return shared;
}

/** Resolves `hosts` of the loaded `fleet` in worker threads. Returns results in the order of `hosts`. */
export async function resolveInParallel(
  fleet: Fleet,
  hosts: readonly string[],
  parallel: ParallelOptions = {},
): Promise<HostResult[]> {
  const core = sharedCore(fleet);
  return resolveWithCore(
    fleet,
    core,
    hosts,
    parallel.threads ?? defaultThreads(core.byteLength),
    parallel,
  );
}

async function resolveWithCore(
  fleet: Fleet,
  core: SharedArrayBuffer,
  hosts: readonly string[],
  wanted: number,
  parallel: ParallelOptions,
): Promise<HostResult[]> {
  const threads = Math.max(1, Math.min(wanted, hosts.length));
  const byName = new Map(fleet.hosts.map((h) => [h.name, h]));
  const size = parallel.batch ?? 256;
  const batches: HostDoc[][] = [];
  for (let i = 0; i < hosts.length; i += size)
    batches.push(hosts.slice(i, i + size).map((name) => byName.get(name) as HostDoc));
  const out: HostResult[][] = new Array(batches.length);
  const workers = Array.from({ length: threads }, () => startWorker({ core }));
  try {
    await Promise.all(workers.map(whenReady));
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

function whenReady(w: Worker): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    w.once('message', () => resolve());
    w.once('error', reject);
    // A worker that stops without an error event (killed, out of memory) must not hang us.
    w.once('exit', (code) => reject(new Error(`resolve worker exited with code ${code}`)));
  });
}

/**
 * {@link validateFleet} with host resolution spread over worker threads. The report is identical
 * to the single-threaded one (a test checks it).
 */
export async function validateInParallel(
  fleet: Fleet,
  validate: ValidateOptions = {},
  parallel: ParallelOptions = {},
): Promise<ValidationReport> {
  const names = validate.hosts ?? fleet.hosts.map((h) => h.name);
  const core = parallel.threads === 1 || names.length < 2 ? undefined : sharedCore(fleet);
  const threads = parallel.threads ?? (core === undefined ? 1 : defaultThreads(core.byteLength));
  if (core === undefined || threads <= 1) {
    parallel.onReady?.();
    return validateFleet(fleet, validate);
  }
  const results = await resolveWithCore(fleet, core, names, threads, parallel);
  const byHost = new Map(results.map((r) => [r.host, r]));
  return validateFleet(fleet, { ...validate, hosts: names, resolved: byHost });
}
