/**
 * The wrap-rebinder's decisions, as pure functions over a container list (anchord SPEC F-49,
 * internal/wraprebinder). A wrap-anchor joins another container's network namespace with
 * `network_mode: container:<NAME>`; Docker resolves NAME to an ID when it creates the anchor, so
 * when the namespace owner is recreated under the same name the anchor is left in a dead
 * namespace. The rebinder keys its pool by the owner's *name*, and recreates an anchor whose
 * stored reference no longer points at the live owner, passing `container:<name>` so the next
 * recreation resolves afresh.
 *
 * Only the decisions live here; the Docker calls (list, events, remove/create/start) belong to an
 * io/ adapter. The mode stays refused until that adapter and its real-engine test exist.
 */

/** The slice of a Docker container summary the rebinder reads. */
export interface WrapContainer {
  readonly id: string;
  /** Docker's names, each with or without the leading `/`. */
  readonly names: readonly string[];
  /** `HostConfig.NetworkMode`: `container:<ref>` for a wrap-anchor. */
  readonly networkMode: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** A wrap-anchor whose stored reference resolves to no live container: it needs a manual recreate. */
export interface OrphanAnchor {
  readonly anchorId: string;
  readonly storedRef: string;
}

/** Owner name → wrap-anchor IDs, in container-list order. */
export type TargetPool = ReadonlyMap<string, readonly string[]>;

const PROJECT_LABEL = 'com.docker.compose.project';
/** anchord resolves a reference as an ID prefix only from 12 characters, Docker's short ID. */
const SHORT_ID_LENGTH = 12;

function stripSlash(name: string): string {
  return name.startsWith('/') ? name.slice(1) : name;
}

function firstName(container: WrapContainer): string {
  const name = container.names.find((n) => n !== '');
  return name === undefined ? '' : stripSlash(name);
}

/** The `<ref>` of `container:<ref>`, trimmed; undefined for any other network mode. */
export function containerReference(networkMode: string): string | undefined {
  if (!networkMode.startsWith('container:')) return undefined;
  const ref = networkMode.slice('container:'.length).trim();
  return ref === '' ? undefined : ref;
}

/**
 * The live container a reference (long ID, short-ID prefix of 12+ characters, or name) names,
 * tried in that order as anchord does; undefined when none does.
 */
export function findReferenced(
  all: readonly WrapContainer[],
  ref: string,
): WrapContainer | undefined {
  const wanted = stripSlash(ref);
  if (wanted === '') return undefined;
  const byId = all.find((c) => c.id === wanted);
  if (byId !== undefined) return byId;
  if (wanted.length >= SHORT_ID_LENGTH) {
    const byPrefix = all.find((c) => c.id.startsWith(wanted));
    if (byPrefix !== undefined) return byPrefix;
  }
  return all.find((c) => c.names.some((n) => stripSlash(n) === wanted));
}

/**
 * The owner's name a reference resolves to, or '' when none: the first name of the container
 * with that ID (or 12+ character ID prefix), else the name itself when a container carries it.
 */
export function resolveTargetName(all: readonly WrapContainer[], ref: string): string {
  const wanted = stripSlash(ref);
  if (wanted === '') return '';
  const byId =
    all.find((c) => c.id === wanted) ??
    (wanted.length >= SHORT_ID_LENGTH ? all.find((c) => c.id.startsWith(wanted)) : undefined);
  if (byId !== undefined) return firstName(byId);
  return all.some((c) => c.names.some((n) => stripSlash(n) === wanted)) ? wanted : '';
}

/**
 * The pool of wrap-anchors in `selfProject` (by the Compose project label), excluding the
 * rebinder itself, keyed by the owner's name; anchors whose reference resolves to nothing are
 * returned as orphans instead.
 */
export function buildTargetPool(
  all: readonly WrapContainer[],
  selfProject: string,
  selfId: string,
): { pool: TargetPool; orphans: OrphanAnchor[] } {
  const pool = new Map<string, string[]>();
  const orphans: OrphanAnchor[] = [];
  for (const container of all) {
    if (container.id === selfId) continue;
    if (container.labels[PROJECT_LABEL] !== selfProject) continue;
    const ref = containerReference(container.networkMode);
    if (ref === undefined) continue;
    const target = resolveTargetName(all, ref);
    if (target === '') {
      orphans.push({ anchorId: container.id, storedRef: ref });
      continue;
    }
    const anchors = pool.get(target);
    if (anchors === undefined) pool.set(target, [container.id]);
    else anchors.push(container.id);
  }
  return { pool, orphans };
}

/** One recreate the rebinder asks for: the anchor, and the network mode to create it with. */
export interface Recreate {
  readonly anchorId: string;
  readonly target: string;
  readonly networkMode: string;
}

function recreate(anchorId: string, target: string): Recreate {
  return { anchorId, target, networkMode: `container:${target}` };
}

/**
 * The start-up and periodic recheck: every pooled anchor whose stored reference is neither the
 * live owner's ID nor its name is recreated. An owner not present now is waited for (its next
 * start event), and an anchor gone from the list is skipped (the next enumeration drops it).
 */
export function driftedAnchors(pool: TargetPool, all: readonly WrapContainer[]): Recreate[] {
  const out: Recreate[] = [];
  for (const [target, anchors] of pool) {
    const owner = findReferenced(all, target);
    if (owner === undefined) continue;
    for (const anchorId of anchors) {
      const anchor = all.find((c) => c.id === anchorId);
      if (anchor === undefined) continue;
      const stored = containerReference(anchor.networkMode);
      if (stored === undefined || stored === owner.id || stored === target) continue;
      out.push(recreate(anchorId, target));
    }
  }
  return out;
}

/** A Docker `container start` event, as the rebinder reads it. */
export interface StartEvent {
  readonly containerName: string;
  /** The event's `com.docker.compose.project` attribute, '' when absent. */
  readonly project: string;
}

/**
 * What a start event asks for: recreate every anchor pooled under the started name, and
 * re-enumerate the pool when the container is in the rebinder's own project (it may be a freshly
 * recreated anchor whose ID the pool does not hold yet). Recreates come first, as in anchord.
 */
export function onStart(
  pool: TargetPool,
  event: StartEvent,
  selfProject: string,
): { recreate: Recreate[]; reenumerate: boolean } {
  const anchors = pool.get(stripSlash(event.containerName)) ?? [];
  return {
    recreate: anchors.map((anchorId) => recreate(anchorId, stripSlash(event.containerName))),
    reenumerate: event.project === selfProject,
  };
}
