/**
 * One place that says whether a test can use a real component here, and what happens when it
 * cannot. Locally a missing capability skips the test with the reason. Where the run requires
 * it — `.ci/run` sets `LABELWISE_REQUIRE=docker,nft,…` — a missing capability fails the test,
 * so an integration test can never pass CI by not running.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

export type Capability =
  | 'docker'
  | 'nft'
  | 'conntrack'
  | 'chromium'
  | 'git'
  | 'dist'
  | 'cedar'
  | 'npm-registry'
  | 'pre-commit';

export const CHROMIUM = '/usr/bin/chromium';
/** Headless Chromium on a machine with no network: without these it tries to reach Google. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];
const ROOT = join(import.meta.dirname, '..', '..');

function commandWorks(command: string, args: readonly string[], timeout = 10_000): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout });
  return result.status === 0;
}

const PROBES: Record<Exclude<Capability, 'cedar'>, () => string | undefined> = {
  docker: () =>
    commandWorks('docker', ['info'])
      ? undefined
      : 'no Docker Engine answers `docker info` (.ci/setup-docker.sh starts one as root)',
  nft: () =>
    commandWorks('nft', ['list', 'tables'])
      ? undefined
      : '`nft list tables` fails here (needs root and the nftables package)',
  conntrack: () =>
    commandWorks('conntrack', ['--version'])
      ? undefined
      : 'conntrack is not installed (Debian package conntrack)',
  chromium: () =>
    existsSync(CHROMIUM)
      ? undefined
      : `${CHROMIUM} is not installed (Debian package chromium; .ci/run installs it)`,
  git: () => (commandWorks('git', ['--version']) ? undefined : 'git is not installed'),
  dist: () =>
    existsSync(join(ROOT, 'dist', 'cli', 'main.js'))
      ? undefined
      : 'dist/ has not been built; run `npm run build` first (.ci/run does)',
  'npm-registry': () =>
    commandWorks('npm', ['ping'], 30_000)
      ? undefined
      : '`npm ping` fails: the npm registry is not reachable to install dependencies from',
  'pre-commit': () =>
    commandWorks('pre-commit', ['--version'])
      ? undefined
      : 'pre-commit is not installed (Debian package pre-commit; .ci/run installs it)',
};

const cache = new Map<Capability, string | undefined>();

/** The capabilities this run must have (from `LABELWISE_REQUIRE`, comma-separated). */
export function requiredCapabilities(env = process.env): ReadonlySet<string> {
  return new Set(
    (env.LABELWISE_REQUIRE ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

/** Why `name` cannot be used here, or undefined when it can. Probed once per run. */
export function missingCapability(name: Exclude<Capability, 'cedar'>): string | undefined {
  if (!cache.has(name)) cache.set(name, PROBES[name]());
  return cache.get(name);
}

/**
 * Applies the rule to a probe's answer: undefined → run; a reason → skip locally, or throw
 * where the run requires `name`. Returns true when the caller must stop (the test was skipped).
 */
export function skipOrFail(t: TestContext, name: Capability, reason: string | undefined): boolean {
  if (reason === undefined) return false;
  if (requiredCapabilities().has(name))
    throw new Error(`${name} is required in this run (LABELWISE_REQUIRE) but missing: ${reason}`);
  t.skip(reason);
  return true;
}

/** `if (skipWithout(t, 'chromium')) return;` at the top of a test that needs real components. */
export function skipWithout(t: TestContext, ...names: Exclude<Capability, 'cedar'>[]): boolean {
  return names.some((name) => skipOrFail(t, name, missingCapability(name)));
}

/**
 * For a `describe(…, { skip })` option: the reason to skip the whole suite, or false to run it.
 * A required capability never skips (the suite then runs and fails on the missing component).
 */
export function suiteSkip(...names: Exclude<Capability, 'cedar'>[]): string | false {
  const required = requiredCapabilities();
  for (const name of names) {
    const reason = missingCapability(name);
    if (reason !== undefined && !required.has(name)) return reason;
  }
  return false;
}
