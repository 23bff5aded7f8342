/**
 * The plain data the anchor's pure core works on: what discovery saw (a snapshot of the anchor
 * itself and the containers in scope) and what the planner decides (DNAT entries). No I/O here.
 */
import type { Labels } from '../selector/index.js';

/** Address family of a DNAT entry; also the `conntrack -f` value. */
export type Family = 'ipv4' | 'ipv6';
/** Transport protocol of a DNAT entry. */
export type Proto = 'tcp' | 'udp';

/** One container's attachment to one Docker network, as Docker reports it (unvalidated). */
export interface NetworkAttachment {
  readonly name: string;
  /** IPv4 address without prefix length; empty or absent when none. */
  readonly ipv4?: string;
  /** Docker's `GlobalIPv6Address`; empty or absent when none. */
  readonly ipv6?: string;
  readonly mac?: string;
}

/** A container as discovery saw it. Every field comes from Docker and is treated as hostile. */
export interface ContainerInfo {
  readonly id: string;
  /** Name without Docker's leading `/`. */
  readonly name: string;
  /** Creation time in milliseconds since the epoch (the conflict tie-breaker). */
  readonly created: number;
  readonly labels: Labels;
  readonly networks: readonly NetworkAttachment[];
  /** For `network_mode: container:X`: X as Docker reports it (an id or a name). */
  readonly networkContainer?: string;
}

/** The anchor's own container: its networks decide the shared network. */
export interface SelfInfo {
  readonly id: string;
  readonly name: string;
  readonly networks: readonly NetworkAttachment[];
}

/** Everything one reconcile knows about the world. */
export interface Snapshot {
  readonly self: SelfInfo;
  /** Running containers returned by the scoped list (server filters may be wider than the scope). */
  readonly containers: readonly ContainerInfo[];
  /** Networks of containers referenced by `network_mode: container:X`, keyed by X as referenced. */
  readonly networkPeers: Readonly<Record<string, readonly NetworkAttachment[]>>;
}

/** One parsed `anchord.expose` item: outside port → backend port. */
export interface ExposeEntry {
  readonly proto: Proto;
  readonly port: number;
  readonly backendPort: number;
}

/** One DNAT map element: `<anchor>:<port>/<proto>` → `<address>:<backendPort>`. */
export interface DnatEntry {
  readonly family: Family;
  readonly proto: Proto;
  readonly port: number;
  /** A validated, normalised address (ipaddr.js `toString()`). */
  readonly address: string;
  readonly backendPort: number;
  /** Container name, for logs and `anchor check`; never written to nftables. */
  readonly container: string;
}

/** A log record the pure core asks the daemon to emit (`msg` values are an interface). */
export interface Notice {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly msg: string;
  readonly attrs: Readonly<Record<string, string | number | boolean>>;
}
