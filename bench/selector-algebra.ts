/**
 * How the algebra grows with many requirements on one key (issue: 16,000 `k!=vN` terms took
 * 40 s). Times `overlap`, `subsumes` and the canonical form of `k!=v0,…,k!=v(n-1)` against the
 * same terms plus `k`, at 1k and 16k terms; linear growth gives a ratio near 16.
 */
import type { BenchResult } from './harness.js';
import { consume } from './harness.js';
import { canonicalForm, overlap, parseSelector, subsumes } from '../src/selector/index.js';
import type { Selector } from '../src/selector/index.js';

function manyOnOneKey(n: number): string {
  return Array.from({ length: n }, (_, i) => `k!=v${i}`).join(',');
}

interface Workload {
  readonly a: Selector;
  readonly b: Selector;
}

function workload(n: number): Workload {
  const text = manyOnOneKey(n);
  return { a: parseSelector(text), b: parseSelector(`${text},k`) };
}

/** One round of the algebra on a workload: overlap, subsumes both ways, canonical form. */
function algebraOnce({ a, b }: Workload): number {
  const o = overlap(a, b);
  const s1 = subsumes(a, b);
  const s2 = subsumes(b, a);
  // a subsumes b (b adds `k`), not the other way round: a wrong answer shows in the sink.
  return o.overlap && s1.subsumes && !s2.subsumes ? canonicalForm(b).length : -1;
}

/** ns per call of `algebraOnce(work)`, over `calls` calls. */
function timeCalls(work: Workload, calls: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) consume(algebraOnce(work));
  return Number(process.hrtime.bigint() - start) / calls;
}

/**
 * Adds the per-size figures to `results` and returns `algebra_growth_16k_over_1k`. The two sizes
 * run in interleaved rounds of equal work (16 calls at 1k, one at 16k) and each keeps its
 * fastest round, so a busy machine slows both alike instead of skewing the ratio.
 */
export function algebraGrowth(results: BenchResult[], rounds = 15): number {
  const small = workload(1000);
  const large = workload(16000);
  timeCalls(small, 16); // warm-up
  timeCalls(large, 1);
  let bestSmall = Infinity;
  let bestLarge = Infinity;
  for (let round = 0; round < rounds; round++) {
    bestSmall = Math.min(bestSmall, timeCalls(small, 16));
    bestLarge = Math.min(bestLarge, timeCalls(large, 1));
  }
  const what = 'terms on one key (overlap + subsumes both ways + canonical form)';
  results.push({ name: `algebra: 1k ${what}`, nsPerOp: bestSmall });
  results.push({ name: `algebra: 16k ${what}`, nsPerOp: bestLarge });
  return bestLarge / bestSmall;
}
