/**
 * Linkerd's route score packed into one number, for the lookup's comparisons. HOT PATH:
 * measure before changing (bench `outbound_over_findmyway`).
 *
 * The score `[host kind, host labels, path length, headers, query, method]` compares
 * lexicographically; packed with fixed widths (2, 7, 20, 10, 10 and 1 bits: 50 in all, below
 * the 53 exact bits of a double) the same order is plain `>`. The lookup then allocates no
 * array per candidate, only one for the winner. A table whose matches or hostnames exceed a
 * width, or a request path of a million characters or more, takes the array path instead.
 */
import type { RouteMatchSpec } from '../types.js';
import type { PolicyRequest } from './request.js';

const MAX_PACKED_PATH = (1 << 20) - 1;
const MAX_PACKED_COUNT = (1 << 10) - 1;
const MAX_PACKED_LABELS = (1 << 7) - 1;

/** Can every score of these matches and hostnames be packed? */
export function packable(
  specs: readonly RouteMatchSpec[],
  hostnames: readonly (readonly string[])[],
): boolean {
  for (const s of specs)
    if (
      s.grpc !== undefined ||
      s.headers.length > MAX_PACKED_COUNT ||
      s.queryParams.length > MAX_PACKED_COUNT
    )
      return false;
  for (const names of hostnames)
    for (const n of names) if (n.split('.').length > MAX_PACKED_LABELS) return false;
  return true;
}

/** The packed score of a matching candidate (its parts as `scoreMatch` gives them). */
export function packScore(
  hostKind: number,
  hostLabels: number,
  pathLength: number,
  headers: number,
  query: number,
  method: number,
): number {
  return (
    ((((hostKind * 128 + hostLabels) * 1_048_576 + pathLength) * 1024 + headers) * 1024 + query) *
      2 +
    method
  );
}

/** Does a request fit the packed widths? */
export function packableRequest(request: PolicyRequest): boolean {
  return request.path.length <= MAX_PACKED_PATH;
}
