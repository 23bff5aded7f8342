/**
 * The file a host's output is written to. A name the fleet accepts (up to 256 of `.`, `-`, `_`,
 * `+`, letters and digits) is not always a file name: 256 characters plus `.json` is past the
 * 255-byte limit of most file systems, and a leading `.` hides the file (or is `..`). Such
 * names map to a cut, cleaned prefix and a stable hash of the whole name, joined by `~`, which
 * no host name holds, so no two hosts ever share a file.
 */
import { createHash } from 'node:crypto';

/** Longest file stem kept as the host's own name; room is left for `.json`, `.html` and stages. */
export const MAX_PLAIN = 200;
const PLAIN = /^[A-Za-z0-9_+-][A-Za-z0-9._+-]*$/;

/** The file stem for `host`: the name itself when it is a safe file name, else prefix~hash. */
export function hostFileName(host: string): string {
  if (host.length <= MAX_PLAIN && PLAIN.test(host)) return host;
  const hash = createHash('sha256').update(host, 'utf8').digest('hex').slice(0, 16);
  const clean = host.replace(/[^A-Za-z0-9._+-]/g, '_').replace(/^\.+/, '');
  return `${clean.slice(0, 160)}~${hash}`;
}

/** Where `labelwise build` writes a host's resolved manifest, relative to `--out`. */
export function hostOutputPath(host: string): string {
  return `fleet/${hostFileName(host)}.json`;
}
