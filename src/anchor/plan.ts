/**
 * The planner: snapshot + configuration → the DNAT entries the kernel should hold. Pure and
 * deterministic (same snapshot, same entries in the same order, same notices), so it is tested
 * without Docker and the daemon only has to apply its result.
 */
import { compareText } from '../base/index.js';
import { LabelwiseError } from '../base/errors.js';
import { compile } from '../selector/index.js';
import type { Selector } from '../selector/index.js';
import { validGlobalIpv6, validIpv4 } from './addresses.js';
import { EXPOSE_LABEL, EXPOSE_V6_LABEL, parseExpose, parseExposeV6 } from './expose.js';
import type {
  ContainerInfo,
  DnatEntry,
  ExposeEntry,
  Family,
  NetworkAttachment,
  Notice,
  Proto,
  Snapshot,
} from './model.js';
import { claimPorts } from './port-claims.js';
import { chooseSharedNetwork } from './shared-network.js';

export interface PlanOptions {
  /** The discovery scope; applied here in full, whatever the server-side filters did. */
  readonly scope: Selector;
  /** Networks never used as the shared network (the outside one). */
  readonly excludeNetworks: readonly string[];
  /** `ANCHORD_SHARED_NETWORK`. Default: none. */
  readonly pinnedSharedNetwork?: string | undefined;
  /** The shared network locked in by an earlier reconcile. Default: none. */
  readonly lockedSharedNetwork?: string | undefined;
  /** The shared network the previous reconcile used, to report a re-pick. Default: none. */
  readonly previousSharedNetwork?: string | undefined;
}

/** A container the anchor serves: valid labels and a usable address. */
export interface BackendClaim {
  readonly container: string;
  readonly id: string;
  readonly ipv4: string | undefined;
  readonly ipv6: string | undefined;
  readonly expose: readonly ExposeEntry[];
}

/** Two or more backends wanting one outside port; the first wins. */
export interface PortConflict {
  readonly family: Family;
  readonly proto: Proto;
  readonly port: number;
  readonly winner: string;
  readonly losers: readonly string[];
}

export interface Plan {
  readonly sharedNetwork: string;
  /** Whether the shared network is now locked for the process lifetime. */
  readonly lockShared: boolean;
  /** Sorted by family, proto, port; at most one per (family, proto, port). */
  readonly entries: readonly DnatEntry[];
  /** Sorted by container name. */
  readonly backends: readonly BackendClaim[];
  readonly conflicts: readonly PortConflict[];
  /** Warnings and remarks for the log, in a stable order. */
  readonly notices: readonly Notice[];
}

interface Candidate {
  readonly info: ContainerInfo;
  readonly expose: readonly ExposeEntry[];
  readonly v6: 'auto' | 'off';
  readonly networks: readonly NetworkAttachment[];
}

function byCreatedThenName(a: ContainerInfo, b: ContainerInfo): number {
  if (a.created !== b.created) return a.created - b.created;
  const byName = compareText(a.name, b.name);
  return byName !== 0 ? byName : compareText(a.id, b.id);
}

/** The in-scope containers with valid, non-blank expose labels; invalid ones as notices. */
function candidatesOf(snapshot: Snapshot, options: PlanOptions, notices: Notice[]): Candidate[] {
  const inScope = compile(options.scope);
  const candidates: Candidate[] = [];
  const containers = [...snapshot.containers].sort(byCreatedThenName);
  for (const info of containers) {
    if (!inScope(info.labels)) continue;
    const exposeText = info.labels[EXPOSE_LABEL];
    if (typeof exposeText !== 'string' || exposeText.trim() === '') continue;
    let expose: ExposeEntry[];
    let v6: 'auto' | 'off';
    try {
      expose = parseExpose(exposeText);
      const v6Text = info.labels[EXPOSE_V6_LABEL];
      v6 = parseExposeV6(typeof v6Text === 'string' ? v6Text : undefined);
    } catch (error) {
      if (!(error instanceof LabelwiseError)) throw error;
      notices.push({
        level: 'warn',
        msg: 'invalid expose labels',
        // The label says which of the two is wrong (the v6 message alone would not).
        attrs: {
          container: info.name,
          label: error.source.label ?? EXPOSE_LABEL,
          err: error.message, // anchord's attribute name for the error
        },
      });
      continue;
    }
    if (expose.length === 0) continue;
    const networks =
      info.networkContainer !== undefined
        ? (snapshot.networkPeers[info.networkContainer] ?? [])
        : info.networks;
    candidates.push({ info, expose, v6, networks });
  }
  return candidates;
}

/**
 * Each candidate's addresses on the shared network and the entries it asks for, in candidate
 * (created-then-name) order, so the first request for a key is the winner (the rule the static
 * check shares, port-claims.ts). A candidate without an address is a notice.
 */
function addressed(
  candidates: readonly Candidate[],
  network: string,
  notices: Notice[],
): { backends: BackendClaim[]; requests: DnatEntry[] } {
  const backends: BackendClaim[] = [];
  const requests: DnatEntry[] = [];
  for (const candidate of candidates) {
    const attachment = candidate.networks.find((n) => n.name === network);
    const ipv4 = validIpv4(attachment?.ipv4);
    const ipv6 = candidate.v6 === 'auto' ? validGlobalIpv6(attachment?.ipv6) : undefined;
    if (ipv4 === undefined && ipv6 === undefined) {
      notices.push({
        level: 'warn',
        msg: 'no usable IP for container',
        attrs: { container: candidate.info.name, shared_network: network },
      });
      continue;
    }
    const { name, id } = candidate.info;
    backends.push({ container: name, id, ipv4, ipv6, expose: candidate.expose });
    const targets: [Family, string][] = [];
    if (ipv4 !== undefined) targets.push(['ipv4', ipv4]);
    if (ipv6 !== undefined) targets.push(['ipv6', ipv6]);
    for (const [family, address] of targets)
      for (const item of candidate.expose)
        requests.push({
          family,
          proto: item.proto,
          port: item.port,
          address,
          backendPort: item.backendPort,
          container: name,
        });
  }
  return { backends, requests };
}

/** The winning entries (sorted) and each lost claim as a conflict and a notice. */
function resolveClaims(
  requests: readonly DnatEntry[],
  notices: Notice[],
): { entries: DnatEntry[]; conflicts: PortConflict[] } {
  const claims = claimPorts(requests).map((c) => ({
    entry: c.winner,
    losers: c.losers.map((l) => l.container),
  }));
  claims.sort((a, b) => compareEntries(a.entry, b.entry));
  const conflicts: PortConflict[] = [];
  for (const { entry, losers } of claims) {
    if (losers.length === 0) continue;
    const { family, proto, port, container: winner } = entry;
    conflicts.push({ family, proto, port, winner, losers });
    for (const loser of losers)
      notices.push({
        level: 'warn',
        msg: 'backend port conflict',
        attrs: { family, proto, port, winner, loser },
      });
  }
  return { entries: claims.map((c) => c.entry), conflicts };
}

/**
 * Plans the DNAT entries for one snapshot. Containers outside the scope, without a non-blank
 * `anchord.expose`, with invalid labels or without an address on the shared network are left
 * out (the last two with a warning). Throws only the fatal shared-network errors of
 * {@link chooseSharedNetwork}.
 */
export function plan(snapshot: Snapshot, options: PlanOptions): Plan {
  const notices: Notice[] = [];
  const candidates = candidatesOf(snapshot, options, notices);
  const choice = chooseSharedNetwork({
    selfNetworks: snapshot.self.networks.map((n) => n.name),
    exclude: options.excludeNetworks,
    pinned: options.pinnedSharedNetwork,
    locked: options.lockedSharedNetwork,
    backendNetworks: candidates.map((c) => c.networks.map((n) => n.name)),
  });
  if (
    options.previousSharedNetwork !== undefined &&
    options.previousSharedNetwork !== choice.network
  ) {
    notices.push({
      level: 'info',
      msg: 'shared network re-picked',
      attrs: { old: options.previousSharedNetwork, new: choice.network },
    });
  }
  const { backends, requests } = addressed(candidates, choice.network, notices);
  const { entries, conflicts } = resolveClaims(requests, notices);
  backends.sort((a, b) => compareText(a.container, b.container) || compareText(a.id, b.id));
  return {
    sharedNetwork: choice.network,
    lockShared: choice.lock,
    entries,
    backends,
    conflicts,
    notices,
  };
}

/** Orders entries by family (ipv4 first), proto (tcp first), then port. */
export function compareEntries(a: DnatEntry, b: DnatEntry): number {
  if (a.family !== b.family) return a.family === 'ipv4' ? -1 : 1;
  if (a.proto !== b.proto) return a.proto === 'tcp' ? -1 : 1;
  return a.port - b.port;
}
