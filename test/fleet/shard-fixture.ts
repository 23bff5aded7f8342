// A fleet whose shards each see part of every kind of problem: a reference missing on every web
// host (one group spanning shards), a label some hosts lack (one problem per host), a layer that
// matches no host (a repository warning every shard repeats), and hosts whose names sort
// differently by code point than by locale.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FLEET, doc, host, layer } from './helpers.js';
import { tempTree } from './cli-helpers.js';

const run = promisify(execFile);
export const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'labelwise.js');

/** The fleet in a new temporary directory, under `under` (`fleet` gives DIR/fleet); returns DIR. */
export function shardedFleet(hosts = 40, under = ''): string {
  const at = under === '' ? '' : `${under}/`;
  const names = Array.from({ length: hosts }, (_, i) =>
    i % 7 === 0 ? `Web-${String(i).padStart(3, '0')}` : `web-${String(i).padStart(3, '0')}`,
  );
  const hostDocs = names.map((name, i) =>
    host(name, {
      role: i % 3 === 0 ? 'db' : 'web',
      ...(i % 4 === 0 ? {} : { site: i % 2 === 0 ? 'london' : 'paris' }),
    }),
  );
  return tempTree({
    [`${at}fleet.yaml`]: FLEET,
    [`${at}hosts.yaml`]: hostDocs.join('---\n'),
    [`${at}layers/base/layer.yaml`]: `${layer('base', 0)}---\n${doc('File', 'motd', 'desired:\n  path: /etc/motd\n  content: "{{ host }} in {{ labels.site }}"\n')}`,
    [`${at}layers/web/layer.yaml`]: `${layer('role-web', 10, '  labels:\n    role: web\n')}---\n${doc('Service', 'nginx', 'requires:\n  - Package[nginx]\ndesired:\n  state: running\n  enabled: true\n')}`,
    [`${at}layers/none/layer.yaml`]: layer('nobody', 20, '  labels:\n    role: mainframe\n'),
  });
}

/** Runs the real bin as its own process; resolves with exit code and stdout. */
export async function bin(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, out: e.stdout ?? '', err: e.stderr ?? '' };
  }
}
