/**
 * The one way labelwise runs git. A repository under review is hostile, and so is its
 * `.git/config`: `core.fsmonitor`, hooks, external diff and textconv drivers and clean filters
 * are programs git would run on our behalf, and `git status` would rewrite `.git/index` as a
 * side effect. Every call goes through {@link runGit}/{@link runGitSync}, which switch all of
 * that off, take argument arrays (never a shell) and treat pathspecs literally.
 */
import { spawn, spawnSync } from 'node:child_process';

/**
 * `-c` settings that win over every config file. A driver named in the repository's own config
 * (`filter.x.clean`, `diff.x.textconv`) is blanked by {@link driverOverrides}, since the names
 * are the repository's to choose.
 */
const SAFE_CONFIG = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.untrackedCache=false',
  'core.pager=cat',
  'diff.external=',
  'core.sshCommand=false',
  'protocol.allow=never',
] as const;

const DRIVER_KEY = /^(filter|diff|merge)\.(.+)\.(clean|smudge|process|textconv|command|driver)$/;

/** The environment git runs in: no system config, no prompts, no optional locks, no pager. */
export function gitEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    // Inherited GIT_* variables could point git at another directory or config; drop them all.
    if (!key.startsWith('GIT_')) env[key] = value;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_TERMINAL_PROMPT: '0',
    GIT_LITERAL_PATHSPECS: '1',
    GIT_PAGER: 'cat',
    GIT_NO_REPLACE_OBJECTS: '1',
    LC_ALL: 'C',
  };
}

/** Everything before the subcommand: the safe settings plus blanked repository drivers. */
function prefixArgs(drivers: readonly string[]): string[] {
  const out = ['--no-pager', '--no-optional-locks'];
  for (const setting of [...SAFE_CONFIG, ...drivers]) out.push('-c', setting);
  return out;
}

export interface GitResult {
  /** The exit status; null when git could not be started or was killed. */
  readonly status: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
  /** Set when git could not run at all (`ENOENT`: git is not installed). */
  readonly spawnError?: NodeJS.ErrnoException;
}

export interface GitOptions {
  /** Bytes written to git's standard input. */
  readonly input?: Buffer | string;
  readonly timeoutMs?: number;
}

const MAX_BUFFER = 512 * 1024 * 1024;

/**
 * `-c` settings blanking every filter, diff and merge driver the repository's config defines.
 * Reading config runs nothing, so this is asked of git itself (includes followed).
 */
function driverOverrides(cwd: string): string[] {
  const listed = spawnSync(
    'git',
    [...prefixArgs([]), 'config', '--includes', '--null', '--name-only', '--list'],
    { cwd, env: gitEnvironment(), timeout: 30_000, maxBuffer: MAX_BUFFER },
  );
  if (listed.status !== 0 || listed.stdout === null) return [];
  const out: string[] = [];
  for (const key of listed.stdout.toString('utf8').split('\u0000')) {
    if (DRIVER_KEY.test(key)) out.push(`${key}=`);
  }
  return out;
}

/** Runs `git ARGS` in `cwd` and waits for it. */
export function runGitSync(
  cwd: string,
  args: readonly string[],
  options: GitOptions = {},
): GitResult {
  const result = spawnSync('git', [...prefixArgs(driverOverrides(cwd)), ...args], {
    cwd,
    env: gitEnvironment(),
    input: options.input,
    timeout: options.timeoutMs ?? 120_000,
    maxBuffer: MAX_BUFFER,
  });
  return {
    status: result.status,
    stdout: result.stdout ?? Buffer.alloc(0),
    stderr: (result.stderr ?? Buffer.alloc(0)).toString('utf8').trim(),
    ...(result.error === undefined ? {} : { spawnError: result.error as NodeJS.ErrnoException }),
  };
}

/** Runs `git ARGS` in `cwd` without blocking the event loop (large outputs, `cat-file`). */
export function runGit(
  cwd: string,
  args: readonly string[],
  options: GitOptions = {},
): Promise<GitResult> {
  return new Promise((resolve) => {
    const child = spawn('git', [...prefixArgs(driverOverrides(cwd)), ...args], {
      cwd,
      env: gitEnvironment(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // Our own timer, not spawn's `timeout`: that one is left pending when git cannot be started
    // (ENOENT) and holds the process open for its whole length.
    const timer = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs ?? 600_000);
    timer.unref();
    const chunks: Buffer[] = [];
    const errors: Buffer[] = [];
    let spawnError: NodeJS.ErrnoException | undefined;
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => errors.push(chunk));
    child.on('error', (error: NodeJS.ErrnoException) => (spawnError = error));
    // git may exit before reading all of its input (a bad object); that is reported by status.
    child.stdin.on('error', () => undefined);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({
        status,
        stdout: Buffer.concat(chunks),
        stderr: Buffer.concat(errors).toString('utf8').trim(),
        ...(spawnError === undefined ? {} : { spawnError }),
      });
    });
    child.stdin.end(options.input ?? '');
  });
}
