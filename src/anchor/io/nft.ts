/**
 * Runs `nft` and `conntrack`. Both are spawned with argument arrays (never a shell) and a time
 * bound; the nft script goes in on stdin. Only the renderer's output and validated numbers and
 * addresses are passed.
 */
import { spawn } from 'node:child_process';
import { LabelwiseError } from '../../base/errors.js';
import type { ConntrackFlush } from '../conntrack-plan.js';
import type { Family, Proto } from '../model.js';
import { validGlobalIpv6, validIpv4 } from '../addresses.js';
import { renderFibProbeScript } from '../nft-script.js';

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command with arguments, optional stdin, and a kill timer. Rejects only if it cannot start. */
export function runCommand(
  command: string,
  args: readonly string[],
  input?: string,
  timeoutMs = 10_000,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => undefined); // an early exit closes stdin; the exit code tells
    child.stdin.end(input ?? '');
  });
}

/** What the daemon needs from the kernel; the real implementation is {@link NftCli}. */
export interface KernelPort {
  /** Applies one nft script as one transaction. Throws a LabelwiseError when nft refuses it. */
  apply(script: string): Promise<void>;
  /** Deletes flows; returns how many conntrack reported deleted. */
  flush(flush: ConntrackFlush): Promise<number>;
  /**
   * Whether the kernel accepts the `fib` expression for a family (checked, never applied).
   * Absent: assumed supported.
   */
  probeFib?(family: Family): Promise<boolean>;
}

function missing(command: string, error: unknown): LabelwiseError {
  return new LabelwiseError(
    'ANCHOR_TOOL_MISSING',
    `cannot run ${command}: ${(error as Error).message}`,
    {
      hint: `install ${command === 'nft' ? 'nftables' : 'conntrack'} in the anchor image`,
      kind: 'unavailable',
    },
  );
}

/** The real kernel adapter: `nft -f -` and `conntrack -D`. */
export class NftCli implements KernelPort {
  constructor(
    private readonly nft = 'nft',
    private readonly conntrack = 'conntrack',
  ) {}

  async apply(script: string): Promise<void> {
    let result: CommandResult;
    try {
      result = await runCommand(this.nft, ['-f', '-'], script);
    } catch (error) {
      throw missing('nft', error);
    }
    if (result.code !== 0) {
      throw new LabelwiseError(
        'ANCHOR_NFT_FAILED',
        `nft -f failed (exit ${result.code}): ${result.stderr.trim().slice(0, 2000)}`,
        { kind: 'unavailable' },
      );
    }
  }

  async probeFib(family: Family): Promise<boolean> {
    let result: CommandResult;
    try {
      result = await runCommand(this.nft, ['--check', '-f', '-'], renderFibProbeScript(family));
    } catch (error) {
      throw missing('nft', error);
    }
    return result.code === 0;
  }

  async flush(flush: ConntrackFlush): Promise<number> {
    const address =
      flush.family === 'ipv4' ? validIpv4(flush.address) : validGlobalIpv6(flush.address);
    if (
      address === undefined ||
      !Number.isInteger(flush.backendPort) ||
      flush.backendPort < 1 ||
      flush.backendPort > 65535
    ) {
      throw new Error('conntrack flush with an unvalidated address or port');
    }
    let result: CommandResult;
    try {
      result = await runCommand(this.conntrack, [
        '-D',
        '-f',
        flush.family,
        '-p',
        flush.proto,
        '-r',
        address,
        '--reply-port-src',
        String(flush.backendPort),
      ]);
    } catch (error) {
      throw missing('conntrack', error);
    }
    // conntrack exits 1 with "0 flow entries have been deleted" when nothing matched.
    const count = /(\d+) flow entr(?:y|ies) ha(?:s|ve) been deleted/.exec(
      result.stderr + result.stdout,
    );
    if (result.code !== 0 && count === null) {
      throw new LabelwiseError(
        'ANCHOR_CONNTRACK_FAILED',
        `conntrack -D failed (exit ${result.code}): ${result.stderr.trim().slice(0, 500)}`,
        { kind: 'unavailable' },
      );
    }
    return count === null ? 0 : Number(count[1]);
  }
}

/** One element of a kernel map, as read back by {@link readDnatMap}. */
export interface KernelMapElement {
  readonly port: number;
  readonly address: string;
  readonly backendPort: number;
}

/**
 * Reads a DNAT map back from the kernel (`nft -j list map`); undefined when the table or map
 * does not exist. For tests, benchmarks and troubleshooting. `prefix` runs nft through another
 * command, e.g. `['nsenter', '-t', pid, '-n']` to read a container's namespace.
 */
export async function readDnatMap(
  family: Family,
  proto: Proto,
  prefix: readonly string[] = [],
): Promise<KernelMapElement[] | undefined> {
  const table = family === 'ipv4' ? 'ip anchord_v4' : 'ip6 anchord_v6';
  const argv = [...prefix, 'nft', '-j', 'list', 'map', ...table.split(' '), `dnat_${proto}`];
  const result = await runCommand(argv[0] as string, argv.slice(1));
  if (result.code !== 0) return undefined;
  const parsed = JSON.parse(result.stdout) as { nftables: { map?: { elem?: unknown[] } }[] };
  const map = parsed.nftables.find((item) => item.map !== undefined)?.map;
  const out: KernelMapElement[] = [];
  for (const elem of map?.elem ?? []) {
    const [port, value] = elem as [number, { concat: [string, number] }];
    out.push({ port, address: value.concat[0], backendPort: value.concat[1] });
  }
  return out.sort((a, b) => a.port - b.port);
}
