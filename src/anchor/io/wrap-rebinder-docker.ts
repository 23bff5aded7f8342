/**
 * The Docker calls the wrap-rebinder makes: list every container in the shape its decisions
 * read, and recreate a wrap-anchor against a fresh `container:<name>` network mode. Docker
 * resolves that reference only when a container is created, so a restart of an anchor whose
 * owner was replaced fails ("joining network namespace of container: No such container"); the
 * only recovery is remove, create with the same settings, start.
 */
import type Docker from 'dockerode';
import type { WrapContainer } from '../rebinder/wrap-target-pool.js';

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
