// Builders for snapshots in planner and daemon tests.
import { labelsFrom } from '../../src/selector/index.js';
import type { ContainerInfo, NetworkAttachment, Snapshot } from '../../src/anchor/index.js';

export function container(
  name: string,
  labels: Record<string, string>,
  networks: NetworkAttachment[],
  extra: Partial<Pick<ContainerInfo, 'created' | 'networkContainer' | 'id'>> = {},
): ContainerInfo {
  return {
    id: extra.id ?? `id-${name}`,
    name,
    created: extra.created ?? 1_000_000,
    labels: labelsFrom(labels),
    networks,
    ...(extra.networkContainer !== undefined ? { networkContainer: extra.networkContainer } : {}),
  };
}

export function snapshot(
  containers: ContainerInfo[],
  selfNetworks: string[] = ['dmz', 'transit'],
  peers: Snapshot['networkPeers'] = {},
): Snapshot {
  return {
    self: {
      id: 'self',
      name: 'anchor',
      networks: selfNetworks.map((name) => ({ name, ipv4: '10.9.9.9', mac: '02:00:00:00:00:01' })),
    },
    containers,
    networkPeers: peers,
  };
}
