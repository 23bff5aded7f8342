/**
 * Discovery through the Docker Engine API (dockerode): the anchor's own container, the scoped
 * container list, `network_mode: container:X` peers, and the event stream. Everything Docker
 * returns is treated as hostile: labels become prototype-free label sets, strings are checked
 * for type, and nothing here interprets label values (the planner does).
 */
import Docker from 'dockerode';
import { hostname } from 'node:os';
import { errorText, LabelwiseError, quote } from '../../base/errors.js';
import { labelsFrom, toDockerFilters } from '../../selector/index.js';
import type { Labels, Selector } from '../../selector/index.js';
import type { DockerEndpoint } from '../config.js';
import { EXPOSE_LABEL } from '../expose.js';
import type { ContainerInfo, NetworkAttachment, SelfInfo, Snapshot } from '../model.js';
import { onJsonLines, watchStream } from './wrap-rebinder-docker.js';

/** What the daemon needs from Docker; the real implementation is {@link DockerDiscovery}. */
export interface DiscoveryPort {
  /** The anchor's own container, found by hostname, else by matching local MAC addresses. */
  findSelf(localMacs: ReadonlySet<string>): Promise<SelfInfo>;
  /** One consistent view: self (re-read) plus the scoped, running containers and their peers. */
  snapshot(selfId: string, scope: Selector): Promise<Snapshot>;
  /**
   * Calls `onEvent` for each container event in scope until `stop()`, with the event's action
   * and container ID when it could be read; `onEnd` when the stream ends or fails.
   */
  watch(
    scope: Selector,
    onEvent: (event?: ContainerEvent) => void,
    onEnd: (error: unknown) => void,
  ): Promise<{ stop(): void }>;
  /**
   * One container as the scoped list would report it, read by ID (one inspect); undefined when
   * it is not running. Lets a `start` event be planned without listing everything again.
   */
  inspectContainer?(id: string): Promise<ContainerInfo | undefined>;
}

/** What a Docker container event says: its action (`start`, `die`, …) and the container. */
export interface ContainerEvent {
  readonly action: string;
  readonly id: string;
}

type Json = Record<string, unknown>;

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function obj(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Json)
    : {};
}

function labelsOf(value: unknown): Labels {
  return labelsFrom(
    Object.entries(obj(value)).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

function networksOf(settings: unknown): NetworkAttachment[] {
  const networks = obj(obj(settings).Networks);
  return Object.keys(networks)
    .sort()
    .map((name) => {
      const n = obj(networks[name]);
      return {
        name,
        ipv4: str(n.IPAddress),
        ipv6: str(n.GlobalIPv6Address),
        mac: str(n.MacAddress).toLowerCase(),
      };
    });
}

function networkContainerOf(mode: string): string | undefined {
  return mode.startsWith('container:') ? mode.slice('container:'.length) : undefined;
}

/**
 * A dockerode client for a validated endpoint. `timeoutMs` bounds each request's idle time;
 * leave it out for the event stream, which is idle by nature.
 */
export function dockerClient(endpoint: DockerEndpoint, timeoutMs?: number): Docker {
  const timeout = timeoutMs === undefined ? {} : { timeout: timeoutMs };
  return endpoint.kind === 'unix'
    ? new Docker({ socketPath: endpoint.socketPath, ...timeout })
    : new Docker({ host: endpoint.host, port: endpoint.port, protocol: 'http', ...timeout });
}

/** Docker API errors are "could not run" errors for the caller: retried, never fatal by themselves. */
function unavailable(what: string, error: unknown): LabelwiseError {
  const message = errorText(error);
  return new LabelwiseError('ANCHOR_DOCKER_UNAVAILABLE', `${what}: ${message}`, {
    kind: 'unavailable',
  });
}

function statusOf(error: unknown): number | undefined {
  const code = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

/** Request idle timeout for API calls (not the event stream). */
const API_TIMEOUT_MS = 15_000;

export class DockerDiscovery implements DiscoveryPort {
  private readonly docker: Docker;
  private readonly events: Docker;

  constructor(endpoint: DockerEndpoint) {
    this.docker = dockerClient(endpoint, API_TIMEOUT_MS);
    this.events = dockerClient(endpoint);
  }

  async findSelf(localMacs: ReadonlySet<string>): Promise<SelfInfo> {
    // A container's hostname defaults to its short id, which inspect accepts.
    try {
      const info = (await this.docker.getContainer(hostname()).inspect()) as unknown as Json;
      const self = this.selfFrom(info);
      if (self.networks.some((n) => n.mac !== undefined && localMacs.has(n.mac))) return self;
    } catch (error) {
      if (statusOf(error) !== 404) throw unavailable('inspecting the anchor container', error);
    }
    // Custom hostname or no UTS namespace of its own: find the container whose network MACs
    // are ours.
    let list: Json[];
    try {
      list = (await this.docker.listContainers({
        filters: { status: ['running'] },
      })) as unknown as Json[];
    } catch (error) {
      throw unavailable('listing containers', error);
    }
    for (const item of list) {
      if (
        networksOf(item.NetworkSettings).some((n) => n.mac !== '' && localMacs.has(n.mac as string))
      ) {
        return {
          id: str(item.Id),
          name: str((item.Names as unknown[] | undefined)?.[0]).replace(/^\//, ''),
          networks: networksOf(item.NetworkSettings),
        };
      }
    }
    throw new LabelwiseError(
      'ANCHOR_SELF_NOT_FOUND',
      `cannot find the anchor's own container (hostname ${quote(hostname())}, no container has this machine's MAC addresses)`,
      {
        hint: 'run the anchor as a container attached to its networks, with the Docker socket mounted',
      },
    );
  }

  private selfFrom(info: Json): SelfInfo {
    return {
      id: str(info.Id),
      name: str(info.Name).replace(/^\//, ''),
      networks: networksOf(info.NetworkSettings),
    };
  }

  async snapshot(selfId: string, scope: Selector): Promise<Snapshot> {
    const filters = toDockerFilters(scope);
    // Both requests at once: an event's reconcile waits for one round trip to the engine, not two.
    const [selfInfo, list] = (await Promise.all(
      [
        this.docker.getContainer(selfId).inspect() as Promise<unknown> as Promise<Json>,
        this.docker.listContainers({
          filters: { status: ['running'], label: [...filters.server.label, EXPOSE_LABEL] },
        }) as Promise<unknown> as Promise<Json[]>,
      ].map((request, i) =>
        request.catch((error: unknown) => {
          throw unavailable(
            i === 0 ? 'inspecting the anchor container' : 'listing containers',
            error,
          );
        }),
      ),
    )) as [Json, Json[]];
    const containers: ContainerInfo[] = [];
    const peers = new Set<string>();
    for (const item of list) {
      const networkContainer = networkContainerOf(str(obj(item.HostConfig).NetworkMode));
      if (networkContainer !== undefined) peers.add(networkContainer);
      const created =
        typeof item.Created === 'number' && Number.isFinite(item.Created) ? item.Created * 1000 : 0;
      containers.push({
        id: str(item.Id),
        name: str((item.Names as unknown[] | undefined)?.[0]).replace(/^\//, ''),
        created,
        labels: labelsOf(item.Labels),
        networks: networksOf(item.NetworkSettings),
        ...(networkContainer !== undefined ? { networkContainer } : {}),
      });
    }
    const networkPeers: Record<string, NetworkAttachment[]> = Object.create(null);
    const sortedPeers = [...peers].sort();
    const peerNetworks = await Promise.all(
      sortedPeers.map(async (peer) => {
        try {
          const info = (await this.docker.getContainer(peer).inspect()) as unknown as Json;
          return networksOf(info.NetworkSettings);
        } catch (error) {
          if (statusOf(error) !== 404)
            throw unavailable(`inspecting network peer ${quote(peer)}`, error);
          return [];
        }
      }),
    );
    sortedPeers.forEach((peer, i) => (networkPeers[peer] = peerNetworks[i] ?? []));
    return { self: this.selfFrom(selfInfo), containers, networkPeers };
  }

  async inspectContainer(id: string): Promise<ContainerInfo | undefined> {
    let info: Json;
    try {
      info = (await this.docker.getContainer(id).inspect()) as unknown as Json;
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw unavailable(`inspecting container ${quote(id)}`, error);
    }
    if (obj(info.State).Running !== true) return undefined;
    const networkContainer = networkContainerOf(str(obj(info.HostConfig).NetworkMode));
    const createdMs = Date.parse(str(info.Created));
    return {
      id: str(info.Id),
      name: str(info.Name).replace(/^\//, ''),
      // The list reports whole seconds: the same resolution, so a conflict's winner never
      // depends on which path read the container.
      created: Number.isFinite(createdMs) ? Math.floor(createdMs / 1000) * 1000 : 0,
      labels: labelsOf(obj(info.Config).Labels),
      networks: networksOf(info.NetworkSettings),
      ...(networkContainer !== undefined ? { networkContainer } : {}),
    };
  }

  async watch(
    scope: Selector,
    onEvent: (event?: ContainerEvent) => void,
    onEnd: (error: unknown) => void,
  ): Promise<{ stop(): void }> {
    // Without the expose label: a container relabelled to drop it must still trigger a reconcile.
    const filters: Docker.GetEventsOptions['filters'] = {
      type: ['container'],
      label: toDockerFilters(scope).server.label,
    };
    let stream: NodeJS.ReadableStream;
    try {
      stream = (await this.events.getEvents({ filters })) as NodeJS.ReadableStream;
    } catch (error) {
      throw unavailable('subscribing to Docker events', error);
    }
    const watch = watchStream(stream, onEnd, {
      ended: 'event stream ended',
      closed: 'event stream closed',
    });
    onJsonLines(stream, (event) => {
      if (watch.stopped()) return;
      const action = str(event.Action) || str(event.status);
      const id = str(obj(event.Actor).ID) || str(event.id);
      onEvent(action !== '' && id !== '' ? { action, id } : undefined);
    });
    return watch;
  }
}
