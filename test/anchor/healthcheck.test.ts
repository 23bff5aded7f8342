// The image's health check: /readyz on the address ANCHORD_METRICS_ADDR names, against the real
// health server, and run as the script the Dockerfile calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { healthcheck, readyzUrl } from '../../src/anchor/io/healthcheck.js';
import { startHttpServer } from '../../src/anchor/io/http-server.js';
import { AnchorMetrics } from '../../src/anchor/metrics.js';

test('readyzUrl follows ANCHORD_METRICS_ADDR like the daemon', () => {
  const rows: [string | undefined, string | undefined][] = [
    [undefined, 'http://127.0.0.1:9090/readyz'],
    ['', undefined],
    ['  ', undefined],
    [':9100', 'http://127.0.0.1:9100/readyz'],
    ['0.0.0.0:9100', 'http://127.0.0.1:9100/readyz'],
    ['[::]:9100', 'http://[::1]:9100/readyz'],
    ['[::1]:9100', 'http://[::1]:9100/readyz'],
    ['10.0.0.5:9100', 'http://10.0.0.5:9100/readyz'],
    ['not an address', undefined],
  ];
  for (const [value, want] of rows)
    assert.equal(
      readyzUrl(value === undefined ? {} : { ANCHORD_METRICS_ADDR: value }),
      want,
      String(value),
    );
});

test('healthcheck: 0 when ready, 1 when not ready or not listening, 0 when disabled', async () => {
  let ready = false;
  const { server, port } = await startHttpServer(
    { host: '127.0.0.1', port: 0 },
    new AnchorMetrics().registry,
    () => ({ tablesInstalled: ready, reconciled: ready }),
  );
  try {
    const env = { ANCHORD_METRICS_ADDR: `127.0.0.1:${port}` };
    assert.equal(await healthcheck(env), 1);
    ready = true;
    assert.equal(await healthcheck(env), 0);
    // As the Dockerfile runs it: a script whose exit code is the verdict.
    // Spawned asynchronously: this process must keep serving while the script asks.
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/anchor/io/healthcheck.ts'], {
      env: { ...process.env, ANCHORD_METRICS_ADDR: `:${port}` },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 20_000,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(status, 0, stderr);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  assert.equal(await healthcheck({ ANCHORD_METRICS_ADDR: `127.0.0.1:${port}` }, 1000), 1);
  assert.equal(await healthcheck({ ANCHORD_METRICS_ADDR: '' }), 0);
});
