/**
 * A worker thread of {@link resolveInParallel}: loads the fleet from the files it is given,
 * then resolves the batches of hosts the main thread sends, answering each host's digest and
 * problems. Resolution is pure, so any worker gives the same answer for a host.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadFleet } from '../documents/load-fleet.js';
import type { FleetFile, LoadOptions } from '../documents/load-fleet.js';
import { prepareFleet } from '../resolve/prepare.js';
import { resolveHost } from '../resolve/resolve-host.js';

interface Setup {
  readonly files: FleetFile[];
  readonly options: LoadOptions;
  readonly contents?: [string, string][];
}

const setup = workerData as Setup;
const loaded = loadFleet(setup.files, setup.options);
const fleet =
  setup.contents === undefined ? loaded : { ...loaded, contents: new Map(setup.contents) };
const prepared = prepareFleet(fleet);
const port = parentPort;
if (port === null) throw new Error('resolve-worker runs as a worker thread');
port.postMessage({ ready: true });
port.on('message', (batch: { id: number; hosts: string[] }) => {
  const results = batch.hosts.map((host) => {
    const manifest = resolveHost(prepared, host, { provenance: false });
    return { host, digest: manifest.digest, problems: manifest.problems };
  });
  port.postMessage({ id: batch.id, results });
});
