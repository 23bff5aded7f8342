/**
 * `/healthz`, `/readyz` and `/metrics` on node:http. GET/HEAD only; everything else is 404/405.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { Registry } from 'prom-client';

/** What `/readyz` reports: every condition must hold; each is a `name: true|false` line. */
export type Readiness = Readonly<Record<string, boolean>>;

/**
 * Starts the server; resolves once it listens (with the bound port), rejects if it cannot. An
 * empty host listens on every address, IPv6 and IPv4 (dual-stack where the kernel has IPv6).
 */
export function startHttpServer(
  address: { host: string; port: number },
  registry: Registry,
  readiness: () => Readiness,
): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' })
        .end('method not allowed\n');
      return;
    }
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
    } else if (path === '/readyz') {
      // anchord's bodies: "ready" when every condition holds, else the unmet conditions.
      const state = readiness();
      const unmet = Object.entries(state).filter(([, ok]) => !ok);
      res
        .writeHead(unmet.length === 0 ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8' })
        .end(
          unmet.length === 0
            ? 'ready\n'
            : Object.entries(state)
                .map(([name, ok]) => `${name}: ${ok}\n`)
                .join(''),
        );
    } else if (path === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
      );
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    }
  });
  server.keepAliveTimeout = 5000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const onListening = (): void => {
      server.off('error', reject);
      const bound = server.address();
      resolve({
        server,
        port: typeof bound === 'object' && bound !== null ? bound.port : address.port,
      });
    };
    if (address.host === '') server.listen(address.port, onListening);
    else server.listen(address.port, address.host, onListening);
  });
}
