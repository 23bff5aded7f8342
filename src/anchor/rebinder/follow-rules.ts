/**
 * The external-rebinder's pure rules (anchord SPEC F-48, internal/rebinder): which container is
 * the follower, whether two IDs name one container, how the follower stands on the followed
 * network, and what Docker's error texts mean. Docker phrases the errors differently across
 * versions, so they are matched on the substrings anchord matches.
 */

/** A container as the rebinder reads it from the list. */
export interface FollowContainer {
  readonly id: string;
  readonly names: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
}

/** The followed network now: its ID and its endpoints (container ID → name). */
export interface FollowNetwork {
  readonly id: string;
  readonly members: Readonly<Record<string, string>>;
}

/** The follower's standing on the network at one instant. */
export interface Membership {
  readonly networkId: string;
  /** '' when the follower is not found. */
  readonly followerId: string;
  readonly followerAttached: boolean;
  /** Endpoints that are not the follower: the target stack's own containers. */
  readonly foreignCount: number;
}

/**
 * The follower: the container of the rebinder's own Compose project whose service is `target`,
 * else any container named `target` (with or without `/`); '' when none.
 */
export function resolveFollower(
  all: readonly FollowContainer[],
  target: string,
  selfProject: string,
): string {
  const wanted = target.startsWith('/') ? target.slice(1) : target;
  if (wanted === '') return '';
  if (selfProject !== '') {
    const byService = all.find(
      (c) =>
        c.labels['com.docker.compose.project'] === selfProject &&
        c.labels['com.docker.compose.service'] === wanted,
    );
    if (byService !== undefined) return byService.id;
  }
  const byName = all.find((c) =>
    c.names.some((n) => (n.startsWith('/') ? n.slice(1) : n) === wanted),
  );
  return byName?.id ?? '';
}

/** Equal IDs, or one a 12+ character prefix of the other (a short ID on either side). */
export function idMatch(a: string, b: string): boolean {
  if (a === '' || b === '') return false;
  if (a === b) return true;
  return (a.length >= 12 && b.startsWith(a)) || (b.length >= 12 && a.startsWith(b));
}

export function membershipOf(
  network: FollowNetwork,
  all: readonly FollowContainer[],
  target: string,
  selfProject: string,
): Membership {
  const followerId = resolveFollower(all, target, selfProject);
  let followerAttached = false;
  let foreignCount = 0;
  for (const id of Object.keys(network.members)) {
    if (followerId !== '' && idMatch(id, followerId)) followerAttached = true;
    else foreignCount++;
  }
  return { networkId: network.id, followerId, followerAttached, foreignCount };
}

/** The 12-character short form for logs. */
export function shortId(id: string): string {
  return id.length > 12 ? id.slice(0, 12) : id;
}

function text(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).toLowerCase();
}

/** A connect error that means the endpoint is already there: success. */
export function isAlreadyConnected(error: unknown): boolean {
  const s = text(error);
  return s.includes('already exists') || (s.includes('endpoint with name') && s.includes('exists'));
}

/** A disconnect error that means the container was not attached: success too. */
export function isAlreadyNotAttached(error: unknown): boolean {
  const s = text(error);
  return (
    s.includes('is not connected') ||
    s.includes('not connected to network') ||
    s.includes('no such network endpoint')
  );
}

/** The IPAM collision with a target stack still assigning its (partly static) addresses. */
export function isAddressInUse(error: unknown): boolean {
  const s = text(error);
  return (
    s.includes('address already in use') ||
    s.includes('address is in use') ||
    s.includes('no available ipv4 addresses')
  );
}
