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
import type { ResourceLimits } from 'node:worker_threads';
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
  /** Each worker's old-generation heap bound in MB. Default: {@link workerLimits} of the core. */
  readonly heapMb?: number;
}

/** What a worker holds outside its bounded heap: isolate, code, young generation. */
const WORKER_BASE_MB = 64;
/** Heap bytes per serialized byte of the core, once deserialized and prepared (measured: ~4). */
const CORE_EXPANSION = 6;

/**
 * The number of threads `threads: undefined` means: every core the process may use, but no more
 * workers than half the free memory holds, each costing its heap bound ({@link workerLimits})
 * and its base. Never less than 1.
 */
export function defaultThreads(coreBytes = 0): number {
  const perWorkerMb = WORKER_BASE_MB + (workerLimits(coreBytes).maxOldGenerationSizeMb ?? 0);
  const byMemory = Math.floor(freemem() / 2 / (perWorkerMb * 1024 * 1024));
  return Math.max(1, Math.min(availableParallelism(), byMemory));
}

/**
 * Starts a resolve worker. From a build the worker is the compiled `.js`; from the sources (run
 * through tsx) it is a `.ts` file, and the worker first registers tsx's loader in its own thread.
 */
function startWorker(workerData: unknown, resourceLimits: ResourceLimits): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./resolve-worker.js', import.meta.url), {
      workerData,
      resourceLimits,
    });
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./resolve-worker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, workerData, resourceLimits });
}

/**
 * A worker's heap, bounded by what it holds: the core (expanded from its serialized size), its
 * memo and one batch. Left unbounded, V8 lets each worker's heap grow far past that before it
 * collects, and memory grows with the thread count by hundreds of megabytes per worker.
 */
export function workerLimits(coreBytes: number): ResourceLimits {
  const coreMb = coreBytes / (1024 * 1024);
  return {
    maxYoungGenerationSizeMb: 4,
    maxOldGenerationSizeMb: Math.ceil(128 + CORE_EXPANSION * 4 * coreMb),
  };
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
  const limits =
    parallel.heapMb === undefined
      ? workerLimits(core.byteLength)
      : { ...workerLimits(core.byteLength), maxOldGenerationSizeMb: parallel.heapMb };
  const workers = Array.from({ length: threads }, () => startWorker({ core }, limits));
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
  let results: HostResult[];
  try {
    results = await resolveWithCore(fleet, core, names, threads, parallel);
  } catch (error) {
    // A worker over its heap bound: the same report, from this thread, only slower.
    if ((error as { code?: unknown }).code !== 'ERR_WORKER_OUT_OF_MEMORY') throw error;
    return validateFleet(fleet, validate);
  }
  const byHost = new Map(results.map((r) => [r.host, r]));
  return validateFleet(fleet, { ...validate, hosts: names, resolved: byHost });
}
