/**
 * `/healthz`, `/readyz` and `/metrics` on node:http. GET/HEAD only; everything else is 404/405.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { Registry } from 'prom-client';

export interface Readiness {
  readonly tablesInstalled: boolean;
  readonly reconciled: boolean;
}

/** Starts the server; resolves once it listens (with the bound port), rejects if it cannot. */
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
      const state = readiness();
      const ready = state.tablesInstalled && state.reconciled;
      res
        .writeHead(ready ? 200 : 503, { 'content-type': 'text/plain' })
        .end(
          ready
            ? 'ok\n'
            : `tables_installed: ${state.tablesInstalled}\nreconciled: ${state.reconciled}\n`,
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
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      const bound = server.address();
      resolve({
        server,
        port: typeof bound === 'object' && bound !== null ? bound.port : address.port,
      });
    });
  });
}
