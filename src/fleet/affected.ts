/** `fleet affected`: which hosts' manifests differ between two resolutions of a fleet. */
import { compareText } from '../base/index.js';

export type HostChange =
  | {
      readonly host: string;
      readonly status: 'changed';
      readonly from: string;
      readonly to: string;
    }
  | { readonly host: string; readonly status: 'unchanged'; readonly digest: string }
  | { readonly host: string; readonly status: 'added'; readonly to: string }
  | { readonly host: string; readonly status: 'removed'; readonly from: string };

export interface AffectedReport {
  /** Hosts that changed, appeared or disappeared. */
  readonly affected: number;
  /** Hosts at either revision. */
  readonly total: number;
  /** Every host, in name order. */
  readonly hosts: readonly HostChange[];
}

/** Compares digests per host. Deterministic. */
export function compareDigests(
  before: Readonly<Record<string, string>>,
  after: Readonly<Record<string, string>>,
): AffectedReport {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(compareText);
  const hosts: HostChange[] = names.map((host) => {
    const from = Object.prototype.hasOwnProperty.call(before, host) ? before[host] : undefined;
    const to = Object.prototype.hasOwnProperty.call(after, host) ? after[host] : undefined;
    if (from === undefined) return { host, status: 'added', to: to as string };
    if (to === undefined) return { host, status: 'removed', from };
    return from === to
      ? { host, status: 'unchanged', digest: from }
      : { host, status: 'changed', from, to };
  });
  return {
    affected: hosts.filter((h) => h.status !== 'unchanged').length,
    total: hosts.length,
    hosts,
  };
}
