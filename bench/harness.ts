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
