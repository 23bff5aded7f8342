/**
 * The external-rebinder's Docker calls on dockerode: the followed network by name with its
 * endpoints, the container list, a container's attachments, connect by network ID, forced
 * disconnect by name, restart, and the network event stream.
 */
import type Docker from 'dockerode';
import type { ExternalRebinderPort, NetworkEvent } from '../rebinder/external-rebinder.js';
import type { FollowContainer, FollowNetwork } from '../rebinder/follow-rules.js';
import { onJsonLines, watchStream } from './wrap-rebinder-docker.js';

type Json = Record<string, unknown>;

function obj(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Json)
    : {};
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export class DockerExternalRebinder implements ExternalRebinderPort {
  constructor(
    private readonly docker: Docker,
    private readonly events: Docker,
  ) {}

  async inspectNetwork(name: string): Promise<FollowNetwork> {
    const info = obj(await this.docker.getNetwork(name).inspect());
    const members: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [id, endpoint] of Object.entries(obj(info.Containers)))
      members[id] = str(obj(endpoint).Name).replace(/^\//, '');
    return { id: str(info.Id), members };
  }

  async list(): Promise<FollowContainer[]> {
    const list = await this.docker.listContainers({ all: true });
    return list.map((c) => ({ id: c.Id, names: c.Names, labels: c.Labels }));
  }

  async containerNetworks(id: string): Promise<Readonly<Record<string, string>>> {
    const info = obj(await this.docker.getContainer(id).inspect());
    const out: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [name, n] of Object.entries(obj(obj(info.NetworkSettings).Networks)))
      out[name] = str(obj(n).NetworkID);
    return out;
  }

  async connect(networkId: string, containerId: string): Promise<void> {
    await this.docker.getNetwork(networkId).connect({ Container: containerId });
  }

  async disconnect(networkName: string, containerId: string): Promise<void> {
    // Forced: the endpoint state may be half stale, which is why the rebinder is here.
    await this.docker.getNetwork(networkName).disconnect({ Container: containerId, Force: true });
  }

  async restart(containerId: string): Promise<void> {
    await this.docker.getContainer(containerId).restart();
  }

  async watchNetworks(
    onEvent: (event: NetworkEvent) => void,
    onEnd: (error: unknown) => void,
  ): Promise<{ stop(): void }> {
    const stream = (await this.events.getEvents({
      filters: { type: ['network'], event: ['create', 'destroy', 'connect', 'disconnect'] },
    })) as NodeJS.ReadableStream;
    const watch = watchStream(stream, onEnd);
    onJsonLines(stream, (event) => {
      if (watch.stopped()) return;
      const actor = obj(event.Actor);
      const attributes = obj(actor.Attributes);
      onEvent({
        action: str(event.Action),
        networkId: str(actor.ID),
        name: str(attributes.name),
        containerId: str(attributes.container),
      });
    });
    return watch;
  }
}
