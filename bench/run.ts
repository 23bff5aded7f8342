/**
 * `npm run bench -- [module…] [--json]`: runs the named module benchmarks (all by default). Each
 * `bench/<module>.bench.ts` exports `bench(): Promise<BenchReport>`. Text mode prints a table
 * per module; `--json` prints one JSON object per module (one line each), or just the object
 * when one module is named. Timing never fails the run.
 */
import type { BenchReport } from './harness.js';
import { sinkValue } from './harness.js';

const MODULES = ['selector', 'fleet', 'catalog', 'policy', 'anchor', 'report', 'start'] as const;

const args = process.argv.slice(2);
const json = args.includes('--json');
const named = args.filter((a) => !a.startsWith('--'));
const unknown = named.filter((n) => !(MODULES as readonly string[]).includes(n));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; known: ${MODULES.join(', ')}`);
  process.exit(1);
}
const chosen = named.length > 0 ? named : [...MODULES];

function format(n: number): string {
  if (n >= 100) return n.toFixed(0);
  if (n >= 1) return n.toFixed(2);
  return n.toPrecision(3);
}

for (const name of chosen) {
  let mod: { bench: () => Promise<BenchReport> };
  try {
    mod = (await import(`./${name}.bench.ts`)) as { bench: () => Promise<BenchReport> };
  } catch (error) {
    const message = `benchmark ${name} is not available: ${(error as Error).message}`;
    if (json) console.log(JSON.stringify({ module: name, skipped: message }));
    else console.error(message);
    continue;
  }
  if (!json) console.error(`running ${name} benchmark…`);
  const report = await mod.bench();
  if (json) {
    console.log(JSON.stringify(report));
    continue;
  }
  console.log(`\n${report.module}`);
  for (const result of report.results) {
    const figures = Object.entries(result)
      .filter(([key]) => key !== 'name')
      .map(
        ([key, value]) =>
          `${key}=${typeof value === 'number' ? format(value) : JSON.stringify(value)}`,
      )
      .join('  ');
    console.log(`  ${result.name.padEnd(48)} ${figures}`);
  }
  for (const [ratio, value] of Object.entries(report.ratios))
    console.log(`  ratio ${ratio.padEnd(42)} ${format(value)}`);
  for (const [key, value] of Object.entries(report)) {
    if (!['module', 'results', 'ratios'].includes(key))
      console.log(`  ${key}: ${JSON.stringify(value)}`);
  }
}
if (sinkValue() === 0.5) console.error(''); // keeps the sink observable
