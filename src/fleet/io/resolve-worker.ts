/**
 * A worker thread of {@link resolveInParallel}: reads the resolution core the main thread
 * serialized once into shared memory (no YAML is parsed here, and no other host is held), then
 * resolves the batches of Host documents it is sent, answering each host's digest and problems.
 * Resolution is pure, so any worker gives the same answer for a host.
 */
import { deserialize } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import type { HostDoc } from '../model.js';
import { prepareFleet } from '../resolve/prepare.js';
import { fleetOfCore } from '../resolve/resolution-core.js';
import type { ResolutionCore } from '../resolve/resolution-core.js';
import { resolveHost } from '../resolve/resolve-host.js';

const shared = (workerData as { core: SharedArrayBuffer }).core;
const prepared = prepareFleet(fleetOfCore(deserialize(Buffer.from(shared)) as ResolutionCore));
const port = parentPort;
if (port === null) throw new Error('resolve-worker runs as a worker thread');
port.postMessage({ ready: true });
port.on('message', (batch: { id: number; hosts: HostDoc[] }) => {
  // The batch's hosts only: the layer index, tables and memo are shared by every batch.
  const forBatch = { ...prepared, hosts: new Map(batch.hosts.map((h) => [h.name, h])) };
  const results = batch.hosts.map((host) => {
    const manifest = resolveHost(forBatch, host.name, { provenance: false });
    return { host: host.name, digest: manifest.digest, problems: manifest.problems };
  });
  port.postMessage({ id: batch.id, results });
});
