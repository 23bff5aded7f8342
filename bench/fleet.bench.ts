/**
 * Fleet benchmark (spec: Performance). A deterministic generator (fixed seed) writes a synthetic
 * fleet as YAML text — 2,000 layers carrying 20,000 resource documents and up to 100,000 hosts —
 * which goes through the real loader and resolver, exactly as `labelwise fleet validate` runs it.
 *
 * Scenarios:
 * - full validate (load + resolve every host + lints) at 1k, 10k and 100k hosts
 *   (`LABELWISE_BENCH_FLEET_SIZES=1000,10000` to change), each in its own child process pinned to
 *   one core (`taskset -c 0` when available) so wall time, CPU time and peak RSS
 *   (`process.resourceUsage().maxRSS`) belong to that run alone. Other work on core 0 inflates
 *   wall time but not CPU time, so both are reported;
 * - layer selection, indexed (`SelectorIndex.match`) vs testing every compiled matcher against
 *   every host (the scan), side by side on the same hosts;
 * - resolving each host vs `JSON.stringify` of the manifest it gave, in one loop
 *   (`resolve_over_serialize`), and peak memory per host above the loaded repository;
 * - resolution on one worker thread vs a worker thread per core (`parallel_speedup`), on
 *   `LABELWISE_BENCH_FLEET_PARALLEL_HOSTS` hosts (default 20,000), not pinned, and the peak memory
 *   of the worker run over validate in the main thread (`threads_rss_over_one_thread`, the worst
 *   of the thread counts in `LABELWISE_BENCH_FLEET_THREADS`, default 1, 2 and 4 × the cores), how
 *   many copies of the layers the workers hold between them (`workers_core_copies_at_N`), and
 *   the same number of one-worker runs at once in separate processes
 *   (`independent_processes_speedup`: what this machine allows any parallel code). These run a
 *   build of src/ compiled into `.bench/fleet-dist` under plain node (bench/fleet-parallel-child.mjs),
 *   as the installed tool runs, not the sources through tsx.
 *
 * `npm run bench -- fleet [--json]`. Timing never fails anything.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from '../src/selector/index.js';
import { availableParallelism } from 'node:os';
import {
  hostLabels,
  loadFleet,
  manifestJson,
  prepareFleet,
  resolveHost,
  validateFleet,
} from '../src/fleet/index.js';
import { pushAll } from '../src/base/index.js';
import type { FleetFile } from '../src/fleet/index.js';
import { selectLayers } from '../src/fleet/resolve/prepare.js';
import type { BenchReport, BenchResult } from './harness.js';
import { alternating, consume, rng } from './harness.js';

const SEED = 0x5eed_f1ee;
export const LAYERS = 2000;
export const RESOURCES = 20000;

const ENVS = ['production', 'staging', 'dev'];
const SITES = Array.from({ length: 20 }, (_, i) => `site${String(i).padStart(2, '0')}`);
const ROLES = Array.from({ length: 100 }, (_, i) => `role${String(i).padStart(3, '0')}`);
const TIERS = ['t0', 't1', 't2', 't3', 'legacy'];

const header = (type: string, name: string): string =>
  `datum: v1alpha1\ntype: ${type}\nname: ${name}\n`;
const hostName = (i: number): string => `h${String(i).padStart(6, '0')}`;

/** Label choices for host `i`, deterministic from the seed. */
function hostLabelsFor(random: () => number): Record<string, string> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const e = random();
  const labels: Record<string, string> = {
    environment: e < 0.6 ? 'production' : e < 0.85 ? 'staging' : 'dev',
    site: pick(SITES),
    role: pick(ROLES),
    tier: pick(TIERS),
    architecture: random() < 0.7 ? 'amd64' : 'arm64',
    rack: `rack${Math.floor(random() * 500)}`,
  };
  if (random() < 0.5) labels.monitoring = 'prometheus';
  if (random() < 0.01) labels.decommissioned = 'true';
  return labels;
}

/** A File, Package, Service or Sysctl document; `k` varies the type. */
function resource(
  k: number,
  name: string,
  extra: { requires?: string; mode?: string; content?: string } = {},
): string {
  const requires = extra.requires === undefined ? '' : `requires:\n  - ${extra.requires}\n`;
  switch (k % 4) {
    case 0:
      return `${header('Package', name)}desired:\n  state: present\n`;
    case 1:
      return `${header('File', name)}${requires}desired:\n  path: /etc/fleet/${name}.conf\n  mode: "${extra.mode ?? '0644'}"\n  owner: root\n  content: "${extra.content ?? `managed ${name}`}\\n"\n`;
    case 2:
      return `${header('Service', name)}${requires}desired:\n  state: running\n  enabled: true\n`;
    default:
      return `${header('Sysctl', name)}desired:\n  value: "${k % 7}"\n`;
  }
}

/**
 * The synthetic fleet: 2,000 layers in seven families (base, environment, site, role,
 * environment × role, site × tier, role features with negative terms, single hosts), 20,000
 * resource documents, and `hosts` hosts. Overrides target the same references at higher
 * precedence, as real fleets do; templates use `{{ host }}` and `{{ labels.site }}`.
 */
export function generateFleet(hosts: number, seed = SEED): FleetFile[] {
  const random = rng(seed);
  const files: FleetFile[] = [{ path: 'fleet.yaml', bytes: `${header('Fleet', 'bench')}` }];
  let layerCount = 0;
  let resourceCount = 0;
  const addLayer = (name: string, precedence: number, match: string, docs: string[]): void => {
    layerCount++;
    resourceCount += docs.length;
    files.push({
      path: `layers/${name}/layer.yaml`,
      bytes: [`${header('Layer', name)}precedence: ${precedence}\n${match}`, ...docs].join('---\n'),
    });
  };
  const docs = (count: number, prefix: string, make?: (i: number) => string): string[] =>
    Array.from({ length: count }, (_, i) =>
      make === undefined ? resource(i, `${prefix}-${i}`) : make(i),
    );

  addLayer(
    'base',
    0,
    '',
    docs(20, 'base', (i) =>
      resource(
        i,
        `base-${i}`,
        i % 4 === 1 ? { content: 'host {{ host }} at {{ labels.site }}' } : {},
      ),
    ),
  );
  for (const env of ENVS)
    addLayer(
      `env-${env}`,
      10,
      `match:\n  labels:\n    environment: ${env}\n`,
      docs(20, `env-${env}`),
    );
  for (const site of SITES)
    addLayer(
      `site-${site}`,
      20,
      `match:\n  labels:\n    site: ${site}\n`,
      docs(20, `site-${site}`),
    );
  for (const role of ROLES)
    addLayer(
      `role-${role}`,
      30,
      `match:\n  labels:\n    role: ${role}\n`,
      docs(40, role, (i) =>
        resource(i, `${role}-${i}`, i % 4 === 2 ? { requires: `Package[${role}-${i - 2}]` } : {}),
      ),
    );
  // Environment × role: override the role's files (same references, higher precedence).
  for (const env of ENVS)
    for (const role of ROLES)
      addLayer(
        `${env}-${role}`,
        40,
        `match:\n  labels:\n    environment: ${env}\n    role: ${role}\n`,
        docs(10, '', (i) =>
          resource(1, `${role}-${4 * i + 1}`, { mode: '0640', content: `${env} {{ host }}` }),
        ).map((d) => d.replace(/desired:\n {2}path: [^\n]+\n/, 'desired:\n')),
      );
  // Site × tier with oneOf.
  for (let s = 0; s < SITES.length; s++)
    for (let t = 0; t < 5; t++)
      addLayer(
        `site${s}-tiers${t}`,
        50,
        `match:\n  labels:\n    site: ${SITES[s]}\n  oneOf:\n    tier: [${TIERS[t]}, ${TIERS[(t + 1) % 5]}]\n`,
        docs(10, `st-${s}-${t}`),
      );
  // Role features with negative terms.
  for (let r = 0; r < ROLES.length; r++)
    for (let f = 0; f < 3; f++)
      addLayer(
        `feature-${r}-${f}`,
        60,
        `match:\n  labels:\n    role: ${ROLES[r]}\n  noneOf:\n    tier: [legacy]\n  missing:\n    - decommissioned\n${f === 0 ? '  has:\n    - monitoring\n' : ''}`,
        docs(10, `feat-${r}-${f}`),
      );
  // Single-host layers fill the rest: 2,000 layers and 20,000 resources in all.
  const hostLayers = LAYERS - layerCount;
  const remaining = RESOURCES - resourceCount;
  const stride = Math.max(1, Math.floor(100000 / hostLayers));
  for (let i = 0; i < hostLayers; i++) {
    const count = Math.floor(remaining / hostLayers) + (i < remaining % hostLayers ? 1 : 0);
    addLayer(
      `host-${i}`,
      100,
      `match:\n  labels:\n    datum/host: ${hostName(i * stride)}\n`,
      docs(count, `host-${i}`),
    );
  }
  if (layerCount !== LAYERS || resourceCount !== RESOURCES)
    throw new Error(`generator drift: ${layerCount} layers, ${resourceCount} resources`);

  const perFile = 1000;
  for (let start = 0; start < hosts; start += perFile) {
    const parts: string[] = [];
    for (let i = start; i < Math.min(hosts, start + perFile); i++) {
      const labels = hostLabelsFor(random);
      parts.push(
        `${header('Host', hostName(i))}labels:\n${Object.entries(labels)
          .map(([k, v]) => `  ${k}: ${v}\n`)
          .join('')}`,
      );
    }
    files.push({
      path: `hosts/hosts-${String(start / perFile).padStart(3, '0')}.yaml`,
      bytes: parts.join('---\n'),
    });
  }
  return files;
}

/** The median of `values` (the mean of the middle two for an even count). */
const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

interface ValidateFigures {
  hosts: number;
  load_s: number;
  resolve_s: number;
  total_s: number;
  /** CPU time (user + system) of this process, which other load on the machine cannot inflate. */
  load_cpu_s: number;
  resolve_cpu_s: number;
  peak_rss_mb: number;
  /** Resident memory once the fleet is loaded and prepared, before any host is resolved. */
  loaded_rss_mb: number;
  /** Peak resident memory when validate (every host resolved) has finished. */
  validate_peak_rss_mb: number;
  heap_used_mb: number;
  /** Resolving every host vs JSON.stringify of each resulting manifest, in one loop. */
  resolve_each_s: number;
  serialize_each_s: number;
  errors: number;
  warnings: number;
  pinned: boolean;
}

/** Child-process body: generate, load, validate; print figures as JSON. */
function runValidate(hosts: number): ValidateFigures {
  const files = generateFleet(hosts);
  const cpu = (): number => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
  };
  const c0 = cpu();
  const t0 = process.hrtime.bigint();
  const fleet = loadFleet(files);
  const prepared = prepareFleet(fleet);
  const t1 = process.hrtime.bigint();
  const c1 = cpu();
  const loadedRss = process.memoryUsage().rss;
  const report = validateFleet(fleet, {}, prepared);
  const t2 = process.hrtime.bigint();
  const c2 = cpu();
  consume(report.errors);
  // The high-water mark of validate itself, before the serialising loop below adds garbage.
  const validatePeak = process.resourceUsage().maxRSS * 1024;
  // Side by side in one loop: resolving a host, then serialising the manifest it gave.
  let resolveNs = 0n;
  let serializeNs = 0n;
  for (const host of fleet.hosts) {
    const a = process.hrtime.bigint();
    const manifest = resolveHost(prepared, host.name);
    const b = process.hrtime.bigint();
    consume(JSON.stringify(manifestJson(manifest)).length);
    const c = process.hrtime.bigint();
    resolveNs += b - a;
    serializeNs += c - b;
  }
  return {
    hosts,
    load_s: Number(t1 - t0) / 1e9,
    resolve_s: Number(t2 - t1) / 1e9,
    total_s: Number(t2 - t0) / 1e9,
    load_cpu_s: c1 - c0,
    resolve_cpu_s: c2 - c1,
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
    loaded_rss_mb: loadedRss / 1024 / 1024,
    validate_peak_rss_mb: validatePeak / 1024 / 1024,
    heap_used_mb: process.memoryUsage().heapUsed / 1024 / 1024,
    resolve_each_s: Number(resolveNs) / 1e9,
    serialize_each_s: Number(serializeNs) / 1e9,
    errors: report.errors,
    warnings: report.warnings,
    pinned: process.env.LABELWISE_BENCH_PINNED === '1',
  };
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Runs one validate scenario in a fresh process (one core when taskset exists). */
function validateInChild(hosts: number): ValidateFigures {
  const self = fileURLToPath(import.meta.url);
  const node = [
    process.execPath,
    '--max-old-space-size=16384',
    '--import',
    'tsx',
    self,
    '--child-validate',
    String(hosts),
  ];
  // LABELWISE_BENCH_PIN=0 lets the scheduler place the run (faster wall time on a busy machine).
  const pinned = process.env.LABELWISE_BENCH_PIN !== '0' && hasTaskset();
  const [cmd, ...args] = pinned ? ['taskset', '-c', '0', ...node] : node;
  const result = spawnSync(cmd as string, args, {
    encoding: 'utf8',
    env: { ...process.env, LABELWISE_BENCH_PINNED: pinned ? '1' : '0' },
    maxBuffer: 1 << 24,
  });
  if (result.status !== 0)
    throw new Error(`validate child for ${hosts} hosts failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop() as string) as ValidateFigures;
}

/**
 * Times two operations against each other: batches of `a` and of `b` alternate (which goes
 * first alternates too) for `rounds` rounds, each batch sized to a slice of the budget, and the
 * ratio b/a is taken per round, then the median. Other work on a shared machine, or a collection
 * left by the previous batch, then lands on a few rounds of both sides instead of on the whole
 * measurement of one side, as it can when the two are measured back to back.
 */
function interleaved(
  a: (i: number) => unknown,
  b: (i: number) => unknown,
  options: { budgetMs: number; rounds: number },
): { a_ns: number; b_ns: number; ratio: number; ratio_min: number; ratio_max: number } {
  const sliceNs = (options.budgetMs * 1e6) / (options.rounds * 2);
  const timeBatch = (op: (i: number) => unknown, batch: number, from: number): number => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) consume(op(from + i));
    return Number(process.hrtime.bigint() - start) / batch;
  };
  // Warm-up and sizing: double until one batch takes a slice.
  const sized = (op: (i: number) => unknown): number => {
    let batch = 1;
    while (batch < 1 << 28 && timeBatch(op, batch, 0) * batch < sliceNs) batch *= 2;
    return batch;
  };
  const batchA = sized(a);
  const batchB = sized(b);
  const { a: aNs, b: bNs } = alternating(
    options.rounds,
    (r) => timeBatch(a, batchA, r * batchA),
    (r) => timeBatch(b, batchB, r * batchB),
  );
  const ratios = aNs.map((ta, i) => (bNs[i] as number) / ta);
  return {
    a_ns: median(aNs),
    b_ns: median(bNs),
    ratio: median(ratios),
    ratio_min: Math.min(...ratios),
    ratio_max: Math.max(...ratios),
  };
}

/** Indexed selection vs the scan over every compiled matcher, on the same hosts. */
export function selection(sampleHosts: number): {
  index_ns: number;
  scan_ns: number;
  ratio: number;
  ratio_min: number;
  ratio_max: number;
  layers_per_host: number;
} {
  const fleet = loadFleet(generateFleet(sampleHosts));
  const prepared = prepareFleet(fleet);
  const labelSets = fleet.hosts.map(hostLabels);
  const predicates = fleet.layers.map((l) => compile(l.selector));
  // Check once that both give the same answer, so the comparison is of equals.
  let matched = 0;
  for (const labels of labelSets) {
    const a = selectLayers(prepared, labels);
    const b: number[] = [];
    for (let i = 0; i < predicates.length; i++)
      if ((predicates[i] as (l: typeof labels) => boolean)(labels)) b.push(i);
    if (a.join() !== b.join()) throw new Error('index and scan disagree');
    matched += a.length;
  }
  const n = labelSets.length;
  const timed = interleaved(
    (i) => selectLayers(prepared, labelSets[i % n] as (typeof labelSets)[number]).length,
    (i) => {
      const labels = labelSets[i % n] as (typeof labelSets)[number];
      let found = 0;
      for (let l = 0; l < predicates.length; l++)
        if ((predicates[l] as (x: typeof labels) => boolean)(labels)) found++;
      return found;
    },
    // 61 short rounds rather than 31 longer ones: a burst of load on a shared machine then
    // lands on fewer of them, and the median has more rounds on either side of it.
    { budgetMs: 9000, rounds: 61 },
  );
  return {
    index_ns: timed.a_ns,
    scan_ns: timed.b_ns,
    ratio: timed.ratio,
    ratio_min: timed.ratio_min,
    ratio_max: timed.ratio_max,
    layers_per_host: matched / labelSets.length,
  };
}

interface ParallelFigures {
  hosts: number;
  threads: number;
  /** Wall time of resolving every host, from every worker having read the core to the end. */
  resolve_s: number;
  /** CPU time (user + system, every thread) over the same span. */
  cpu_s: number;
  /** Peak resident memory of the process, every worker thread included. */
  peak_rss_mb: number;
  /** Layers all workers deserialized, in copies of the shared core (0 in the main thread). */
  core_copies: number;
}

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const benchDir = join(repoRoot, '.bench');

/**
 * Compiles src/ into `.bench/fleet-dist` (as `npm run build` does into dist/) so the parallel
 * scenario runs the JavaScript that ships. Inside the repository, so the build resolves this
 * checkout's node_modules and its package.json (`"type": "module"`). Undefined, with the reason
 * printed, when the compiler fails.
 */
function compiledBuild(): string | undefined {
  const outDir = join(benchDir, 'fleet-dist');
  rmSync(outDir, { recursive: true, force: true });
  const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(
    process.execPath,
    [tsc, '-p', join(repoRoot, 'tsconfig.build.json'), '--outDir', outDir],
    { encoding: 'utf8', maxBuffer: 1 << 24 },
  );
  if (result.status === 0 && existsSync(join(outDir, 'fleet', 'index.js'))) return outDir;
  console.error(
    `fleet bench: parallel scenario skipped, src/ did not compile: ${result.stdout}${result.stderr}`,
  );
  return undefined;
}

/** One run of bench/fleet-parallel-child.mjs: plain node, the compiled build, `threads` workers. */
function parallelInChild(build: string, filesJson: string, threads: number): ParallelFigures {
  const child = fileURLToPath(new URL('./fleet-parallel-child.mjs', import.meta.url));
  const result = spawnSync(
    process.execPath,
    // No heap flags: bin/labelwise.js passes none, and worker threads inherit the parent's
    // (a 16 GB old space let each worker's heap grow by about 100 MB before collecting).
    [child, build, filesJson, String(threads)],
    { encoding: 'utf8', maxBuffer: 1 << 24 },
  );
  if (result.status !== 0)
    throw new Error(`parallel child (${threads} threads) failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop() as string) as ParallelFigures;
}

/**
 * `cores` runs of one worker at once, as separate processes: work that shares nothing, so how
 * close their speedup comes to `cores` says what this machine (its other load, its memory
 * bandwidth, cores that may be hyperthreads) allows any parallel code, ours included.
 */
function independentRuns(build: string, filesJson: string, cores: number): ParallelFigures[] {
  const child = fileURLToPath(new URL('./fleet-parallel-child.mjs', import.meta.url));
  const one = [process.execPath, child, build, filesJson, '1'].map(shellQuote).join(' ');
  const result = spawnSync('sh', ['-c', `${Array(cores).fill(`${one} &`).join(' ')} wait`], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const lines = result.stdout
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'));
  if (result.status !== 0 || lines.length !== cores)
    throw new Error(`independent runs failed: ${result.stderr}`);
  return lines.map((line) => JSON.parse(line) as ParallelFigures);
}

const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * Resolution on one thread vs worker threads, against the compiled build, every figure from the
 * same child script (one process per run, not pinned). Runs are interleaved (main thread, one
 * worker, each thread count, then again) `LABELWISE_BENCH_FLEET_PARALLEL_REPEATS` times
 * (default 3), so a burst of other load on the machine falls on one repetition of every shape
 * rather than on one shape; ratios are per repetition, then the median.
 */
function parallelScenario(cores: number): {
  results: BenchResult[];
  ratios: Record<string, number>;
} {
  const build = compiledBuild();
  if (build === undefined) return { results: [], ratios: {} };
  const hosts = Number(process.env.LABELWISE_BENCH_FLEET_PARALLEL_HOSTS ?? '20000');
  const repeats = Number(process.env.LABELWISE_BENCH_FLEET_PARALLEL_REPEATS ?? '3');
  // Memory is measured past the core count too (more threads must not mean more memory; past
  // the cores, labelwise runs one worker per core).
  const counts = (process.env.LABELWISE_BENCH_FLEET_THREADS ?? `${cores},${2 * cores},${4 * cores}`)
    .split(',')
    .map(Number);
  const filesJson = join(benchDir, `fleet-parallel-${hosts}.json`);
  mkdirSync(benchDir, { recursive: true });
  writeFileSync(filesJson, JSON.stringify(generateFleet(hosts)));
  const runs: Record<string, ParallelFigures[]> = {};
  const record = (key: string, figures: ParallelFigures): void => {
    (runs[key] ??= []).push(figures);
  };
  for (let r = 0; r < repeats; r++) {
    record('main', parallelInChild(build, filesJson, 0));
    record('1', parallelInChild(build, filesJson, 1));
    for (const n of counts) if (n !== 1) record(String(n), parallelInChild(build, filesJson, n));
    if (cores > 1) {
      const together = independentRuns(build, filesJson, cores);
      record(
        'independent',
        together.reduce((slowest, f) => (f.resolve_s > slowest.resolve_s ? f : slowest)),
      );
    }
  }
  const results: BenchResult[] = [];
  const ratios: Record<string, number> = {};
  const shape = (key: string, name: string): void => {
    const list = runs[key] as ParallelFigures[];
    results.push({
      name,
      resolve_s: median(list.map((f) => f.resolve_s)),
      resolve_s_runs: list.map((f) => f.resolve_s),
      cpu_s: median(list.map((f) => f.cpu_s)),
      peak_rss_mb: median(list.map((f) => f.peak_rss_mb)),
      peak_rss_mb_runs: list.map((f) => f.peak_rss_mb),
    });
  };
  shape('main', `validate ${hosts} hosts in the main thread (--threads 1), compiled build`);
  shape('1', `resolve ${hosts} hosts, 1 worker thread, compiled build`);
  const main = runs.main as ParallelFigures[];
  const one = runs['1'] as ParallelFigures[];
  let worstRss = 0;
  for (const n of counts) {
    if (n === 1) continue;
    const wide = runs[String(n)] as ParallelFigures[];
    shape(
      String(n),
      `resolve ${hosts} hosts, --threads ${n} (${Math.min(n, cores)} workers), compiled build`,
    );
    const speedups = wide.map((f, r) => (one[r] as ParallelFigures).resolve_s / f.resolve_s);
    const rss = wide.map((f, r) => f.peak_rss_mb / (main[r] as ParallelFigures).peak_rss_mb);
    ratios[`parallel_speedup_at_${n}`] = median(speedups);
    ratios[`parallel_speedup_at_${n}_min`] = Math.min(...speedups);
    ratios[`parallel_speedup_at_${n}_max`] = Math.max(...speedups);
    ratios[`threads_rss_over_one_thread_at_${n}`] = median(rss);
    // How much of the layers the workers hold between them: affinity keeps it near one copy.
    ratios[`workers_core_copies_at_${n}`] = median(wide.map((f) => f.core_copies));
    // CPU spent with N workers over one worker: the work parallelism adds (duplicated warm-up
    // and memo, messages, collection). Load from other processes does not inflate it the way
    // it inflates wall time, so it says what the speedup can be on idle cores: at most N / this.
    ratios[`parallel_cpu_over_one_worker_at_${n}`] = median(
      wide.map((f, r) => f.cpu_s / (one[r] as ParallelFigures).cpu_s),
    );
    worstRss = Math.max(worstRss, median(rss));
  }
  const independent = runs.independent;
  if (independent !== undefined) {
    shape('independent', `${cores} one-worker runs at once, separate processes (the slowest)`);
    // What `cores` processes sharing nothing achieve here: the ceiling of parallel_speedup.
    ratios.independent_processes_speedup = median(
      independent.map((f, r) => (cores * (one[r] as ParallelFigures).resolve_s) / f.resolve_s),
    );
  }
  const atCores = ratios[`parallel_speedup_at_${cores}`];
  if (atCores !== undefined) ratios.parallel_speedup = atCores;
  ratios.parallel_target = 0.85 * cores;
  // Peak memory with workers over validate in the main thread, worst thread count (< 1.5).
  ratios.threads_rss_over_one_thread = worstRss;
  return { results, ratios };
}

export async function bench(): Promise<BenchReport> {
  const results: BenchResult[] = [];
  const sizes = (process.env.LABELWISE_BENCH_FLEET_SIZES ?? '1000,10000,100000')
    .split(',')
    .map(Number);
  const growth: Record<string, number> = {};
  let full: ValidateFigures | undefined;
  for (const hosts of sizes) {
    const figures = validateInChild(hosts);
    full = figures;
    growth[String(hosts)] = figures.resolve_cpu_s;
    results.push({
      name: `validate ${hosts} hosts × ${LAYERS} layers × ${RESOURCES} resources`,
      load_s: figures.load_s,
      resolve_s: figures.resolve_s,
      total_s: figures.total_s,
      load_cpu_s: figures.load_cpu_s,
      resolve_cpu_s: figures.resolve_cpu_s,
      cpu_us_per_host: (figures.resolve_cpu_s / hosts) * 1e6,
      peak_rss_mb: figures.peak_rss_mb,
      errors: figures.errors,
      warnings: figures.warnings,
      one_core: figures.pinned,
    });
  }
  const cores = availableParallelism();
  const parallel = parallelScenario(cores);
  pushAll(results, parallel.results);
  const sel = selection(10000);
  results.push({
    name: 'layer selection, SelectorIndex (per host)',
    nsPerOp: sel.index_ns,
    layers_per_host: sel.layers_per_host,
  });
  results.push({
    name: 'layer selection, scan of 2,000 matchers (per host)',
    nsPerOp: sel.scan_ns,
  });
  const smallest = sizes[0] as number;
  const largest = sizes[sizes.length - 1] as number;
  return {
    module: 'fleet',
    results,
    ratios: {
      resolve_over_serialize:
        full === undefined ? 0 : full.resolve_each_s / Math.max(full.serialize_each_s, 1e-9),
      ...parallel.ratios,
      // Median of per-round ratios of interleaved batches; min and max show the spread.
      scan_over_index: sel.ratio,
      scan_over_index_min: sel.ratio_min,
      scan_over_index_max: sel.ratio_max,
      [`resolve_growth_${largest}_over_${smallest}`]:
        (growth[String(largest)] as number) / (growth[String(smallest)] as number),
    },
    // Wall time of load + resolve of every host; CPU time beside it, since other work on a
    // shared machine inflates wall time but not the CPU this run spent.
    resolve_all_s: full?.total_s ?? 0,
    resolve_all_cpu_s: full === undefined ? 0 : full.load_cpu_s + full.resolve_cpu_s,
    resolve_all_hosts: largest,
    peak_rss_mb: full?.peak_rss_mb ?? 0,
    cores,
    // Memory per host above the loaded and prepared repository, at the largest size.
    peak_kb_per_host_above_loaded:
      full === undefined
        ? 0
        : ((full.validate_peak_rss_mb - full.loaded_rss_mb) * 1024) / full.hosts,
    loaded_rss_mb: full?.loaded_rss_mb ?? 0,
    validate_peak_rss_mb: full?.validate_peak_rss_mb ?? 0,
    growth_resolve_cpu_s: growth,
  };
}

// Child mode: `node --import tsx bench/fleet.bench.ts --child-validate N`.
const childAt = process.argv.indexOf('--child-validate');
if (childAt >= 0) {
  const figures = runValidate(Number(process.argv[childAt + 1]));
  console.log(JSON.stringify(figures));
}
