/**
 * Helpers for the anchor integration tests on a real Docker Engine and real nftables: probing
 * whether they can run here, running commands with time bounds, and tracking every container
 * and network a test creates so that cleanup removes all of them, even after a failure.
 */
import { spawn, spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { readFileSync, readdirSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { requiredCapabilities } from '../support/capabilities.js';

export const TEST_IMAGE = process.env.LABELWISE_TEST_IMAGE ?? 'labelwise-test/busybox:latest';
/** Every container the tests create carries this label (value: the run id). */
export const TEST_LABEL = 'labelwise.test';

export interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command with an argument array and a time bound (default 30 s). */
export function sh(command: string, args: readonly string[], timeoutMs = 30_000): Result {
  const result = spawnSync(command, [...args], { encoding: 'utf8', timeout: timeoutMs });
  return {
    code: result.status,
    stdout: result.stdout ?? '',
    stderr: result.stderr ?? result.error?.message ?? '',
  };
}

/** Like {@link sh} but throws with the output when the command fails. */
export function must(command: string, args: readonly string[], timeoutMs = 30_000): string {
  const result = sh(command, args, timeoutMs);
  if (result.code !== 0)
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.code}): ${result.stderr.trim()}`,
    );
  return result.stdout.trim();
}

/**
 * Starts a container of the test image that sleeps ten minutes, labelled with the run id so
 * cleanup finds it; `options` are more `docker run` flags. Returns its ID.
 */
export function startSleeper(run: string, name: string, options: readonly string[] = []): string {
  return must('docker', [
    'run',
    '-d',
    '--name',
    name,
    '--label',
    `${TEST_LABEL}=${run}`,
    ...options,
    TEST_IMAGE,
    'sleep',
    '600',
  ]);
}

/** Why the integration tests cannot run here, or undefined when they can. */
export function unavailableReason(): string | undefined {
  if (process.platform !== 'linux') return 'needs Linux';
  if (process.getuid?.() !== 0) return 'needs root (nftables in container namespaces)';
  for (const tool of ['docker', 'nft', 'conntrack', 'nsenter']) {
    if (sh('sh', ['-c', `command -v ${tool}`]).code !== 0)
      return `${tool} is not installed (run .ci/setup-docker.sh)`;
  }
  const info = sh('docker', ['info', '--format', '{{.ServerVersion}}'], 15_000);
  if (info.code !== 0)
    return `no Docker Engine: ${info.stderr.trim().split('\n')[0] ?? 'docker info failed'}`;
  if (sh('nft', ['list', 'tables']).code !== 0) return 'nft cannot talk to the kernel here';
  if (sh('docker', ['image', 'inspect', TEST_IMAGE]).code !== 0)
    return `test image ${TEST_IMAGE} is missing (run .ci/setup-docker.sh)`;
  return undefined;
}

/** Waits until `check` returns a value other than undefined/false, polling; bounded in time. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** One test topology's resources; `cleanup()` removes everything it created. */
export class Lab {
  readonly runId = `lwt${process.pid}${Date.now().toString(36).slice(-4)}`;
  private readonly networks: string[] = [];
  private readonly processes: ChildProcess[] = [];

  name(part: string): string {
    return `${this.runId}-${part}`;
  }

  network(part: string, subnet: string, options: string[] = []): string {
    const name = this.name(part);
    must('docker', [
      'network',
      'create',
      '--driver',
      'bridge',
      '--subnet',
      subnet,
      '--label',
      `${TEST_LABEL}=${this.runId}`,
      ...options,
      name,
    ]);
    this.networks.push(name);
    return name;
  }

  /** `docker run -d` with the test label; returns the container id. */
  run(part: string, args: readonly string[], command: readonly string[]): string {
    return must(
      'docker',
      [
        'run',
        '-d',
        '--name',
        this.name(part),
        '--label',
        `${TEST_LABEL}=${this.runId}`,
        ...args,
        TEST_IMAGE,
        ...command,
      ],
      60_000,
    );
  }

  remove(part: string): void {
    sh('docker', ['rm', '-f', this.name(part)], 60_000);
  }

  pid(part: string): string {
    return must('docker', ['inspect', '--format', '{{.State.Pid}}', this.name(part)]);
  }

  ip(part: string, network: string): string {
    return must('docker', [
      'inspect',
      '--format',
      `{{(index .NetworkSettings.Networks "${network}").IPAddress}}`,
      this.name(part),
    ]);
  }

  /** Starts a process and remembers it so cleanup can kill it. */
  spawn(command: string, args: readonly string[], env: Record<string, string>): ChildProcess {
    const child = spawn(command, [...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.processes.push(child);
    return child;
  }

  async cleanup(): Promise<void> {
    for (const child of this.processes) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 5000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve(undefined);
          });
        });
      }
    }
    const ids = sh('docker', ['ps', '-aq', '--filter', `label=${TEST_LABEL}=${this.runId}`])
      .stdout.split('\n')
      .filter((id) => id !== '');
    if (ids.length > 0) sh('docker', ['rm', '-f', ...ids], 120_000);
    for (const network of this.networks) sh('docker', ['network', 'rm', network], 60_000);
  }
}

/** The running dockerd's pid and command line, read from /proc (no procps needed). */
export function findDockerd(): { pid: number; cmdline: string[] } | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'dockerd') continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
        .split('\0')
        .filter((a) => a !== '');
      return { pid: Number(entry), cmdline };
    } catch {
      // The process ended while we looked.
    }
  }
  return undefined;
}

/**
 * Registers the prerequisites of an integration suite: locally a missing one only skips the
 * suite (the reason is returned for `skip`); under `CI=true` or when `LABELWISE_REQUIRE` names
 * docker (test/support/capabilities.ts) it is also a failing test, so CI
 * never passes a suite that did not run.
 */
export function requirePrerequisites(
  suite: string,
  reason: string | undefined,
): string | undefined {
  if (reason !== undefined && (process.env.CI === 'true' || requiredCapabilities().has('docker'))) {
    test(`${suite}: prerequisites (CI=true)`, () => {
      throw new Error(`${suite} cannot run under CI=true: ${reason}`);
    });
  }
  return reason;
}

/**
 * Stops dockerd (SIGTERM), runs `whileDown`, and starts it again with the same command line;
 * resolves once `docker info` answers. Needs dockerd started with --live-restore (containers
 * keep running meanwhile); returns the reason when it cannot.
 */
export async function restartDockerd(whileDown: () => Promise<void>): Promise<string | undefined> {
  const dockerd = findDockerd();
  const cmdline = dockerd?.cmdline ?? [];
  if (dockerd === undefined || !cmdline.includes('--live-restore'))
    return 'dockerd does not run with --live-restore (.ci/setup-docker.sh starts it that way)';
  process.kill(dockerd.pid, 'SIGTERM');
  try {
    await waitFor('dockerd to stop', () => findDockerd()?.pid !== dockerd.pid, 30_000, 100);
    await whileDown();
  } finally {
    const restarted = spawn(cmdline[0] as string, cmdline.slice(1), {
      detached: true,
      stdio: 'ignore',
    });
    restarted.unref();
    await waitFor(
      'dockerd to answer again',
      () => sh('docker', ['info', '--format', '{{.ServerVersion}}'], 10_000).code === 0,
      60_000,
      500,
    );
  }
  return undefined;
}
