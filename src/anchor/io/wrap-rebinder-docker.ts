/**
 * The Docker calls the wrap-rebinder makes: list every container in the shape its decisions
 * read, and recreate a wrap-anchor against a fresh `container:<name>` network mode. Docker
 * resolves that reference only when a container is created, so a restart of an anchor whose
 * owner was replaced fails ("joining network namespace of container: No such container"); the
 * only recovery is remove, create with the same settings, start.
 */
import type Docker from 'dockerode';
import type { WrapRebinderPort } from '../rebinder/wrap-rebinder.js';
import type { StartEvent, WrapContainer } from '../rebinder/wrap-target-pool.js';

/** Every container (running or not), as the rebinder's pure functions read them. */
export async function listWrapContainers(docker: Docker): Promise<WrapContainer[]> {
  const list = await docker.listContainers({ all: true });
  return list.map((c) => ({
    id: c.Id,
    names: c.Names,
    networkMode: c.HostConfig.NetworkMode,
    labels: c.Labels,
  }));
}

/**
 * Recreates the container `id` under its own name with `networkMode` and everything else as it
 * was, starts it, and returns the new ID. A `container:` mode shares the owner's hostname, MAC
 * and ports, so those fields are cleared or Docker refuses the create.
 */
export async function recreateWithNetworkMode(
  docker: Docker,
  id: string,
  networkMode: string,
): Promise<string> {
  const inspected = await docker.getContainer(id).inspect();
  const name = inspected.Name.startsWith('/') ? inspected.Name.slice(1) : inspected.Name;
  const config = { ...inspected.Config } as Record<string, unknown>;
  if (networkMode.startsWith('container:')) {
    delete config.Hostname;
    delete config.Domainname;
    delete config.MacAddress;
    delete config.ExposedPorts;
  }
  await docker.getContainer(id).remove({ force: true });
  const created = await docker.createContainer({
    ...config,
    name,
    HostConfig: { ...inspected.HostConfig, NetworkMode: networkMode },
  });
  await created.start();
  return created.id;
}

/** A byte stream of newline-separated JSON values, as Docker's `/events` sends them. */
export function onJsonLines(
  stream: NodeJS.ReadableStream,
  onValue: (value: Record<string, unknown>) => void,
): void {
  let pending = '';
  stream.on('data', (chunk: Buffer | string) => {
    pending += chunk.toString();
    // A chunk may end inside a value: keep the tail for the next one.
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      try {
        const value: unknown = JSON.parse(line);
        if (value !== null && typeof value === 'object' && !Array.isArray(value))
          onValue(value as Record<string, unknown>);
      } catch {
        // Not JSON: nothing Docker promised; the periodic recheck covers what it carried.
      }
    }
  });
}

/** The errors `onEnd` gets when the stream ends or closes without one of its own. */
export interface StreamEndings {
  readonly ended: string;
  readonly closed: string;
}

/** anchord's rebinders say the same for both. */
const CHANNEL_CLOSED: StreamEndings = {
  ended: 'event message channel closed',
  closed: 'event message channel closed',
};

/** Follows stream `end`, `close` and `error` with one `onEnd` call; `stop()` silences it. */
export function watchStream(
  stream: NodeJS.ReadableStream,
  onEnd: (error: unknown) => void,
  endings: StreamEndings = CHANNEL_CLOSED,
): { stop(): void; stopped(): boolean } {
  let stopped = false;
  let ended = false;
  const end = (error: unknown): void => {
    if (ended) return;
    ended = true;
    if (!stopped) onEnd(error);
  };
  stream.on('error', (error: unknown) => end(error));
  stream.on('end', () => end(new Error(endings.ended)));
  stream.on('close', () => end(new Error(endings.closed)));
  return {
    stop() {
      stopped = true;
      (stream as unknown as { destroy?: () => void }).destroy?.();
    },
    stopped: () => stopped,
  };
}

function attributesOf(event: Record<string, unknown>): Record<string, unknown> {
  const actor = event.Actor;
  const attributes =
    actor !== null && typeof actor === 'object'
      ? (actor as Record<string, unknown>).Attributes
      : undefined;
  return attributes !== null && typeof attributes === 'object'
    ? (attributes as Record<string, unknown>)
    : {};
}

/** The rebinder's Docker port on a dockerode client (API calls) and one for the event stream. */
export class DockerWrapRebinder implements WrapRebinderPort {
  constructor(
    private readonly docker: Docker,
    private readonly events: Docker,
  ) {}

  list(): Promise<WrapContainer[]> {
    return listWrapContainers(this.docker);
  }

  recreate(anchorId: string, networkMode: string): Promise<string> {
    return recreateWithNetworkMode(this.docker, anchorId, networkMode);
  }

  async watchStarts(
    onStart: (event: StartEvent) => void,
    onEnd: (error: unknown) => void,
  ): Promise<{ stop(): void }> {
    // The daemon narrows to container starts; the owner names are matched here, since Docker
    // ORs repeated filter keys and the set of names changes.
    const stream = (await this.events.getEvents({
      filters: { type: ['container'], event: ['start'] },
    })) as NodeJS.ReadableStream;
    const watch = watchStream(stream, onEnd);
    onJsonLines(stream, (event) => {
      const action = event.Action ?? event.status;
      if (watch.stopped() || action !== 'start') return;
      const attributes = attributesOf(event);
      const name = attributes.name;
      const project = attributes['com.docker.compose.project'];
      onStart({
        containerName: typeof name === 'string' ? name : '',
        project: typeof project === 'string' ? project : '',
      });
    });
    return watch;
  }
}
