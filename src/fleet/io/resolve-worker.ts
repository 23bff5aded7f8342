/**
 * A worker thread of {@link resolveInParallel}: resolves the batches of Host documents it is
 * sent, answering each host's digest and problems, and reads a layer from the shared core the
 * first time one of its hosts selects it (no YAML is parsed here, and no other host is held).
 * Resolution is pure, so any worker gives the same answer for a host.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { HostDoc } from '../model.js';
import { resolveHost } from '../resolve/resolve-host.js';
import { workerFleet } from './shared-core.js';
import type { SharedCore } from './shared-core.js';

const { prepared, heldBytes } = workerFleet(workerData as SharedCore);
const port = parentPort;
if (port === null) throw new Error('resolve-worker runs as a worker thread');
port.postMessage({ ready: true });
port.on('message', (batch: { hosts: HostDoc[] }) => {
  // The batch's hosts only: the layer index, tables, layers read and memo serve every batch.
  const forBatch = { ...prepared, hosts: new Map(batch.hosts.map((h) => [h.name, h])) };
  const results = batch.hosts.map((host) => {
    const manifest = resolveHost(forBatch, host.name, { provenance: false });
    return { host: host.name, digest: manifest.digest, problems: manifest.problems };
  });
  port.postMessage({ results, heldBytes: heldBytes() });
});
