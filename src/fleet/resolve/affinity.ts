/**
 * Which hosts a worker thread resolves next. A worker keeps every layer its hosts have selected
 * (`io/shared-core.ts`), so its memory grows with the layers it has touched. Hosts that select
 * the same layers are batched together, and a worker asking for work is given the waiting batch
 * whose layers it already holds the most of (weighted by their size): each worker ends up with
 * its own share of the layers instead of all of them, while any idle worker still gets work.
 */

/** Hosts resolved as one message, and the layers they select between them. */
export interface AffinityBatch {
  readonly id: number;
  /** Indices into the list of hosts being resolved. */
  readonly hosts: readonly number[];
  /** Positions of the layers any of these hosts selects, each once. */
  readonly layers: readonly number[];
}

/**
 * Batches of at most `size` hosts, hosts that share layers side by side. `selected[i]` is the
 * layer positions host `i` selects. Hosts are ordered by the layers they share with some but not
 * all other hosts, the most specific first: layers every host selects say nothing about
 * affinity, and a layer only one host selects is read by that host's worker whatever happens.
 */
export function affinityBatches(
  selected: readonly (readonly number[])[],
  size: number,
): AffinityBatch[] {
  const popularity = new Map<number, number>();
  for (const layers of selected)
    for (const p of layers) popularity.set(p, (popularity.get(p) ?? 0) + 1);
  const telling = (p: number): boolean => {
    const count = popularity.get(p) as number;
    return count > 1 && count < selected.length;
  };
  const byMostSpecific = (a: number, b: number): number =>
    (popularity.get(a) as number) - (popularity.get(b) as number) || a - b;
  const keys = selected.map((layers) => layers.filter(telling).sort(byMostSpecific));
  const order = selected.map((_, i) => i).sort((a, b) => compareKeys(keys[a], keys[b]) || a - b);
  const batches: AffinityBatch[] = [];
  for (let start = 0; start < order.length; start += size) {
    const hosts = order.slice(start, start + size);
    const layers = new Set<number>();
    for (const h of hosts) for (const p of selected[h] as readonly number[]) layers.add(p);
    batches.push({ id: batches.length, hosts, layers: [...layers] });
  }
  return batches;
}

function compareKeys(a: readonly number[] | undefined, b: readonly number[] | undefined): number {
  const x = a ?? [];
  const y = b ?? [];
  for (let i = 0; i < Math.min(x.length, y.length); i++)
    if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x.length - y.length;
}

/**
 * Hands out batches to `workers` workers, each batch once. `layerCost[p]` is what holding layer
 * `p` costs a worker. A worker is given the waiting batch that adds the least to what it holds;
 * among equals, the one nearest (in batch order, which groups alike hosts) to its last batch.
 * Workers start evenly spread over the batch order, so each grows its own region of it. What a
 * worker holds of each batch is kept up to date as it takes layers, so choosing costs one pass
 * over the batches, not over their layers.
 */
export class AffinityScheduler {
  private readonly waiting: Uint8Array;
  private left: number;
  /** Per batch: the cost of all its layers. */
  private readonly costs: Float64Array;
  /** Per worker, per batch: the cost of the batch's layers the worker already holds. */
  private readonly held: Float64Array[];
  /** Per worker, per layer position: 1 once the worker holds it. */
  private readonly holds: Uint8Array[];
  /** Per layer position: the batches that select it. */
  private readonly batchesOf: number[][];
  /** Per worker: the batch it was given last, or where it starts. */
  private readonly near: number[];
  /** Per worker: 1 once it has been given a batch. */
  private readonly started: Uint8Array;

  constructor(
    private readonly batches: readonly AffinityBatch[],
    private readonly layerCost: readonly number[],
    workers: number,
  ) {
    this.waiting = new Uint8Array(batches.length).fill(1);
    this.left = batches.length;
    this.costs = new Float64Array(batches.length);
    this.held = Array.from({ length: workers }, () => new Float64Array(batches.length));
    this.holds = Array.from({ length: workers }, () => new Uint8Array(layerCost.length));
    this.batchesOf = Array.from({ length: layerCost.length }, () => []);
    for (const batch of batches)
      for (const p of batch.layers) {
        this.batchesOf[p]?.push(batch.id);
        this.costs[batch.id] = (this.costs[batch.id] as number) + (layerCost[p] ?? 0);
      }
    this.started = new Uint8Array(workers);
    this.near = Array.from({ length: workers }, (_, w) =>
      Math.floor((w * batches.length) / workers),
    );
  }

  /** The next batch for `worker`, or undefined when every batch has been handed out. */
  next(worker: number): AffinityBatch | undefined {
    if (this.left === 0) return undefined;
    const best = this.pick(worker);
    const batch = this.batches[best] as AffinityBatch;
    this.waiting[best] = 0;
    this.left--;
    this.near[worker] = best;
    this.started[worker] = 1;
    const holds = this.holds[worker] as Uint8Array;
    const held = this.held[worker] as Float64Array;
    for (const p of batch.layers) {
      if (holds[p] === 1) continue;
      holds[p] = 1;
      const cost = this.layerCost[p] ?? 0;
      for (const b of this.batchesOf[p] as number[]) held[b] = (held[b] as number) + cost;
    }
    return batch;
  }

  /** The waiting batch adding least to what `worker` holds, nearest its last one among equals. */
  private pick(worker: number): number {
    const held = this.held[worker] as Float64Array;
    const near = this.near[worker] as number;
    // A worker holding nothing yet starts where it was placed, not at the cheapest batch.
    const fresh = this.started[worker] === 0;
    let best = -1;
    let bestAdds = Infinity;
    for (let b = 0; b < this.batches.length; b++) {
      if (this.waiting[b] === 0) continue;
      const adds = fresh ? 0 : (this.costs[b] as number) - (held[b] as number);
      if (adds < bestAdds || (adds === bestAdds && Math.abs(b - near) < Math.abs(best - near))) {
        best = b;
        bestAdds = adds;
      }
    }
    return best;
  }
}
