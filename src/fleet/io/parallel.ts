/**
 * Resolving many hosts on every core. The main thread has loaded the fleet; it serializes the
 * layers once into shared memory (`shared-core.ts`), and each worker deserializes only the layers
 * its hosts select: no worker parses YAML, holds the fleet's hosts or, as a rule, all of its
 * layers. Workers are handed batches of Host documents by affinity (`resolve/affinity.ts`), so
 * that together they hold about one copy of the layers. Results are put back in host order, so
 * the output is the same bytes whatever the number of threads and however batches were handed out.
 */
import { availableParallelism, freemem } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { ResourceLimits } from 'node:worker_threads';
import type { Fleet, FleetProblem, HostDoc } from '../model.js';
import { SelectorIndex } from '../../selector/index.js';
import { AffinityScheduler, affinityBatches } from '../resolve/affinity.js';
import type { AffinityBatch } from '../resolve/affinity.js';
import { hostLabels } from '../resolve/prepare.js';
import { layerBytes, sharedCore } from './shared-core.js';
import type { SharedCore } from './shared-core.js';
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
   * may use, as far as free memory allows). 1 resolves in this thread for validate. More than
   * the cores the process may use runs one worker per core: resolution is CPU-bound, so further
   * workers would add memory and contention and no speed.
   */
  readonly threads?: number;
  /** Hosts per batch handed to a worker. Default 256. */
  readonly batch?: number;
  /** Called once every worker has read the core (benchmarks time resolution from here). */
  readonly onReady?: () => void;
  /** Each worker's old-generation heap bound in MB. Default: {@link workerLimits} of the core. */
  readonly heapMb?: number;
  /** Called after the last batch with how much of the shared core each worker read. */
  readonly onDone?: (sharing: CoreSharing) => void;
}

/** How much of the shared core the workers read: the affinity scheduling's effect on memory. */
export interface CoreSharing {
  /** Serialized bytes of every layer. */
  readonly coreBytes: number;
  /** Per worker: serialized bytes of the layers it deserialized. */
  readonly heldBytes: readonly number[];
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
function startWorker(workerData: SharedCore, resourceLimits: ResourceLimits): Worker {
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
 * Each worker's young generation, in MB. A worker's survivors per collection hardly depend on
 * this size, so each collection costs about the same and a smaller young generation means
 * proportionally more of them: splitting 16 MB between 2 workers doubled the collection time
 * each spent on half the hosts (measured). Workers are at most one per core, which bounds what
 * this costs.
 */
const YOUNG_MB = 16;

/**
 * A worker's heap, bounded by what it holds: the layers it reads (at most the core, expanded
 * from its serialized size), its memo and one batch; and {@link YOUNG_MB}. Left unbounded, V8
 * lets each worker's heap grow far past that before it collects, and memory grows with the
 * thread count by hundreds of megabytes per worker.
 */
export function workerLimits(coreBytes: number): ResourceLimits {
  const coreMb = coreBytes / (1024 * 1024);
  return {
    maxYoungGenerationSizeMb: YOUNG_MB,
    maxOldGenerationSizeMb: Math.ceil(128 + CORE_EXPANSION * 4 * coreMb),
  };
}

/** The workers to start for `wanted` threads and `hosts` hosts: at most one per core. */
export function workerCount(wanted: number, hosts: number): number {
  return Math.max(1, Math.min(wanted, hosts, availableParallelism()));
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
    parallel.threads ?? defaultThreads(core.buffer.byteLength),
    parallel,
  );
}

/** Batches of `docs`, hosts that select the same layers together (`resolve/affinity.ts`). */
function batchesOf(fleet: Fleet, docs: readonly HostDoc[], size: number): AffinityBatch[] {
  const index = new SelectorIndex<number>();
  fleet.layers.forEach((layer, i) => index.add(i, layer.selector));
  return affinityBatches(
    docs.map((doc) => index.match(hostLabels(doc))),
    size,
  );
}

async function resolveWithCore(
  fleet: Fleet,
  core: SharedCore,
  hosts: readonly string[],
  wanted: number,
  parallel: ParallelOptions,
): Promise<HostResult[]> {
  const threads = workerCount(wanted, hosts.length);
  const byName = new Map(fleet.hosts.map((h) => [h.name, h]));
  const docs = hosts.map((name) => byName.get(name) as HostDoc);
  const batches = batchesOf(fleet, docs, parallel.batch ?? 256);
  const scheduler = new AffinityScheduler(batches, layerBytes(core), threads);
  const out: HostResult[] = new Array<HostResult>(hosts.length);
  const bytes = core.buffer.byteLength;
  const limits =
    parallel.heapMb === undefined
      ? workerLimits(bytes)
      : { ...workerLimits(bytes), maxOldGenerationSizeMb: parallel.heapMb };
  const restoreScavenges = serialScavenges();
  const workers = Array.from({ length: threads }, () => startWorker(core, limits));
  const held: number[] = new Array<number>(threads).fill(0);
  try {
    await Promise.all(workers.map(whenReady));
    parallel.onReady?.();
    await Promise.all(
      workers.map((w, n) =>
        driveWorker(
          w,
          () => scheduler.next(n),
          docs,
          (batch, msg) => {
            msg.results.forEach((result, k) => (out[batch.hosts[k] as number] = result));
            held[n] = msg.heldBytes;
          },
        ),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
    restoreScavenges();
  }
  parallel.onDone?.({ coreBytes: bytes, heldBytes: held });
  return out;
}

/** Worker runs under way: the last one to end turns parallel scavenging back on. */
let serialRuns = 0;

/**
 * Turns off V8's parallel scavenging while the workers run, and returns what turns it back on.
 * With a worker on every core, a scavenge's helper threads can only take a core from another
 * worker, and with a worker's few survivors (~100 KB) they save nothing: measured with
 * `--trace-gc-nvp` on 2 cores, a worker's scavenge paused it 0.9 ms alone against 1.3 to 2.4 ms
 * with helpers. The flag is read at each scavenge, so setting it while running is safe; a
 * process started without parallel scavenging is left so, and runs that overlap leave it off
 * until the last one ends.
 */
function serialScavenges(): () => void {
  if (process.execArgv.includes('--no-parallel-scavenge')) return () => undefined;
  if (serialRuns++ === 0) setFlagsFromString('--no-parallel-scavenge');
  return () => {
    if (--serialRuns === 0) setFlagsFromString('--parallel-scavenge');
  };
}

/** A worker's answer to one batch. */
interface BatchAnswer {
  readonly results: HostResult[];
  readonly heldBytes: number;
}

/** Batches sent ahead of the one a worker is resolving, so that it never waits for the next. */
const IN_FLIGHT = 2;

/**
 * Feeds one worker batches from `next` until there are none, keeping {@link IN_FLIGHT} sent;
 * a worker answers its batches in the order it was sent them.
 */
function driveWorker(
  w: Worker,
  next: () => AffinityBatch | undefined,
  docs: readonly HostDoc[],
  answered: (batch: AffinityBatch, answer: BatchAnswer) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const sent: AffinityBatch[] = [];
    const send = (): void => {
      const batch = next();
      if (batch === undefined) return;
      sent.push(batch);
      w.postMessage({ hosts: batch.hosts.map((i) => docs[i]) });
    };
    w.on('message', (answer: BatchAnswer) => {
      answered(sent.shift() as AffinityBatch, answer);
      send();
      if (sent.length === 0) resolve();
    });
    w.once('error', reject);
    w.once('exit', (code) => {
      if (sent.length > 0)
        reject(new Error(`resolve worker exited with code ${code} before its work was done`));
    });
    for (let i = 0; i < IN_FLIGHT; i++) send();
    if (sent.length === 0) resolve();
  });
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
  const threads =
    parallel.threads ?? (core === undefined ? 1 : defaultThreads(core.buffer.byteLength));
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
