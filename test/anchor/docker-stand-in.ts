/**
 * A stand-in Docker Engine API on a Unix socket, for discovery tests: the few endpoints the
 * anchor calls (`/containers/json` with label and status filters applied as Docker applies
 * them, `/containers/{id}/json`, `/events`), plus a record of every request.
 */
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FakeContainer {
  Id: string;
  Names: string[];
  Created: number;
  Labels: Record<string, string>;
  State?: string;
  HostConfig?: { NetworkMode?: string };
  NetworkSettings: {
    Networks: Record<
      string,
      { IPAddress?: string; GlobalIPv6Address?: string; MacAddress?: string }
    >;
  };
}

export interface StandIn {
  readonly socketPath: string;
  readonly requests: string[];
  containers: FakeContainer[];
  /** When set, every API call answers 500 (Docker down). */
  failing: boolean;
  /** Sends one event to every open /events stream. */
  emit(event: Record<string, unknown>): void;
  close(): Promise<void>;
}

function labelFilterMatches(labels: Record<string, string>, term: string): boolean {
  const at = term.indexOf('=');
  if (at < 0) return Object.prototype.hasOwnProperty.call(labels, term);
  const key = term.slice(0, at);
  return Object.prototype.hasOwnProperty.call(labels, key) && labels[key] === term.slice(at + 1);
}

/** Starts the stand-in on a Unix socket, or with `tcp` on 127.0.0.1 (the socket-proxy case). */
export async function startStandIn(
  containers: FakeContainer[],
  options: { tcp?: boolean } = {},
): Promise<StandIn & { port?: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-docker-'));
  const socketPath = join(dir, 'docker.sock');
  const streams = new Set<ServerResponse>();
  const state: StandIn = {
    socketPath,
    requests: [],
    containers,
    failing: false,
    emit(event) {
      for (const res of streams) res.write(`${JSON.stringify(event)}\n`);
    },
    async close() {
      for (const res of streams) res.destroy();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://docker');
    state.requests.push(`${req.method} ${url.pathname}${url.search}`);
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (state.failing) return send(500, { message: 'stand-in: daemon unavailable' });
    const path = url.pathname.replace(/^\/v[0-9.]+/, '');
    const filters = JSON.parse(url.searchParams.get('filters') ?? '{}') as {
      label?: string[];
      status?: string[];
    };
    if (path === '/containers/json') {
      const list = state.containers.filter(
        (c) =>
          (filters.label ?? []).every((term) => labelFilterMatches(c.Labels, term)) &&
          (filters.status === undefined || filters.status.includes(c.State ?? 'running')),
      );
      return send(200, list);
    }
    const inspect = /^\/containers\/([^/]+)\/json$/.exec(path);
    if (inspect !== null) {
      const ref = decodeURIComponent(inspect[1] as string);
      const found = state.containers.find(
        (c) => c.Id === ref || c.Id.startsWith(ref) || c.Names.includes(`/${ref}`),
      );
      if (found === undefined) return send(404, { message: `No such container: ${ref}` });
      return send(200, {
        Id: found.Id,
        Name: found.Names[0],
        Config: { Labels: found.Labels },
        HostConfig: found.HostConfig ?? {},
        NetworkSettings: found.NetworkSettings,
      });
    }
    if (path === '/events') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      streams.add(res);
      res.on('close', () => streams.delete(res));
      return undefined;
    }
    return send(404, { message: 'stand-in: not implemented' });
  });
  if (options.tcp === true) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    // The same object the handler reads, so tests can still change `containers` and `failing`.
    return Object.assign(state, {
      port: typeof address === 'object' && address !== null ? address.port : 0,
    });
  }
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return state;
}

/** A running container attached to one network. */
export function fake(
  name: string,
  labels: Record<string, string>,
  network: string,
  ipv4: string,
  mac = '02:42:00:00:00:99',
  created = 1_700_000_000,
): FakeContainer {
  return {
    Id: `${name}-0123456789abcdef`,
    Names: [`/${name}`],
    Created: created,
    Labels: labels,
    NetworkSettings: {
      Networks: { [network]: { IPAddress: ipv4, MacAddress: mac, GlobalIPv6Address: '' } },
    },
  };
}
