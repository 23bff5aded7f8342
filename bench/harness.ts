/**
 * A small benchmark harness shared by the per-module benchmarks: warm-up, then timed batches
 * until a time budget is spent, reporting the median ns per operation. Results are consumed
 * (summed into a sink) so the engine cannot drop the work as dead code.
 */

export interface BenchResult {
  name: string;
  nsPerOp?: number;
  opsPerSec?: number;
  [extra: string]: unknown;
}

export interface BenchReport {
  module: string;
  results: BenchResult[];
  ratios: Record<string, number>;
  [extra: string]: unknown;
}

let sink = 0;
/** Consumes a value so the optimiser must compute it. */
export function consume(value: unknown): void {
  if (value === true) sink++;
  else if (typeof value === 'number') sink += value;
  else if (value !== false && value !== undefined && value !== null) sink ^= 1;
}
export function sinkValue(): number {
  return sink;
}

/**
 * Times `op` (called with an increasing counter) and returns ns per call: the median of
 * `samples` batches after a warm-up. `budgetMs` bounds the whole measurement.
 */
export function measure(
  op: (i: number) => unknown,
  options: { budgetMs?: number; samples?: number } = {},
): number {
  const budget = options.budgetMs ?? 1000;
  const samples = options.samples ?? 15;
  // Warm-up and batch sizing: grow until a batch takes ~1/(2*samples) of the budget.
  let batch = 1;
  for (;;) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) consume(op(i));
    const ns = Number(process.hrtime.bigint() - start);
    if (ns > (budget * 1e6) / (samples * 2) || batch > 1 << 28) break;
    batch *= 2;
  }
  const timings: number[] = [];
  for (let s = 0; s < samples; s++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) consume(op(i));
    timings.push(Number(process.hrtime.bigint() - start) / batch);
  }
  timings.sort((a, b) => a - b);
  return timings[Math.floor(timings.length / 2)] as number;
}

/** Wall time of one call of `fn`, in milliseconds. */
export async function timeOnce<T>(fn: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

/** A deterministic pseudo-random generator (mulberry32) for benchmark inputs. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** CPU time (user and system, this process) of `batch` calls of `op`, in ns per call. */
function cpuPerCall(op: (i: number) => unknown, batch: number, from: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < batch; i++) consume(op(from + i));
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / batch;
}

/** Calls per batch so that one batch of `op` takes about `batchMs` of CPU time (warms it up too). */
function cpuBatchSize(op: (i: number) => unknown, batchMs: number): number {
  let batch = 1;
  for (;;) {
    const ns = cpuPerCall(op, batch, 0) * batch;
    if (ns > batchMs * 1e6 || batch > 1 << 28) return batch;
    batch *= ns < (batchMs * 1e6) / 16 ? 8 : 2;
  }
}

/** The median of `xs` (the mean of the middle two when their count is even). */
export const medianOf = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

export interface CpuComparison {
  /** Median CPU ns per call of each side over the rounds. */
  readonly aNs: number;
  readonly bNs: number;
  /** Median over the rounds of (a's ns per call) / (b's ns per call) in that round. */
  readonly ratio: number;
  /** Lowest and highest per-round ratio, to show how much the rounds agree. */
  readonly ratioRange: readonly [number, number];
  readonly rounds: number;
}

/**
 * `rounds` measurements of each side, alternating which goes first, so that a burst of other
 * load on the machine, or a warmer cache, falls on both sides alike.
 */
export function alternating(
  rounds: number,
  a: (round: number) => number,
  b: (round: number) => number,
): { a: number[]; b: number[] } {
  const as: number[] = [];
  const bs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      as.push(a(round));
      bs.push(b(round));
    } else {
      bs.push(b(round));
      as.push(a(round));
    }
  }
  return { a: as, b: bs };
}

/**
 * Compares two operations by CPU time (`process.cpuUsage`: user and system time of this
 * process), in interleaved rounds: each round times one batch of `a` and one of `b` (the order
 * alternating between rounds), each batch about `batchMs` of CPU, and the figure is the median
 * of the per-round ratios. CPU time does not grow while other processes hold the cores, and a
 * disturbance that remains (caches, frequency) falls on both sides of a round alike.
 */
export function compareCpu(
  a: (i: number) => unknown,
  b: (i: number) => unknown,
  options: { rounds?: number; batchMs?: number } = {},
): CpuComparison {
  const rounds = options.rounds ?? 15;
  const batchMs = options.batchMs ?? 40;
  const batchA = cpuBatchSize(a, batchMs);
  const batchB = cpuBatchSize(b, batchMs);
  const { a: aNs, b: bNs } = alternating(
    rounds,
    (round) => cpuPerCall(a, batchA, round * batchA),
    (round) => cpuPerCall(b, batchB, round * batchB),
  );
  const ratios = aNs.map((x, i) => x / (bNs[i] as number));
  return {
    aNs: medianOf(aNs),
    bNs: medianOf(bNs),
    ratio: medianOf(ratios),
    ratioRange: [Math.min(...ratios), Math.max(...ratios)],
    rounds,
  };
}

/** Records a comparison's per-round spread under `extra.ratio_ranges[name]`. */
export function ratioRange(extra: Record<string, unknown>, name: string, c: CpuComparison): void {
  const ranges = (extra.ratio_ranges ??= {}) as Record<string, readonly [number, number]>;
  ranges[name] = c.ratioRange;
}
