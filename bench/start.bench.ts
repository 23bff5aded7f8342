/**
 * Start-up time of the installed CLI against Node itself: `labelwise --version` and
 * `labelwise selector match …` as an installed package runs them (dist/ through bin/, no
 * sources, so no TypeScript loader), each beside `node -e 0` in the same run, interleaved so
 * machine load falls on all three alike. `start_over_node` is the slower command's median over
 * node's (the install docs promise at most 1.5). Needs `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchReport } from './harness.js';

const ROOT = join(import.meta.dirname, '..');
const RUNS = 25;

/** The package as npm installs it: dist/, bin/ and package.json, its dependencies beside it. */
function installedCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-start-'));
  for (const part of ['dist', 'bin', 'package.json', 'catalog'])
    cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

function wallMs(args: readonly string[]): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [...args], { stdio: 'ignore' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}`);
  return ms;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

export async function bench(): Promise<BenchReport> {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js')))
    throw new Error('dist/ is not built: run `npm run build` first');
  const dir = installedCopy();
  try {
    const bin = join(dir, 'bin', 'labelwise.js');
    const commands: Record<string, string[]> = {
      'node -e 0': ['-e', '0'],
      'labelwise --version': [bin, '--version'],
      'labelwise selector match': [
        bin,
        'selector',
        'match',
        'tier in (web,api),!canary',
        '--labels',
        'tier=web',
      ],
    };
    const times: Record<string, number[]> = {};
    for (const name of Object.keys(commands)) times[name] = [];
    for (const args of Object.values(commands)) wallMs(args); // warm the file cache
    for (let i = 0; i < RUNS; i++)
      for (const [name, args] of Object.entries(commands)) times[name]?.push(wallMs(args));
    const ms = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
    const node = ms['node -e 0'] as number;
    const version = ms['labelwise --version'] as number;
    const match = ms['labelwise selector match'] as number;
    return {
      module: 'start',
      results: Object.entries(ms).map(([name, value]) => ({ name, medianMs: value, runs: RUNS })),
      ratios: {
        start_over_node: Math.max(version, match) / node,
        version_over_node: version / node,
        selector_match_over_node: match / node,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
